// Writing a hook's edits back onto a host's own messages, for hosts whose conversion remembers
// where each core part came from (a host message's index and the part's index in it). What is
// generic lives here — matching a hook's new parts to the originals, telling edits from kept
// parts, counting, and a memo of what each message became — and the host says how one of its
// parts takes a new tool output or input, and how a message takes new parts.
import type { Message, MessagePart, ToolResultContent } from './message-model.js';

/** Where a core part came from: the host message and the part's index in it. */
export interface PartOrigin {
  message: number;
  part: number;
}

/** Where the origin of each converted part is kept: a Map for one conversion, a WeakMap across calls. */
export interface PartOriginTable {
  get(part: MessagePart): PartOrigin | undefined;
  set(part: MessagePart, origin: PartOrigin): unknown;
}

/** A host's messages as core messages, with the origin of each tool call and tool result. */
export interface ConvertedParts {
  messages: Message[];
  origins: Pick<PartOriginTable, 'get'>;
}

/** How a host's messages take edits. */
export interface PartWriter<H, P> {
  /** The parts of a host message; undefined for one that has none a hook may edit. */
  parts(message: H): readonly P[] | undefined;
  /** A copy of `message` with `parts`. */
  withParts(message: H, parts: P[]): H;
  /** A copy of a tool result part with a new output (its text). */
  output(part: P, text: string): P;
  /** A copy of a tool call part with a new input. */
  input(part: P, input: unknown): P;
}

export interface PartEditCounts {
  /** Tool results whose output was replaced. */
  outputsReplaced: number;
  /** Tool calls whose input was replaced (a digest of an old write). */
  inputsReplaced: number;
  /** Edits with no place in the host's messages (added or dropped messages, unknown ids): left out. */
  editsIgnored: number;
  /** Tool outputs a hook replaced that were left to the provider's own clearing. */
  outputsLeft: number;
}

/** One host message as a hook's edits left it, remembered for the next call. */
export interface AppliedPartMessage<H> {
  /** The hook's message it was made from. */
  transformed: Message;
  message: H;
  /** Whether tool results were applied (a call that defers them to the provider is another call). */
  toolResults: boolean;
  outputsReplaced: number;
  inputsReplaced: number;
  outputsLeft: number;
}

/** Remembers each applied message by the core message it replaced (a conversation's memo). */
export type AppliedPartMemo<H> = WeakMap<Message, AppliedPartMessage<H>>;

/** A value as the JSON text a provider is sent (its own string when it is one). */
export function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A tool result's output as one text (an image as `[image <type>]`). */
export function toolResultText(output: ToolResultContent): string {
  if (typeof output === 'string') return output;
  return output.map((part) => (part.type === 'text' ? part.text : `[image${part.mediaType ? ` ${part.mediaType}` : ''}]`)).join('\n');
}

/**
 * Writes what a hook changed back onto copies of the host's messages: a tool result's output and
 * a tool call's input. Ids, order and every other part stay, so each call keeps its result;
 * untouched messages are the same objects. Anything else a hook changed is counted and left out.
 *
 * With a `memo`, a message the hook changed the same way last call (hook-prune gives the same
 * message object for the same prune) is the message applied then: a conversation's repeated
 * prunes cost a lookup each, not a copy.
 */
