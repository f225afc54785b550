import {
  createReusingConverter,
  type AppliedMessageEdits,
  sameJson,
  type Message,
  type MessagePart,
  type TextPart,
  type ToolResultContent,
} from '@hookwise/core/messages';
import type { PiMessage } from './pi-types.js';

/**
 * pi hands its `context` event the conversation as its own messages (`AgentMessage`); core
 * plugins work on the provider-neutral `Message[]`. The conversion goes one way fully (what the
 * model will see), and comes back as edits: every core message remembers the index of the pi
 * message it came from, and only the edits a hook made — a tool result's output, a text, a
 * dropped message — are written onto copies of the originals. pi's own roles
 * (`compactionSummary`, `branchSummary`, `bashExecution`, `custom`) and roles this adapter does
 * not know go to hooks as text and always come back untouched.
 */

/** Where a core message came from, in `providerMetadata.pi`. */
interface Origin {
  index: number;
  /** A pi role hooks may read but never change or drop. */
  passthrough?: true;
}

const originOf = (message: Message): Origin | undefined => {
  const origin = message.providerMetadata?.['pi'];
  return typeof origin === 'object' && origin !== null && typeof (origin as Origin).index === 'number' ? (origin as Origin) : undefined;
};

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** User or tool-result content (a string, or text and image blocks) as core parts. */
function contentParts(content: unknown): Array<TextPart | { type: 'image'; data?: string; mediaType?: string }> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const parts: Array<TextPart | { type: 'image'; data?: string; mediaType?: string }> = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block['type'] === 'text') parts.push({ type: 'text', text: text(block['text']) });
    else if (block['type'] === 'image')
      parts.push({
        type: 'image',
        ...(typeof block['data'] === 'string' ? { data: block['data'] } : {}),
        ...(typeof block['mimeType'] === 'string' ? { mediaType: block['mimeType'] } : {}),
      });
  }
  return parts;
}

/** A tool result's output: its text when it is all text (the usual case), else its blocks. */
function resultOutput(content: unknown): ToolResultContent {
  const parts = contentParts(content);
  return parts.every((part) => part.type === 'text')
    ? parts.map((part) => (part as TextPart).text).join('\n')
    : (parts as Exclude<ToolResultContent, string>);
}

/** The text a hook sees for one of pi's own roles (or an unknown one). */
function passthroughText(message: PiMessage): string {
  switch (message.role) {
    case 'compactionSummary':
    case 'branchSummary':
      return text(message['summary']);
    case 'bashExecution':
      return `$ ${text(message['command'])}\n${text(message['output'])}`;
    default:
      return typeof message.content === 'string'
        ? message.content
        : contentParts(message.content)
            .map((part) => (part.type === 'text' ? part.text : ''))
            .join('\n');
  }
}

/** One pi message as a core message (undefined for what is not a message); `index` is its place in pi's list. */
function fromPiMessage(message: unknown, index: number): Message | undefined {
  if (!isRecord(message)) return undefined;
  const pi = (extra: Partial<Origin> = {}) => ({ pi: { index, ...extra } });
  switch (message['role']) {
    case 'user':
      return { role: 'user', parts: contentParts(message['content']) as MessagePart[], providerMetadata: pi() };
    case 'assistant': {
      const parts: MessagePart[] = [];
      for (const block of Array.isArray(message['content']) ? message['content'] : []) {
        if (!isRecord(block)) continue;
        if (block['type'] === 'text') parts.push({ type: 'text', text: text(block['text']) });
        else if (block['type'] === 'thinking') parts.push({ type: 'reasoning', text: text(block['thinking']) });
        else if (block['type'] === 'toolCall')
          parts.push({ type: 'tool-call', toolCallId: text(block['id']), toolName: text(block['name']), input: block['arguments'] ?? {} });
      }
      return { role: 'assistant', parts, providerMetadata: pi() };
    }
    case 'toolResult':
      return {
        role: 'tool',
        parts: [
          {
            type: 'tool-result',
            toolCallId: text(message['toolCallId']),
            toolName: text(message['toolName']),
            output: resultOutput(message['content']),
            ...(message['isError'] === true ? { isError: true } : {}),
          },
        ],
        providerMetadata: pi(),
      };
    default:
      // compactionSummary marks where the history was cut: pruning never reaches before it.
      return {
        role: 'user',
        parts: [{ type: 'text', text: passthroughText(message as PiMessage) }],
        providerMetadata: pi({ passthrough: true }),
        ...(message['role'] === 'compactionSummary' ? { compactSummary: true } : {}),
      };
  }
}

/** pi's messages as core messages, one for one, in the order the model sees them. */
export function fromPiMessages(messages: readonly PiMessage[]): Message[] {
  const result: Message[] = [];
  messages.forEach((message, index) => {
    const converted = fromPiMessage(message, index);
    if (converted) result.push(converted);
  });
  return result;
}

/**
 * `fromPiMessages` for one session's requests, giving back the same core message objects for
 * the messages a request shares with the previous one (core's reusing converter). pi hands every
 * `context` event a deep copy; hook-prune and core's token counting keep what they learnt per
 * message object, so fresh objects would make them start over on every request. Its output
 * always equals `fromPiMessages`' (the plain version and its spec; a test holds them equal).
 */
