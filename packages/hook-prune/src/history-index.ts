import type { FileIdentity } from './file-identity.js';
import { isUserPrompt, type Message, type MessagePart, type ToolCallPart, type ToolResultPart } from '@hookwise/core/messages';

/**
 * What the pruner needs to know about a history, kept by a pruner while its history grows: a
 * host prunes a fresh copy of its history before every request, the same message objects with
 * new ones after them, so the index is extended over the new ones only. Messages and parts are
 * treated as immutable, as everywhere in this package (copy-on-write): a pointer comparison per
 * message and part tells the kept index still holds.
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

// Per entry, in `HistoryIndex.flags`: what it is (set when indexed)…
export const F_PROMPT = 1;
export const F_SUMMARY = 2;
export const F_ERROR = 4;
const STATIC_FLAGS = F_PROMPT | F_SUMMARY | F_ERROR;
// …and what the pruner found for the index's options (`F_FACTS`: the rest is known).
export const F_FACTS = 8;
/** An error, protected, or already pruned with nothing left in its input: the walk passes it. */
export const F_SKIP = 16;
export const F_OUTPUT_PRUNED = 32;
export const F_PROTECTED = 64;
/** `HistoryIndex.keyIds`: not looked at yet, or no call to compare. */
export const KEY_UNKNOWN = -2;
export const NO_KEY = -1;

/**
 * One step of the pruner's newest-to-oldest walk, in history order: a compaction summary (the
 * walk stops there), a real user prompt, or one tool result. Other messages and parts are not
 * listed: the walk passes them without looking.
 */
export class Entry {
  /** Option-dependent facts (see `OptionFacts`), filled on first use for the index's options. */
  facts: OptionFacts | undefined = undefined;
  /** `JSON.stringify` of `call`'s input (undefined is an answer too), filled on first use. */
  callJson: string | undefined = undefined;
  callJsonDone = false;
  /** The keys of the files its call reads or writes (`filesOfCall`), null when none; undefined until the file context looked. */
  files: string[] | null | undefined = undefined;
  /** Whether it is kept while its files are in use (a long shell output only marks them in use). */
  keptWithFile = true;
  /** Whether it reads or views a file in a short output, or writes a short file whole: kept until the compaction (`SHORT_VIEW_MAX_CHARS`). */
  shortView = false;
  /** Whether it edits a file (no whole `content`) with an input of `SHORT_EDIT_MAX_CHARS` or less. */
  shortEdit = false;
  /** Characters of its output (reads and views; 0 otherwise), set with `files`. */
  outputChars = 0;
  /** Whether it reads a whole project file (no line range, no dependency directory, not through the shell). */
  wholeRead = false;
  /** Whether it is a `wholeRead` in `PROMPT_READ_MAX_CHARS` or less. */
  promptRead = false;

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

/** Facts about one result that depend on the options (counter, placeholder, tool lists); -1 and undefined: not computed yet. */
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
  /** The options `Entry.facts` were computed for (owned by the pruner). */
  options: unknown;
  // What the walk reads per entry, in flat arrays (a load each, no object per step):
  readonly flags: number[];
  /** The result's tool call id ('' for a prompt or summary). */
  readonly ids: string[];
  /** Tokens toward the window, and tokens replacing it frees (valid with `F_FACTS`, when not `F_SKIP`). */
  readonly windowTokens: number[];
  readonly gains: number[];
  /** The supersede key of the result's call as a small number (`KEY_UNKNOWN`, `NO_KEY`). */
  readonly keyIds: number[];
  /** Entries by result id (an array when an id repeats). */
  readonly resultsById: Map<string, number | number[]>;
  /** Supersede keys interned: by tool name, then by the input JSON's length (see `keyIdOf`); each key's JSON. */
  readonly keys: Map<string, Map<number, number | number[]>>;
  readonly keyTexts: string[];
  /** Per-run marks (a run number each, so nothing is cleared between runs): keys seen, the latest step's results, earlier prunes. */
  readonly keySeen: number[];
  readonly latestMarks: number[];
  readonly prunedMarks: number[];
  /** The number of the current run on this index (marks equal to it are this run's). */
  run: number;
  /** The set of earlier prunes `prunedMarks` mark (with `prunedMark`), and up to which entry. */
  prunedSet: ReadonlySet<string> | undefined;
  prunedMark: number;
  prunedUpTo: number;
  /** The files written since the latest compaction summary and where that summary is, kept as entries are added (see `file-context.ts`). */
  fileTouches: FileTouches | undefined;
}

export interface FileTouches {
  /** Entries looked at so far. */
  upTo: number;
  /** The first entry after the latest compaction summary: the files in `written` were written there or later. */
  from: number;
  /** Files an edit-like call wrote. */
  readonly written: Set<string>;
  /** Per file read or viewed since `from`, its newest read's entry. */
  readonly newestRead: Map<string, number>;
  /** The newest entry of an edit-like call since `from`, -1 when none. */
  lastWrite: number;
  /**
   * Per file not edited since `from`, read whole since the latest user prompt (`Entry.promptRead`):
   * the first such read since that prompt. Emptied at every prompt; a file leaves it when edited.
   */
  readonly promptReads: Map<string, number>;
  /** The session's file keys (`file-identity.ts`): one per history, as it learns the working directory. */
  readonly identity: FileIdentity;
}

/**
 * `kept` extended over what `messages` adds to it (the same message objects holding the same
 * parts, new ones after them), or undefined when `messages` is another history: a message
 * replaced, removed or edited in place, a compaction's new history, or a new call that changes
 * what an older result resolves to. `kept` is untouched then.
 */
