import {
  createReusingConverter,
  sameJson,
  toolResultText,
  type AppliedMessageEdits,
  type Message,
  type MessagePart,
} from '@hookwise/core/messages';
import type { Message as OpenCodeInfo, Part as OpenCodePart, ToolPart } from '@opencode-ai/sdk';

// OpenCode keeps a conversation as `{ info, parts }` messages. They convert one way fully (what
// the model will see) and come back as edits: each core part remembers the OpenCode part it came
// from, and only what a hook changed is written onto copies of those parts, so ids, metadata and
// part kinds core has no word for survive untouched.

export interface OpenCodeMessage {
  info: OpenCodeInfo;
  parts: OpenCodePart[];
}

/** What OpenCode itself sends in place of an output it compacted (`state.time.compacted`). */
export const OPENCODE_COMPACTED_OUTPUT = '[Old tool result content cleared]';
/** What OpenCode sends for a compaction request's user message. */
export const OPENCODE_COMPACTION_PROMPT = 'What did we do so far?';

/** Where a core part came from, in `providerMetadata.opencode`: the message, the part and its kind. */
type Origin = { messageID: string; partID: string; kind: string };

const originOf = (part: MessagePart): Origin | undefined => {
  const origin = part.providerMetadata?.['opencode'] as Origin | undefined;
  return typeof origin?.partID === 'string' ? origin : undefined;
};

/** The output OpenCode puts in the request for a tool part, and whether it is an error. */
function resultOf(part: ToolPart): { output: string; isError: boolean } {
  const state = part.state;
  if (state.status === 'completed')
    return { output: state.time?.compacted ? OPENCODE_COMPACTED_OUTPUT : String(state.output ?? ''), isError: false };
  if (state.status === 'error') return { output: String(state.error ?? ''), isError: true };
  return { output: '[Tool execution was interrupted]', isError: true };
}

/** OpenCode's messages as core messages, in the order the model sees them; parts that never reach it (step markers, patches) left out. */
export const fromOpenCodeMessages = (messages: readonly OpenCodeMessage[]): Message[] => messages.flatMap(fromOpenCodeMessage);

/**
 * `fromOpenCodeMessages` for one session's requests, reusing the core messages of those a request
 * repeats: OpenCode reads each request afresh, and hook-prune and token counting learn per message object.
 */
export const createOpenCodeConversion = () => createReusingConverter(fromOpenCodeMessage, sameForConversion);

/** Whether two reads of a message convert alike: only what the conversion reads is compared (a tool's metadata was most of the cost). */
function sameForConversion(a: OpenCodeMessage, b: OpenCodeMessage): boolean {
  // A user message's `summary` is an object of diffs; only an assistant's `summary: true` is read.
  const summary = (message: OpenCodeMessage) => (message.info as { summary?: unknown }).summary === true;
  return (
    a.info.id === b.info.id &&
    a.info.role === b.info.role &&
    summary(a) === summary(b) &&
    a.parts.length === b.parts.length &&
    a.parts.every((part, index) => samePart(part, b.parts[index]!))
  );
}

function samePart(a: OpenCodePart, b: OpenCodePart): boolean {
  if (a.id !== b.id || a.type !== b.type) return false;
  if (a.type === 'step-start' || a.type === 'step-finish') return true;
  if (a.type !== 'tool' || b.type !== 'tool') return sameJson(a, b);
  const read = (part: ToolPart) => [part.callID, part.tool, part.state.status, resultOf(part).output, part.state.input];
  return sameJson(read(a), read(b));
}

