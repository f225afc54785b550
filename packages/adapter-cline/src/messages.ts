import {
  applyPartEdits,
  createReusingConverter,
  sameJson,
  stringify,
  type AppliedPartMemo,
  type Message,
  type MessagePart,
  type PartEditCounts,
  type PartOrigin,
  type PartOriginTable,
  type PartWriter,
} from '@hookwise/core/messages';
import type { ClineMessage, ClinePart } from './cline-types.js';

/**
 * Cline's `beforeModel` hands hooks the request as its own `AgentMessage`s (parts `text`,
 * `reasoning`, `image`, `file`, `tool-call`, `tool-result`); core plugins work on the
 * provider-neutral `Message[]`. Each core tool call and result remembers the Cline part it came
 * from, and a hook's edits are written back onto copies of those parts (core's
 * `applyPartEdits`): ids, order, metadata and everything else of Cline's stay as they were.
 */

/** The status-notice reasons of Cline's compactions (and a summary message's metadata). */
export const COMPACTION_REASONS = new Set(['auto_compaction', 'manual_compaction', 'compaction_budget_emergency']);

/** A tool output as the text the provider is sent: `read_files` gives `[{query, result, success}]`, sent as its JSON. */
export const outputText = (output: unknown): string => stringify(output ?? '');

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * Whether a message is the summary Cline put in place of what a compaction removed: its metadata
 * `kind` is `compaction_summary` (agentic compaction, 3.0.65) or `compaction` (basic).
 */
function isCompactionSummary(message: ClineMessage): boolean {
  const kind = (message.metadata as { kind?: unknown } | undefined)?.kind;
  return kind === 'compaction_summary' || kind === 'compaction';
}

/** One Cline message as a core message; the origin of its tool calls and results goes to `origins`. */
export function convertMessage(message: ClineMessage, messageIndex: number, origins: PartOriginTable): Message | undefined {
  if (message.role !== 'user' && message.role !== 'assistant' && message.role !== 'tool') return undefined;
  const parts: MessagePart[] = [];
  const content = Array.isArray(message.content) ? message.content : [];
  content.forEach((part, partIndex) => {
    let converted: MessagePart | undefined;
    switch (part?.type) {
      case 'text':
        parts.push({ type: 'text', text: text(part.text) });
        return;
      case 'reasoning':
        parts.push({ type: 'reasoning', text: text(part.text) });
        return;
      case 'image':
      case 'file':
        parts.push({ type: 'image', ...(typeof part['mediaType'] === 'string' ? { mediaType: part['mediaType'] } : {}) });
        return;
      case 'tool-call':
        converted = { type: 'tool-call', toolCallId: text(part.toolCallId), toolName: text(part.toolName), input: part.input ?? {} };
        break;
      case 'tool-result':
        converted = {
          type: 'tool-result',
          toolCallId: text(part.toolCallId),
          toolName: text(part.toolName),
          output: outputText(part.output),
          ...(part.isError === true ? { isError: true } : {}),
        };
        break;
      default:
        return;
    }
    origins.set(converted, { message: messageIndex, part: partIndex });
    parts.push(converted);
  });
  return {
    role: message.role,
    id: message.id,
    parts,
    // Nothing before the latest compaction summary is pruned.
    ...(isCompactionSummary(message) ? { compactSummary: true } : {}),
  };
}

/** The request's messages as core messages, with the origin of each tool part. */
export interface ConvertedMessages {
  messages: Message[];
  origins: Pick<PartOriginTable, 'get'>;
}

/** The plain conversion: the spec of {@link createClineConverter}, which gives the same result. */
export function fromClineMessages(messages: readonly ClineMessage[]): ConvertedMessages {
  const origins = new Map<MessagePart, PartOrigin>();
  const converted: Message[] = [];
  messages.forEach((message, index) => {
    const one = convertMessage(message, index, origins);
    if (one) converted.push(one);
  });
  return { messages: converted, origins };
}

/**
 * The conversion for one session's requests. Cline hands every hook call a fresh JSON copy; a
 * message that says the same as last request at the same place keeps its core message, so
 * hook-prune and token counting pay only for what is new (core's reusing converter).
 */
export function createClineConverter(): (messages: readonly ClineMessage[]) => ConvertedMessages {
  const origins = new WeakMap<MessagePart, PartOrigin>();
  const convert = createReusingConverter(
    (message: ClineMessage, index) => convertMessage(message, index, origins),
    (a, b) => a.id === b.id && a.role === b.role && sameJson(a.content, b.content),
    { prefix: true },
  );
  return (messages) => ({ messages: convert(messages), origins });
}

const WRITER: PartWriter<ClineMessage, ClinePart> = {
  parts: (message) => (Array.isArray(message.content) ? message.content : undefined),
  withParts: (message, content) => ({ ...message, content }),
  output: (part, output) => ({ ...part, output }),
  input: (part, input) => ({ ...part, input }),
};

/** Writes a hook's edits onto copies of Cline's messages; untouched messages stay the same objects. */
export function applyToClineMessages(
  original: readonly ClineMessage[],
  converted: ConvertedMessages,
  transformed: readonly Message[],
  memo?: AppliedPartMemo<ClineMessage>,
): PartEditCounts & { messages: ClineMessage[] } {
  return applyPartEdits(original, converted, transformed, WRITER, memo ? { memo } : {});
}

/**
 * Hookwise's texts as a `<hookwise>` text part of the first user message — after a compaction,
 * Cline's summary: the head of the request, the same from call to call while the texts are.
 */
export function withHookwiseText(messages: readonly ClineMessage[], texts: readonly string[]): readonly ClineMessage[] {
  const index = messages.findIndex((message) => message.role === 'user');
  if (texts.length === 0 || index === -1) return messages;
  const next = messages.slice();
  const head = messages[index]!;
  next[index] = { ...head, content: [...head.content, { type: 'text', text: `<hookwise>\n${texts.join('\n\n')}\n</hookwise>` }] };
  return next;
}