export function extendedIndex(kept: HistoryIndex, messages: Message[]): HistoryIndex | undefined {
  if (!isPrefix(kept, messages)) return undefined;
  return kept.messages.length === messages.length ? kept : extendIndex(kept, messages);
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

/** A new index of `messages`. */
export function buildIndex(messages: Message[]): HistoryIndex {
  const index: HistoryIndex = {
    messages: [],
    partCounts: [],
    parts: [],
    calls: new Map(),
    orphans: new Set(),
    entries: [],
    options: undefined,
    flags: [],
    ids: [],
    windowTokens: [],
    gains: [],
    keyIds: [],
    resultsById: new Map(),
    keys: new Map(),
    keyTexts: [],
    keySeen: [],
    latestMarks: [],
    prunedMarks: [],
    run: 0,
    prunedSet: undefined,
    prunedMark: 0,
    prunedUpTo: 0,
    fileTouches: undefined,
  };
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
  const { calls } = index;
  for (let messageIndex = from; messageIndex < messages.length; messageIndex++) {
    const message = messages[messageIndex]!;
    const parts = message.parts;
    index.messages.push(message);
    index.partCounts.push(parts.length);
    for (const part of parts) index.parts.push(part);
    // The walk stops at a compaction summary before looking at anything else in it, and a prompt has no results.
    if (message.compactSummary === true) {
      addEntry(index, new Entry(SUMMARY, messageIndex, -1, undefined, undefined, undefined, undefined), F_SUMMARY);
      continue;
    }
    if (message.role === 'user' && isUserPrompt(message)) {
      addEntry(index, new Entry(PROMPT, messageIndex, -1, undefined, undefined, undefined, undefined), F_PROMPT);
      continue;
    }
    for (let partIndex = 0; partIndex < parts.length; partIndex++) {
      const part = parts[partIndex]!;
      if (part.type !== 'tool-result') continue;
      const call = calls.get(part.toolCallId);
      if (call === undefined) index.orphans.add(part.toolCallId);
      const entry = new Entry(
        RESULT,
        messageIndex,
        partIndex,
        part,
        call,
        callBefore(messages, messageIndex, part.toolCallId) ?? call?.part,
        part.toolName ?? call?.part.toolName,
      );
      addEntry(index, entry, part.isError === true ? F_ERROR : 0);
    }
  }
}

function addEntry(index: HistoryIndex, entry: Entry, flags: number): void {
  const at = index.entries.length;
  index.entries.push(entry);
  index.flags.push(flags);
  index.windowTokens.push(0);
  index.gains.push(0);
  index.keyIds.push(entry.nearCall === undefined ? NO_KEY : KEY_UNKNOWN);
  index.latestMarks.push(0);
  index.prunedMarks.push(0);
  const id = entry.part?.toolCallId ?? '';
  index.ids.push(id);
  if (entry.part === undefined) return;
  const known = index.resultsById.get(id);
  if (known === undefined) index.resultsById.set(id, at);
  else if (typeof known === 'number') index.resultsById.set(id, [known, at]);
  else known.push(at);
}

/** Forgets the option-dependent facts (the options changed). */
export function forgetFacts(index: HistoryIndex): void {
  const { flags, entries } = index;
  for (let at = 0; at < flags.length; at++) {
    flags[at] = flags[at]! & STATIC_FLAGS;
    entries[at]!.facts = undefined;
  }
}

/** Calls `mark(at)` for every result entry with this id. */
export function forEachResult(index: HistoryIndex, id: string, mark: (at: number) => void): void {
  const known = index.resultsById.get(id);
  if (known === undefined) return;
  if (typeof known === 'number') mark(known);
  else for (const at of known) mark(at);
}

/** `JSON.stringify` of the input of the entry's call (undefined is an answer too), once per entry. */
export function callJsonOf(entry: Entry): string | undefined {
  if (!entry.callJsonDone) {
    entry.callJson = JSON.stringify(entry.call!.part.input);
    entry.callJsonDone = true;
  }
  return entry.callJson;
}

/**
 * The supersede key of the entry's call as a small number, the same for equal keys: two calls
 * are the same question when their tool names and their inputs as JSON are equal. Interned by
 * tool name, then by the JSON's length, then the JSON itself (two inputs of one length are rare).
 */
export function keyIdOf(index: HistoryIndex, at: number): number {
  let id = index.keyIds[at]!;
  if (id !== KEY_UNKNOWN) return id;
  const entry = index.entries[at]!;
  const call = entry.nearCall!;
  // JSON.stringify(undefined) is undefined: keyed as the text "undefined", which no JSON text is.
  const json = (call === entry.call?.part ? callJsonOf(entry) : JSON.stringify(call.input)) ?? 'undefined';
  let byLength = index.keys.get(call.toolName);
  if (byLength === undefined) index.keys.set(call.toolName, (byLength = new Map()));
  const known = byLength.get(json.length);
  if (known === undefined) byLength.set(json.length, (id = newKey(index, json)));
  else if (typeof known === 'number') id = index.keyTexts[known] === json ? known : newKeyOfLength(index, byLength, json, [known]);
  else id = known.find((candidate) => index.keyTexts[candidate] === json) ?? newKeyOfLength(index, byLength, json, known);
  index.keyIds[at] = id;
  return id;
}

function newKey(index: HistoryIndex, json: string): number {
  index.keyTexts.push(json);
  index.keySeen.push(0);
  return index.keySeen.length - 1;
}

function newKeyOfLength(index: HistoryIndex, byLength: Map<number, number | number[]>, json: string, others: number[]): number {
  const id = newKey(index, json);
  byLength.set(json.length, [...others, id]);
  return id;
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