/** One OpenCode message as core messages: an assistant message is one per step, each followed by a `tool` message of its results. */
function fromOpenCodeMessage(message: OpenCodeMessage): Message[] {
  const info = message.info;
  const origin = (part: OpenCodePart) => ({ opencode: { messageID: info.id, partID: part.id, kind: part.type } });
  const text = (part: OpenCodePart, value: string): MessagePart => ({ type: 'text', text: value, providerMetadata: origin(part) });
  // The summary a compaction left is marked `compactSummary`: nothing before it is pruned.
  if (info.role === 'user') {
    const parts = message.parts.flatMap((part): MessagePart[] => {
      if (part.type === 'text') return part.ignored ? [] : [text(part, part.text)];
      if (part.type === 'file' && part.mime.startsWith('image/'))
        return [{ type: 'image', url: part.url, mediaType: part.mime, providerMetadata: origin(part) }];
      if (part.type === 'file') return [text(part, part.source?.text.value ?? `[file ${part.filename ?? part.url}]`)];
      if (part.type === 'compaction') return [text(part, OPENCODE_COMPACTION_PROMPT)];
      return part.type === 'subtask' ? [text(part, part.prompt)] : [];
    });
    return [{ role: 'user', id: info.id, parts }];
  }

  const result: Message[] = [];
  const summary = info.summary === true ? { compactSummary: true } : {};
  let step: { calls: MessagePart[]; results: MessagePart[] } = { calls: [], results: [] };
  let steps = 0;
  const flush = () => {
    if (step.calls.length === 0) return;
    result.push({ role: 'assistant', id: steps === 0 ? info.id : `${info.id}#${steps}`, parts: step.calls, ...summary });
    if (step.results.length > 0) result.push({ role: 'tool', id: `${info.id}#${steps}:results`, parts: step.results });
    steps++;
    step = { calls: [], results: [] };
  };
  for (const part of message.parts) {
    if (part.type === 'step-start') flush();
    else if (part.type === 'text' && !part.ignored) step.calls.push(text(part, part.text));
    else if (part.type === 'reasoning') step.calls.push({ type: 'reasoning', text: part.text, providerMetadata: origin(part) });
    else if (part.type === 'tool') {
      const { output, isError } = resultOf(part);
      const call = { toolCallId: part.callID, toolName: part.tool, providerMetadata: origin(part) };
      step.calls.push({ type: 'tool-call', ...call, input: part.state.input ?? {} });
      step.results.push({ type: 'tool-result', ...call, output, ...(isError ? { isError: true } : {}) });
    }
  }
  flush();
  // A summary message with no text yet still marks where the compaction cut the history.
  if (steps === 0 && info.summary === true) result.push({ role: 'assistant', id: info.id, parts: [], compactSummary: true });
  return result;
}

/** A copy of `part` that sends `text` (a tool's output or error, a text part's text); undefined when it already does. */
function withText(part: OpenCodePart, text: string): OpenCodePart | undefined {
  if (part.type === 'text') return text === part.text ? undefined : { ...part, text };
  if (part.type !== 'tool' || text === resultOf(part).output) return undefined;
  if (part.state.status === 'completed') return { ...part, state: { ...part.state, output: text } };
  return part.state.status === 'error' ? { ...part, state: { ...part.state, error: text } } : undefined;
}

/**
 * Writes the hooks' edits onto copies of OpenCode's messages (it stores the originals): a tool part
 * keeps all but its `state.output` (or `error`), so every call keeps its result; a text part all but
 * its text. A message a hook kept no part of is left out; an unchanged one is the same object.
 * `partsIgnored`: parts a hook added, which have no OpenCode part to land in.
 */
export function applyToOpenCodeMessages(
  original: readonly OpenCodeMessage[],
  transformed: readonly Message[],
  before: readonly Message[] = fromOpenCodeMessages(original),
): AppliedMessageEdits<OpenCodeMessage> & { partsIgnored: number } {
  // Messages that gave the model something: only those can have been dropped by a hook.
  const sent = new Set(before.flatMap((message) => message.parts.flatMap((part) => originOf(part)?.messageID ?? [])));
  const kept = new Set<string>();
  /** What each OpenCode part should send now, by part id. */
  const texts = new Map<string, string>();
  let partsIgnored = 0;
  for (const part of transformed.flatMap((message) => message.parts)) {
    const from = originOf(part);
    if (!from) partsIgnored++;
    else kept.add(from.messageID);
    if (from && part.type === 'tool-result') texts.set(from.partID, toolResultText(part.output));
    else if (from?.kind === 'text' && part.type === 'text') texts.set(from.partID, part.text);
  }

  const counts = { outputsReplaced: 0, textsReplaced: 0, messagesDropped: 0 };
  const messages: OpenCodeMessage[] = [];
  for (const message of original) {
    if (sent.has(message.info.id) && !kept.has(message.info.id)) {
      counts.messagesDropped++;
      continue;
    }
    let changed = false;
    const parts = message.parts.map((part) => {
      const text = texts.get(part.id);
      const next = text === undefined ? undefined : withText(part, text);
      if (!next) return part;
      changed = true;
      counts[part.type === 'tool' ? 'outputsReplaced' : 'textsReplaced']++;
      return next;
    });
    messages.push(changed ? { ...message, parts } : message);
  }
  return { messages, ...counts, partsIgnored };
}

/**
 * The context size OpenCode measured: an assistant message's input + cache read + cache write
 * tokens, as its overflow check counts them; not a compaction's summary (its input is the old context).
 */
export function contextTokensOf(info: OpenCodeInfo): number | undefined {
  if (info.role !== 'assistant' || info.summary === true || !info.tokens) return undefined;
  const { input, cache } = info.tokens;
  const total = (input ?? 0) + (cache?.read ?? 0) + (cache?.write ?? 0);
  return total > 0 ? total : undefined;
}