export class PiConversion {
  readonly convert = createReusingConverter<PiMessage>(fromPiMessage, sameJson);
}

/** What a hook changed, as applied to pi's messages. */
export interface AppliedEdits extends AppliedMessageEdits<PiMessage> {
  /** Messages a hook added, which have no pi message to land in (left out, reported). */
  messagesIgnored: number;
}

const outputText = (output: ToolResultContent): string =>
  typeof output === 'string' ? output : output.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

/** A tool result's content with a new output: one text block (pi's own form for text results). */
function resultContent(output: ToolResultContent): unknown[] {
  if (typeof output === 'string') return [{ type: 'text', text: output }];
  return output.map((part) =>
    part.type === 'text'
      ? { type: 'text', text: part.text }
      : { type: 'image', data: part.data ?? '', mimeType: part.mediaType ?? 'image/png' },
  );
}

/** Replaces the text blocks of pi content, in order, with the texts a hook left. */
function withTexts(content: unknown, texts: string[], field: 'text'): { content: unknown; changed: number } {
  if (typeof content === 'string')
    return texts.length === 1 && texts[0] !== content ? { content: texts[0], changed: 1 } : { content, changed: 0 };
  if (!Array.isArray(content)) return { content, changed: 0 };
  let position = 0;
  let changed = 0;
  const next = content.map((block: unknown) => {
    if (!isRecord(block) || block['type'] !== 'text') return block;
    const wanted = texts[position++];
    if (wanted === undefined || wanted === block[field]) return block;
    changed++;
    return { ...block, [field]: wanted };
  });
  return changed > 0 ? { content: next, changed } : { content, changed: 0 };
}

/**
 * Writes the hooks' edits back onto pi's messages, without touching the originals (pi keeps
 * them in the session file; the edit is for this request only). A message none of whose core
 * message survived is left out, unless it is one of pi's own roles; a message that is unchanged
 * is the very same object.
 */
export function applyToPiMessages(original: readonly PiMessage[], transformed: readonly Message[]): AppliedEdits {
  const byIndex = new Map<number, Message>();
  let messagesIgnored = 0;
  for (const message of transformed) {
    const origin = originOf(message);
    if (origin === undefined || origin.index < 0 || origin.index >= original.length) messagesIgnored++;
    else byIndex.set(origin.index, message);
  }
  let outputsReplaced = 0;
  let textsReplaced = 0;
  let messagesDropped = 0;
  const messages: PiMessage[] = [];
  original.forEach((message, index) => {
    const edited = byIndex.get(index);
    const known = message.role === 'user' || message.role === 'assistant' || message.role === 'toolResult';
    if (!known) {
      messages.push(message);
      return;
    }
    if (edited === undefined) {
      messagesDropped++;
      return;
    }
    if (message.role === 'toolResult') {
      const part = edited.parts.find((candidate) => candidate.type === 'tool-result');
      if (part && part.type === 'tool-result' && outputText(part.output) !== outputText(resultOutput(message.content))) {
        outputsReplaced++;
        messages.push({ ...message, content: resultContent(part.output) });
      } else messages.push(message);
      return;
    }
    const texts = edited.parts.filter((part): part is TextPart => part.type === 'text').map((part) => part.text);
    const { content, changed } = withTexts(message.content, texts, 'text');
    textsReplaced += changed;
    messages.push(changed > 0 ? { ...message, content } : message);
  });
  return { messages, outputsReplaced, textsReplaced, messagesDropped, messagesIgnored };
}

/**
 * Whether every tool call of pi's messages has exactly one result after it and every result
 * answers a call: providers refuse a request that breaks this, so an edit that would is not sent.
 */
export function pairingProblems(messages: readonly PiMessage[]): string[] {
  const open = new Map<string, boolean>();
  const problems: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'assistant' && Array.isArray(message.content)) {
      for (const block of message.content) if (isRecord(block) && block['type'] === 'toolCall') open.set(text(block['id']), false);
    } else if (message.role === 'toolResult') {
      const id = text(message['toolCallId']);
      if (open.get(id) !== false) problems.push(`message ${index}: result ${id} answers no open call`);
      else open.set(id, true);
    }
  });
  // The newest assistant step may still be waiting for its results (pi sends none then); only earlier calls must be answered.
  const lastAssistant = messages.map((message) => message.role).lastIndexOf('assistant');
  messages.forEach((message, index) => {
    if (index === lastAssistant || message.role !== 'assistant' || !Array.isArray(message.content)) return;
    for (const block of message.content)
      if (isRecord(block) && block['type'] === 'toolCall' && open.get(text(block['id'])) === false)
        problems.push(`message ${index}: call ${text(block['id'])} has no result`);
  });
  return problems;
}

/** Appends `addition` to the newest compaction summary (for this request), unless it already holds it. */
export function extendCompactionSummary(messages: readonly PiMessage[], addition: string): PiMessage[] | undefined {
  let index = -1;
  for (let position = messages.length - 1; position >= 0; position--) {
    if (messages[position]?.role === 'compactionSummary') {
      index = position;
      break;
    }
  }
  if (index === -1) return undefined;
  const summary = text(messages[index]!['summary']);
  if (summary.includes(addition)) return undefined;
  const next = messages.slice();
  next[index] = { ...messages[index]!, summary: `${summary}\n\n${addition}` };
  return next;
}
