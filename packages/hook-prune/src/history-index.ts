import { isUserPrompt, type Message, type MessagePart, type ToolCallPart, type ToolResultPart } from '@hookwise/core';

/**
 * What `pruneToolOutputs` needs to know about a history, computed once per message object and
 * kept while the history grows. A host prunes a fresh copy of its history before every request:
 * the same message objects again, new ones after them. The index is extended over the new ones
 * (work proportional to what is new, plus a pointer comparison per message and part to know
 * the rest is unchanged); anything else (a message replaced or removed, a compaction that
 * starts a new history, a message whose parts were added or replaced in place) builds a new
 * one. Parts are treated as immutable, as everywhere in this package (copy-on-write).
 */

/** Where a part is: message index and part index. */
export interface PartLocation {
  messageIndex: number;
  partIndex: number;
}

export interface CallEntry {
  part: ToolCallPart;
  location: PartLocation;
}

export const RESULT = 0;
export const PROMPT = 1;
export const SUMMARY = 2;

/**
 * One step of the pruner's newest-to-oldest walk, in history order: a compaction summary (the
 * walk stops there), a real user prompt, or one tool result. Other messages and parts are not
 * listed: the walk passes them without looking.
 */
export class Entry {
  /** Option-dependent facts (see `OptionFacts`), filled on first use for the index's options. */
  facts: OptionFacts | undefined = undefined;
  /** The supersede key (tool name and input as JSON) of `nearCall`, filled on first use. */
  key: string | undefined = undefined;
  /** `JSON.stringify` of `call`'s input (undefined is an answer too), filled on first use. */
  callJson: string | undefined = undefined;
  callJsonDone = false;

  constructor(
    readonly kind: typeof RESULT | typeof PROMPT | typeof SUMMARY,
    readonly messageIndex: number,
    readonly partIndex: number,
    /** The result part (RESULT entries only). */
    readonly part: ToolResultPart | undefined,
    /** The result's call as the calls-by-id index resolves it (the last call with that id). */
    readonly call: CallEntry | undefined,
    /** The call as the supersede rule finds it: in the message just before, else `call`. */
    readonly nearCall: ToolCallPart | undefined,
    /** The result's tool name, or its call's. */
    readonly toolName: string | undefined,
  ) {}
}

/** Facts about one result that depend on the options (counter, placeholder, tool lists); -1: not computed yet. */
export interface OptionFacts {
  outputPruned: boolean;
  protected: boolean;
  outputTokens: number;
  /** The digest of a write/edit-like call's input (null: none). */
  inputDigest: InputDigest | null | undefined;
  /** What replacing it writes, computed on its first replacement (null: nothing would shrink). */
  replacement: Replacement | null | undefined;
}

export interface InputDigest {
  digested: Record<string, unknown>;
  /** Tokens of the input as a request carries it (JSON), and of its digest. */
  before: number;
  after: number;
}

/** The parts a replacement writes and the tokens each frees: the same every time for the same result and options. */
export interface Replacement {
  output: { part: ToolResultPart; reclaimed: number; carrier: Message | undefined } | undefined;
  input: { location: PartLocation; part: ToolCallPart; reclaimed: number; carrier: Message | undefined } | undefined;
}

export interface HistoryIndex {
  /** The messages indexed, in order (a copy), each one's part count then, and all their parts in order. */
  readonly messages: Message[];
  readonly partCounts: number[];
  readonly parts: MessagePart[];
  readonly calls: Map<string, CallEntry>;
  /** Ids of results whose call was not found when they were indexed: a later call with one of these ids changes their facts. */
  readonly orphans: Set<string>;
  readonly entries: Entry[];
  /** Module epoch when built: an in-place prune (which writes into parts) invalidates every index. */
  readonly epoch: number;
  /** The options `Entry.facts` were computed for (owned by the pruner). */
  options: unknown;
}

/** Bumped by every in-place prune: parts written into make every index's facts suspect. */
let epoch = 0;
export function invalidateIndexes(): void {
  epoch++;
}

/**
 * Indexes by a history's first message; two per first message, newest first, so a host that
 * prunes its history and then (once) the pruned copy does not rebuild the history's index.
 */
const indexes = new WeakMap<Message, HistoryIndex[]>();
const SLOTS = 2;

/** The index of `messages`: a stored one extended over what is new, or a new one (stored unless `store` is false). */
export function historyIndex(messages: Message[], store = true): HistoryIndex {
  const first = messages[0];
  if (first === undefined || !store) return buildIndex(messages);
  const slots = indexes.get(first);
  if (slots !== undefined) {
    for (let slot = 0; slot < slots.length; slot++) {
      const index = slots[slot]!;
      if (index.epoch !== epoch || !isPrefix(index, messages)) continue;
      const extended = index.messages.length === messages.length ? index : extendIndex(index, messages);
      if (extended !== undefined) {
        if (slot !== 0) {
          slots.splice(slot, 1);
          slots.unshift(extended);
        }
        return extended;
      }
      // Not an extension after all (a call that changes what older results resolve to): start afresh.
      slots.splice(slot, 1);
      break;
    }
  }
  const index = buildIndex(messages);
  if (slots === undefined) indexes.set(first, [index]);
  else {
    slots.unshift(index);
    if (slots.length > SLOTS) slots.length = SLOTS;
  }
  return index;
}