export function applyPartEdits<H, P>(
  host: readonly H[],
  converted: ConvertedParts,
  transformed: readonly Message[],
  writer: PartWriter<H, P>,
  options: { toolResults?: boolean; memo?: AppliedPartMemo<H> } = {},
): PartEditCounts & { messages: H[] } {
  const toolResults = options.toolResults !== false;
  const counts: PartEditCounts = { outputsReplaced: 0, inputsReplaced: 0, outputsLeft: 0, editsIgnored: 0 };
  const replaced = new Map<number, H>();
  // A new part is matched to the part at its place, or else to the original with its id.
  let byId: Map<string, { part: MessagePart; origin: PartOrigin }> | undefined;
  const originalOf = (part: MessagePart & { toolCallId: string }, place: MessagePart | undefined) => {
    if (place !== undefined && place.type === part.type && (place as { toolCallId: string }).toolCallId === part.toolCallId) {
      const origin = converted.origins.get(place);
      if (origin !== undefined) return { part: place, origin };
    }
    if (byId === undefined) {
      byId = new Map();
      for (const message of converted.messages)
        for (const original of message.parts) {
          const origin = converted.origins.get(original);
          if (origin !== undefined && (original.type === 'tool-result' || original.type === 'tool-call'))
            byId.set(`${original.type} ${original.toolCallId}`, { part: original, origin });
        }
    }
    return byId.get(`${part.type} ${part.toolCallId}`);
  };

  /** The edits of one hook message, by host message and part index. */
  const editsOf = (message: Message, before: Message | undefined, tally: Omit<PartEditCounts, 'editsIgnored'>) => {
    const edits = new Map<number, Map<number, P>>();
    const aligned = before !== undefined && before.parts.length === message.parts.length;
    message.parts.forEach((part, partIndex) => {
      // A hook returns the parts it kept as the same objects: only new ones are edits.
      if (converted.origins.get(part) !== undefined || (part.type !== 'tool-result' && part.type !== 'tool-call')) return;
      const original = originalOf(part, aligned ? before.parts[partIndex] : undefined);
      if (!original) {
        counts.editsIgnored++;
        return;
      }
      const source = writer.parts(host[original.origin.message]!)![original.origin.part]!;
      let edited: P | undefined;
      if (part.type === 'tool-result' && original.part.type === 'tool-result') {
        const text = toolResultText(part.output);
        if (text === toolResultText(original.part.output)) return;
        if (!toolResults) {
          tally.outputsLeft++;
          return;
        }
        edited = writer.output(source, text);
        tally.outputsReplaced++;
      } else if (part.type === 'tool-call' && original.part.type === 'tool-call') {
        if (stringify(part.input) === stringify(original.part.input)) return;
        edited = writer.input(source, part.input);
        tally.inputsReplaced++;
      }
      if (!edited) return;
      let parts = edits.get(original.origin.message);
      if (!parts) edits.set(original.origin.message, (parts = new Map()));
      parts.set(original.origin.part, edited);
    });
    return edits;
  };
  const applyEdits = (edits: Map<number, Map<number, P>>) => {
    for (const [index, parts] of edits) {
      const message = replaced.get(index) ?? host[index]!;
      const current = writer.parts(message);
      if (current === undefined) continue;
      replaced.set(
        index,
        writer.withParts(
          message,
          current.map((part, partIndex) => parts.get(partIndex) ?? part),
        ),
      );
    }
  };

  // Only tool results and tool calls have a place to go back to; a hook that added or dropped
  // messages asked for something the host's messages cannot take without breaking their pairing.
  const positional = transformed.length === converted.messages.length;
  if (!positional) counts.editsIgnored++;
  transformed.forEach((message, messageIndex) => {
    const before = positional ? converted.messages[messageIndex] : undefined;
    if (message === before) return;
    const remembered = before ? options.memo?.get(before) : undefined;
    if (remembered !== undefined && remembered.transformed === message && remembered.toolResults === toolResults) {
      const origin = converted.origins.get(before!.parts.find((part) => converted.origins.get(part) !== undefined)!);
      if (origin !== undefined) {
        replaced.set(origin.message, remembered.message);
        counts.outputsReplaced += remembered.outputsReplaced;
        counts.inputsReplaced += remembered.inputsReplaced;
        counts.outputsLeft += remembered.outputsLeft;
        return;
      }
    }
    const tally = { outputsReplaced: 0, inputsReplaced: 0, outputsLeft: 0 };
    const edits = editsOf(message, before, tally);
    counts.outputsReplaced += tally.outputsReplaced;
    counts.inputsReplaced += tally.inputsReplaced;
    counts.outputsLeft += tally.outputsLeft;
    applyEdits(edits);
    // One core message is one host message: remember what it became.
    if (before && options.memo && edits.size === 1) {
      const [index] = edits.keys();
      options.memo.set(before, { transformed: message, message: replaced.get(index!)!, toolResults, ...tally });
    }
  });
  const result = { ...counts, messages: host as H[] };
  if (replaced.size === 0) return result;
  return { ...result, messages: host.map((message, index) => replaced.get(index) ?? message) };
}

