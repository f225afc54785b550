import {
  createReusingConverter,
  sameJson,
  toolResultText,
  type AppliedMessageEdits,
  type Message,
  type MessagePart,
} from '@hookwise/core/messages';
import type { Message as OpenCodeInfo, Part as OpenCodePart, ToolPart } from '@opencode-ai/sdk';

/**
 * OpenCode keeps a conversation as `{ info, parts }` messages; core plugins work on the
 * provider-neutral `Message[]`. The conversion goes one way fully (what the model will see), and
 * comes back as edits: every core part remembers the OpenCode part it came from, and only the
 * edits a hook made — a tool result's output, a text part's text, a dropped message — are written
 * onto copies of the original parts. Nothing else of OpenCode's message is rebuilt, so ids,
 * call ids, metadata and part kinds core has no word for survive untouched.
 */

export interface OpenCodeMessage {
  info: OpenCodeInfo;
  parts: OpenCodePart[];
}

/** What OpenCode itself sends in place of an output it compacted (`state.time.compacted`). */
export const OPENCODE_COMPACTED_OUTPUT = '[Old tool result content cleared]';
/** What OpenCode sends for a tool call that never finished. */
export const OPENCODE_INTERRUPTED_OUTPUT = '[Tool execution was interrupted]';
/** What OpenCode sends for a compaction request's user message. */
export const OPENCODE_COMPACTION_PROMPT = 'What did we do so far?';

/** Where a core part came from, in `providerMetadata.opencode`. */
interface Origin {
  messageID: string;
  partID: string;
  /** The OpenCode part kind (`text`, `file`, `compaction`, `tool`…). */
  kind: string;
  synthetic?: boolean;
}

const originOf = (part: { providerMetadata?: Record<string, unknown> | undefined }): Origin | undefined => {
  const origin = part.providerMetadata?.['opencode'];
  return typeof origin === 'object' && origin !== null && typeof (origin as Origin).partID === 'string' ? (origin as Origin) : undefined;
};

const origin = (message: OpenCodeMessage, part: OpenCodePart, extra: Partial<Origin> = {}): Record<string, unknown> => ({
  opencode: { messageID: message.info.id, partID: part.id, kind: part.type, ...extra },
});

/** The output OpenCode puts in the request for a tool part, and whether it is an error. */
function resultOf(part: ToolPart): { output: string; isError: boolean } {
  const state = part.state;
  if (state.status === 'completed')
    return { output: state.time?.compacted ? OPENCODE_COMPACTED_OUTPUT : String(state.output ?? ''), isError: false };
  if (state.status === 'error') return { output: String(state.error ?? ''), isError: true };
  return { output: OPENCODE_INTERRUPTED_OUTPUT, isError: true };
}

/**
 * OpenCode's messages as core messages, in the order the model sees them. An assistant message
 * becomes one assistant message per step (text, reasoning, tool calls), each followed by a `tool`
 * message holding the results of its calls, as OpenCode sends them. The summary a compaction left
 * is marked `compactSummary`. Part kinds that never reach the model (step markers, snapshots,
 * patches) are left out.
 */
export function fromOpenCodeMessages(messages: readonly OpenCodeMessage[]): Message[] {
  return messages.flatMap(fromOpenCodeMessage);
}

/**
 * `fromOpenCodeMessages` for one session's requests, giving back the same core message objects
 * for the messages a request shares with the previous one (core's reusing converter). OpenCode
 * and Kilo read a request's messages afresh from storage; hook-prune and core's token counting
 * keep what they learnt per message object, so fresh objects would make them start over on
 * every request. Its output always equals `fromOpenCodeMessages`' (a test holds them equal).
 */
export const createOpenCodeConversion = (): ((messages: readonly OpenCodeMessage[]) => Message[]) =>
  createReusingConverter(fromOpenCodeMessage, sameForConversion);

/**
 * Whether two reads of a message convert alike: the fields {@link fromOpenCodeMessage} reads.
 * A tool part's `metadata` and timings and a step's token figures never reach the model, and
 * comparing them all (`sameJson`) was most of a 200-message request's cost.
 */