/**
 * Whether the index's messages are the first messages of `messages`: the same objects holding
 * the same part objects (a pointer comparison each). A message whose parts were added, removed
 * or replaced in place is not the message that was indexed.
 */
function isPrefix(index: HistoryIndex, messages: Message[]): boolean {
  const known = index.messages;
  if (known.length > messages.length) return false;
  const { partCounts, parts: knownParts } = index;
  let offset = 0;
  for (let position = 0; position < known.length; position++) {
    const message = messages[position]!;
    const parts = message.parts;
    const count = partCounts[position]!;
    if (known[position] !== message || count !== parts.length) return false;
    for (let part = 0; part < count; part++) if (parts[part] !== knownParts[offset + part]) return false;
    offset += count;
  }
  return true;
}

function buildIndex(messages: Message[]): HistoryIndex {
  const index: HistoryIndex = { messages: [], partCounts: [], parts: [], calls: new Map(), orphans: new Set(), entries: [], epoch, options: undefined };
  addCalls(index, messages, 0);
  addEntries(index, messages, 0);
  return index;
}

/** Extends the index over `messages[index.messages.length…]` in place; undefined (index untouched) when a new call changes an older result's facts. */
function extendIndex(index: HistoryIndex, messages: Message[]): HistoryIndex | undefined {
  const from = index.messages.length;
  if (!onlyNewCalls(index, messages, from)) return undefined;
  addCalls(index, messages, from);
  addEntries(index, messages, from);
  return index;
}

/**
 * Whether the calls in `messages[from…]` leave what indexed results resolve to as it was: no id
 * of an indexed call (the last call with an id wins) or of an indexed result still waiting for
 * its call. (New calls sharing an id among themselves only concern new results, indexed after.)
 */
function onlyNewCalls(index: HistoryIndex, messages: Message[], from: number): boolean {
  for (let messageIndex = from; messageIndex < messages.length; messageIndex++) {
    for (const part of messages[messageIndex]!.parts) {
      if (part.type === 'tool-call' && (index.calls.has(part.toolCallId) || index.orphans.has(part.toolCallId))) return false;
    }
  }
  return true;
}

/** Adds the calls of `messages[from…]` (the last call with an id wins, as the walk always had it). */
function addCalls(index: HistoryIndex, messages: Message[], from: number): void {
  for (let messageIndex = from; messageIndex < messages.length; messageIndex++) {
    const parts = messages[messageIndex]!.parts;
    for (let partIndex = 0; partIndex < parts.length; partIndex++) {
      const part = parts[partIndex]!;
      if (part.type === 'tool-call') index.calls.set(part.toolCallId, { part, location: { messageIndex, partIndex } });
    }
  }
}

function addEntries(index: HistoryIndex, messages: Message[], from: number): void {
  const { entries, calls } = index;
  for (let messageIndex = from; messageIndex < messages.length; messageIndex++) {
    const message = messages[messageIndex]!;
    const parts = message.parts;
    index.messages.push(message);
    index.partCounts.push(parts.length);
    for (const part of parts) index.parts.push(part);
    // The walk stops at a compaction summary before looking at anything else in it, and a prompt has no results.
    if (message.compactSummary === true) {
      entries.push(new Entry(SUMMARY, messageIndex, -1, undefined, undefined, undefined, undefined));
      continue;
    }
    if (message.role === 'user' && isUserPrompt(message)) {
      entries.push(new Entry(PROMPT, messageIndex, -1, undefined, undefined, undefined, undefined));
      continue;
    }
    for (let partIndex = 0; partIndex < parts.length; partIndex++) {
      const part = parts[partIndex]!;
      if (part.type !== 'tool-result') continue;
      const call = calls.get(part.toolCallId);
      if (call === undefined) index.orphans.add(part.toolCallId);
      entries.push(new Entry(RESULT, messageIndex, partIndex, part, call, callBefore(messages, messageIndex, part.toolCallId) ?? call?.part, part.toolName ?? call?.part.toolName));
    }
  }
}

/** The result's call in the message just before it (where it almost always is), the last one with that id there. */
function callBefore(messages: Message[], messageIndex: number, toolCallId: string): ToolCallPart | undefined {
  const previous = messageIndex > 0 ? messages[messageIndex - 1]! : undefined;
  if (previous === undefined || previous.role !== 'assistant') return undefined;
  const parts = previous.parts;
  for (let index = parts.length - 1; index >= 0; index--) {
    const part = parts[index]!;
    if (part.type === 'tool-call' && part.toolCallId === toolCallId) return part;
  }
  return undefined;
}