/**
 * A conversion that remembers the last list of a conversation's host messages. Hosts build every
 * request's messages afresh, but each request repeats the last one and adds to it: a message that
 * says the same as last time at the same place keeps the very core message it was converted to,
 * so a plugin that keeps work per message (hook-prune's index and token counts) pays only for
 * what is new. With `prefix`, only the messages before the first change are kept. A host message
 * may convert to several core messages. Its output always equals converting each message anew.
 */
export function createReusingConverter<H>(
  convert: (message: H, index: number) => Message | readonly Message[] | undefined,
  same: (a: H, b: H) => boolean,
  options: { prefix?: boolean } = {},
): (messages: readonly H[]) => Message[] {
  let previous: readonly H[] = [];
  let converted: Array<Message | readonly Message[] | undefined> = [];
  return (messages) => {
    const next: Array<Message | readonly Message[] | undefined> = [];
    let reusing = true;
    messages.forEach((message, index) => {
      reusing &&= index < previous.length && same(previous[index]!, message);
      const core = reusing ? converted[index] : convert(message, index);
      if (options.prefix !== true) reusing = true;
      next.push(core);
    });
    previous = messages;
    converted = next;
    // A host message may be several core messages (OpenCode's assistant message: one per step).
    return next.flatMap((message) => (message === undefined ? [] : message));
  };
}

/** Plain JSON values compared by content. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    for (let index = 0; index < a.length; index++) if (!sameJson(a[index], other[index])) return false;
    return true;
  }
  // for…in allocates no key arrays: a session's requests compare thousands of small objects.
  let keys = 0;
  for (const key in a) {
    if (!Object.hasOwn(b, key) || !sameJson((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key])) return false;
    keys++;
  }
  for (const _ in b) keys--;
  return keys === 0;
}

/** What writing a hook's texts and tool outputs back did to a host's messages. */
export interface AppliedMessageEdits<H> {
  messages: H[];
  /** Tool results whose output was replaced. */
  outputsReplaced: number;
  /** Texts that were replaced. */
  textsReplaced: number;
  /** Host messages left out because a hook removed every part of them. */
  messagesDropped: number;
}

/** The edits in one line, for the host's debug log. */
export function describeEdits(applied: Omit<AppliedMessageEdits<unknown>, 'messages'>): string {
  return `${applied.outputsReplaced} tool output(s) replaced, ${applied.textsReplaced} text(s) replaced, ${applied.messagesDropped} message(s) left out`;
}

/** How a host's messages convert, compare and take edits. */
export interface PartConversionSpec<H, P> extends PartWriter<H, P> {
  /** One host message as a core message (undefined: none), recording where its tool parts came from. */
  convert(message: H, index: number, origins: PartOriginTable): Message | undefined;
  /** Whether two host messages convert the same, so the first's core message serves the second. */
  same(a: H, b: H): boolean;
}

/** One session's conversion: each call's messages repeat the last call's and add to them. */
export interface PartConversion<H> {
  convert(messages: readonly H[]): ConvertedParts;
  /** A hook's edits on copies of `messages` (core's `applyPartEdits`, with the session's memo). */
  apply(
    messages: readonly H[],
    converted: ConvertedParts,
    transformed: readonly Message[],
    options?: { toolResults?: boolean },
  ): PartEditCounts & { messages: H[] };
}

/**
 * A session's conversion: the core messages of an unchanged start reused (see
 * {@link createReusingConverter}), the origin of each tool part kept, and a hook's edits written
 * back with a memo of what each message became.
 */
export function createPartConversion<H, P>(spec: PartConversionSpec<H, P>): PartConversion<H> {
  const origins = new WeakMap<MessagePart, PartOrigin>();
  const memo: AppliedPartMemo<H> = new WeakMap();
  const reuse = createReusingConverter((message: H, index) => spec.convert(message, index, origins), spec.same, { prefix: true });
  return {
    convert: (messages) => ({ messages: reuse(messages), origins }),
    apply: (messages, converted, transformed, options = {}) => applyPartEdits(messages, converted, transformed, spec, { ...options, memo }),
  };
}