function sameForConversion(a: OpenCodeMessage, b: OpenCodeMessage): boolean {
  if (a.info.id !== b.info.id || a.info.role !== b.info.role || a.parts.length !== b.parts.length) return false;
  // A user message's `summary` is an object of diffs; only an assistant's `summary: true` is read.
  if (((a.info as { summary?: unknown }).summary === true) !== ((b.info as { summary?: unknown }).summary === true)) return false;
  return a.parts.every((part, index) => samePart(part, b.parts[index]!));
}

function samePart(a: OpenCodePart, b: OpenCodePart): boolean {
  if (a.id !== b.id || a.type !== b.type) return false;
  if (a.type === 'step-start' || a.type === 'step-finish') return true;
  if (a.type !== 'tool' || b.type !== 'tool') return sameJson(a, b);
  const [x, y] = [a.state as Record<string, unknown>, b.state as Record<string, unknown>];
  return (
    a.callID === b.callID &&
    a.tool === b.tool &&
    x['status'] === y['status'] &&
    x['output'] === y['output'] &&
    x['error'] === y['error'] &&
    (x['time'] as { compacted?: unknown } | undefined)?.compacted === (y['time'] as { compacted?: unknown } | undefined)?.compacted &&
    sameJson(x['input'], y['input'])
  );
}

/** One OpenCode message as core messages (an assistant message: one per step, results after each). */
function fromOpenCodeMessage(message: OpenCodeMessage): Message[] {
  const result: Message[] = [];
  const info = message.info;
  if (info.role === 'user') {
    const parts: MessagePart[] = [];
    for (const part of message.parts) {
      if (part.type === 'text') {
        if (part.ignored) continue;
        parts.push({ type: 'text', text: part.text, providerMetadata: origin(message, part, part.synthetic ? { synthetic: true } : {}) });
      } else if (part.type === 'file') {
        if (part.mime.startsWith('image/'))
          parts.push({ type: 'image', url: part.url, mediaType: part.mime, providerMetadata: origin(message, part) });
        else
          parts.push({
            type: 'text',
            text: part.source?.text.value ?? `[file ${part.filename ?? part.url}]`,
            providerMetadata: origin(message, part),
          });
      } else if (part.type === 'compaction') {
        parts.push({ type: 'text', text: OPENCODE_COMPACTION_PROMPT, providerMetadata: origin(message, part, { synthetic: true }) });
      } else if (part.type === 'subtask') {
        parts.push({ type: 'text', text: part.prompt, providerMetadata: origin(message, part, { synthetic: true }) });
      }
    }
    result.push({ role: 'user', id: info.id, parts });
    return result;
  }

  let step: { calls: MessagePart[]; results: MessagePart[] } = { calls: [], results: [] };
  let stepIndex = 0;
  const flush = () => {
    if (step.calls.length === 0 && step.results.length === 0) return;
    result.push({
      role: 'assistant',
      id: stepIndex === 0 ? info.id : `${info.id}#${stepIndex}`,
      parts: step.calls,
      ...(info.summary === true ? { compactSummary: true } : {}),
    });
    if (step.results.length > 0) result.push({ role: 'tool', id: `${info.id}#${stepIndex}:results`, parts: step.results });
    stepIndex++;
    step = { calls: [], results: [] };
  };
  for (const part of message.parts) {
    if (part.type === 'step-start') flush();
    else if (part.type === 'text') {
      if (!part.ignored) step.calls.push({ type: 'text', text: part.text, providerMetadata: origin(message, part) });
    } else if (part.type === 'reasoning') step.calls.push({ type: 'reasoning', text: part.text, providerMetadata: origin(message, part) });
    else if (part.type === 'tool') {
      step.calls.push({
        type: 'tool-call',
        toolCallId: part.callID,
        toolName: part.tool,
        input: part.state.input ?? {},
        providerMetadata: origin(message, part),
      });
      const { output, isError } = resultOf(part);
      step.results.push({
        type: 'tool-result',
        toolCallId: part.callID,
        toolName: part.tool,
        output,
        ...(isError ? { isError: true } : {}),
        providerMetadata: origin(message, part),
      });
    }
  }
  flush();
  // A summary message with no text yet still marks where the compaction cut the history.
  if (stepIndex === 0 && info.summary === true) result.push({ role: 'assistant', id: info.id, parts: [], compactSummary: true });
  return result;
}

/** What a hook changed, as applied to OpenCode's messages. */
export interface AppliedEdits extends AppliedMessageEdits<OpenCodeMessage> {
  /** Parts a hook added, which have no OpenCode part to land in (left out, reported). */
  partsIgnored: number;
}

/**
 * Writes the hooks' edits back onto OpenCode's messages, without touching the originals (OpenCode
 * stores them; the edit is for this request only). A tool part whose result changed is copied
 * with only `state.output` (or `state.error`) replaced: its id, call id, input and metadata stay,
 * so every call keeps its result. A text part whose text changed is copied with the new text. An
 * OpenCode message none of whose core messages survived is left out; a message that is unchanged
 * is the very same object.
 */
export function applyToOpenCodeMessages(
  original: readonly OpenCodeMessage[],
  transformed: readonly Message[],
  before: readonly Message[] = fromOpenCodeMessages(original),
): AppliedEdits {
  // Messages that gave the model something: only those can have been dropped by a hook.
  const sentMessages = new Set<string>();
  for (const message of before) {
    for (const part of message.parts) {
      const from = originOf(part);
      if (from) sentMessages.add(from.messageID);
    }
  }
  const outputs = new Map<string, string>();
  const texts = new Map<string, string>();
  const survivingMessages = new Set<string>();
  let partsIgnored = 0;
  for (const message of transformed) {
    for (const part of message.parts) {
      const from = originOf(part);
      if (!from) {
        partsIgnored++;
        continue;
      }
      survivingMessages.add(from.messageID);
      if (part.type === 'tool-result') outputs.set(from.partID, toolResultText(part.output));
      else if (part.type === 'text' && from.kind === 'text') texts.set(from.partID, part.text);
    }
  }

  let outputsReplaced = 0;
  let textsReplaced = 0;
  let messagesDropped = 0;
  const messages: OpenCodeMessage[] = [];
  for (const message of original) {
    if (sentMessages.has(message.info.id) && !survivingMessages.has(message.info.id)) {
      messagesDropped++;
      continue;
    }
    let parts: OpenCodePart[] | undefined;
    message.parts.forEach((part, index) => {
      let next: OpenCodePart | undefined;
      if (part.type === 'tool' && outputs.has(part.id)) {
        const wanted = outputs.get(part.id)!;
        const current = resultOf(part);
        if (wanted !== current.output) {
          if (part.state.status === 'completed') next = { ...part, state: { ...part.state, output: wanted } };
          else if (part.state.status === 'error') next = { ...part, state: { ...part.state, error: wanted } };
          if (next) outputsReplaced++;
        }
      } else if (part.type === 'text' && texts.has(part.id) && texts.get(part.id) !== part.text) {
        next = { ...part, text: texts.get(part.id)! };
        textsReplaced++;
      }
      if (next) {
        parts ??= message.parts.slice();
        parts[index] = next;
      }
    });
    messages.push(parts ? { ...message, parts } : message);
  }
  return { messages, outputsReplaced, textsReplaced, messagesDropped, partsIgnored };
}

/**
 * The context size OpenCode measured: the provider-reported tokens of the last finished
 * assistant message (input + cache read + cache write, as OpenCode's overflow check counts
 * them, without the output just produced). A compaction's summary message is skipped: its
 * input is the old context it summarised.
 */
export function contextTokensOf(info: OpenCodeInfo): number | undefined {
  if (info.role !== 'assistant' || info.summary === true) return undefined;
  const tokens = info.tokens;
  if (!tokens) return undefined;
  const total = (tokens.input ?? 0) + (tokens.cache?.read ?? 0) + (tokens.cache?.write ?? 0);
  return total > 0 ? total : undefined;
}
