import { defaultTokenCounter, IMAGE_TOKEN_ESTIMATE, isUserPrompt, type Message, type MessagePart, type TokenCounter, type ToolCallPart, type ToolResultContent, type ToolResultPart } from '@hookwise/core';
// Figures this module counts anyway, kept for a host that measures the same parts (the report).
import { forgetPartTokens, partTokens, rememberPartTokens } from '@hookwise/core/counting';
import { DEFAULT_DIGEST_INPUT_TOOLS, DEFAULT_PLACEHOLDER, DIGEST_PREFIX, digestInput, digestOf, formatNumber } from './digest.js';
import {
  callJsonOf,
  F_ERROR,
  F_FACTS,
  F_OUTPUT_PRUNED,
  F_PROMPT,
  F_PROTECTED,
  F_SKIP,
  F_SUMMARY,
  forEachResult,
  forgetFacts,
  historyIndex,
  invalidateIndexes,
  keyIdOf,
  NO_KEY,
  PROMPT,
  RESULT,
  SUMMARY,
  type Entry,
  type HistoryIndex,
  type InputDigest,
  type OptionFacts,
  type PartLocation,
  type Replacement,
} from './history-index.js';
import { DEFAULT_MINIMUM_TOKENS, DEFAULT_PROTECT_TOKENS } from './thresholds.js';

// The agentic defaults, and what each buys. Figures: the recorded Claude Code session in
// fixtures/ (242 tool calls, 1 prompt before its compaction), pruned once at its compaction
// point with the calibrated counter: 109,208 history tokens, 35,641 reclaimed (32.6 %) with
// all defaults (transcripts.test.ts prints them). protectTokens 40,000 (thresholds.ts): 30,000
// would reclaim 38.1 %, 50,000 20.4 %. minimumTokens 20,000: the one batch there is 36,576
// candidate tokens; the minimum only decides how often the prompt cache is invalidated.
/** Newest results kept whatever their size, as Anthropic's context editing keeps 3 tool uses. Costs nothing at that point (0 → 3 keeps the same 35,641); 10 would cost 5,014 tokens. */
export const DEFAULT_KEEP_RECENT = 3;
/** No protection by user turns: with OpenCode's 2, that session frees 0 tokens in all of its 217 requests (one prompt drove 277 messages). */
export const DEFAULT_PROTECT_TURNS = 0;
/** A re-read of the same file or a re-run of the same command makes the older output stale: +2,818 tokens there (32,823 without). */
export const DEFAULT_SUPERSEDE = true;

/**
 * Tools whose output is never pruned: skill bodies and sub-agent reports are instructions or
 * unique evidence that cannot be re-fetched by running the tool again, and a todo list is state.
 */
export const DEFAULT_PROTECTED_TOOLS: readonly string[] = Object.freeze(['skill', 'Skill', 'Task', 'Agent', 'TodoWrite', 'todowrite']);

export interface PruneOptions {
  /**
   * Newest prunable tool tokens kept verbatim (default 40,000; see `thresholdsFor`). Results
   * protected by recency (latest step, `keepRecent`, `protectTurns`) do not count toward it.
   */
  protectTokens?: number;
  /** Commit only when the candidates total strictly more than this (default 20,000). */
  minimumTokens?: number;
  /**
   * The newest tool results (of any tool, errors included) never pruned, whatever their size.
   * Default 3, as Anthropic's `clear_tool_uses_20250919` keeps 3 tool uses.
   */
  keepRecent?: number;
  /**
   * Tool results with fewer than this many real user prompts at or after their message are
   * never pruned. Default 0: an agent loop is one or two prompts and hundreds of tool calls, so
   * protection is by recency. 2 is OpenCode's rule (the current and the previous turn).
   */
  protectTurns?: number;
  /** Tool names whose results are never counted or pruned (default `DEFAULT_PROTECTED_TOOLS`). */
  protectedTools?: readonly string[];
  /** Replacement text, or `'digest'` for a one-line digest (tool, key input, size, first error line). */
  placeholder?: string;
  /**
   * Also prune outputs made stale by a later identical call (same tool, same input), even inside
   * the protected window; never one of the latest step or the newest `keepRecent` (nor, with
   * `protectTurns` ≥ 1, of the current turn). Default true.
   */
  supersede?: boolean;
  /**
   * With a pruned output, also replace the large fields of its call's input by a digest (tool,
   * path, size, hash) for these tools: the content they wrote is on disk. The call keeps its id.
   * Default `DEFAULT_DIGEST_INPUT_TOOLS`; `false` or `[]` turns it off.
   */
  digestInputs?: readonly string[] | false;
  /** Counts tokens (default core's calibrated counter). Counts are memoised per part object and counter. */
  tokenCounter?: TokenCounter;
  /**
   * Tool call ids an earlier run pruned. They are pruned again (unless now protected by
   * recency) without counting toward the window or the minimum, so a host that prunes a fresh
   * copy of its history before every request changes the prompt prefix once per batch, not once
   * per request.
   */
  previouslyPruned?: Iterable<string>;
  /** Write replacements into the given parts instead of copying (the array is returned as is). Default false. */
  inPlace?: boolean;
}

export type PruneDecision =
  /** Something was pruned; `messages` differs from the input. */
  | 'pruned'
  /** Earlier prunes were re-applied, no new batch was worth it. */
  | 'reapplied'
  /** Fewer real user prompts than `protectTurns` (the name is OpenCode's rule of 2). */
  | 'fewer-than-two-user-prompts'
  | 'nothing-eligible'
  | 'within-protected-window'
  | 'below-minimum';

export interface PruneResult {
  /** The input array itself when nothing changed; otherwise a new array in which only changed messages are new objects. */
  messages: Message[];
  /** Tokens of the pruned outputs minus tokens of their replacements. */
  tokensReclaimed: number;
  /** Tool results replaced by this run (re-applied ones included). */
  prunedCount: number;
  /** Tool results looked at (everything after the latest compaction summary). */
  scannedCount: number;
  /** Tool call ids of every result this run replaced: hand them back as `previouslyPruned`. */
  prunedIds: string[];
  decision: PruneDecision;
  /** Why, in one sentence. */
  reason: string;
}

/**
 * Token counts of outputs whose figure is not core's (see `countsAsCore`), per counter and part
 * object. Parts are treated as immutable (copy-on-write), so a part's count never goes stale.
 */
const ownCounts = new WeakMap<TokenCounter, WeakMap<ToolResultPart, number>>();

/** Images inside a tool result count as core's fixed estimate. */
const IMAGE_TOKENS = IMAGE_TOKEN_ESTIMATE;

/**
 * Whether `countOutput` gives core's estimate of the part (`partTokens`) whatever the counter:
 * it counts an empty text as 0 where the estimate asks the counter.
 */
function countsAsCore(output: ToolResultContent): boolean {
  if (typeof output === 'string') return output !== '';
  for (const item of output) if (item.type !== 'image' && item.text === '') return false;
  return true;
}

function countOutput(output: ToolResultContent, counter: TokenCounter): number {
  if (typeof output === 'string') return output === '' ? 0 : counter.count(output);
  let total = 0;
  for (const item of output) total += item.type === 'image' ? IMAGE_TOKENS : item.text === '' ? 0 : counter.count(item.text);
  return total;
}

function ownCountsOf(counter: TokenCounter): WeakMap<ToolResultPart, number> {
  let memo = ownCounts.get(counter);
  if (memo === undefined) ownCounts.set(counter, (memo = new WeakMap()));
  return memo;
}

/**
 * Tokens of a result's output, counted once per part and counter: core's memo (`partTokens`)
 * holds the figure when it is core's estimate too (almost always), so a host measuring the same
 * parts (the report) finds it there; this module's own memo holds the others.
 */
function outputTokens(part: ToolResultPart, counter: TokenCounter): number {
  if (countsAsCore(part.output)) return partTokens(part, counter);
  const memo = ownCountsOf(counter);
  let tokens = memo.get(part);
  if (tokens === undefined) memo.set(part, (tokens = countOutput(part.output, counter)));
  return tokens;
}

/** Keeps `tokens` as the output figure of a part this module wrote (a pruned copy, or a part written into). */
function keepOutputTokens(part: ToolResultPart, counter: TokenCounter, tokens: number): void {
  if (countsAsCore(part.output)) rememberPartTokens(part, counter, tokens);
  else {
    forgetPartTokens(part);
    ownCountsOf(counter).set(part, tokens);
  }
}

/** Tokens of a tool result's output, memoised. Exported for hosts that report sizes the same way the pruner sees them. */
export function toolResultTokens(part: ToolResultPart, counter: TokenCounter = defaultTokenCounter): number {
  return outputTokens(part, counter);
}

/** Whether an output is a placeholder or digest left by a pruner (this one, OpenCode, tunacode). */
export function isPrunedOutput(output: ToolResultContent, placeholder: string = DEFAULT_PLACEHOLDER): boolean {
  // Short strings only: a placeholder is one line, and a 50 KB output is rejected on length alone.
  return typeof output === 'string' && output.length < 1_024 && (output === placeholder || output === DEFAULT_PLACEHOLDER || output.startsWith(DIGEST_PREFIX));
}

function checkCount(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number ≥ 0, got ${value}`);
  return value;
}

/** Tool-name lists (the defaults, a plugin's options) are the same arrays run after run: one set each, only read. Frozen lists only, as a list changed in place would need a new set. */
const nameSets = new WeakMap<readonly string[], ReadonlySet<string>>();
function nameSet(names: readonly string[]): ReadonlySet<string> {
  if (!Object.isFrozen(names)) return new Set(names);
  let set = nameSets.get(names);
  if (set === undefined) nameSets.set(names, (set = new Set(names)));
  return set;
}

/**
 * The set of earlier prunes, reused when the list is the one the previous run was given (a host
 * that reads the list from its state before every request hands over an equal copy): comparing
 * the ids costs less than hashing them into a new set. The set is only read.
 */
let lastPruned: { ids: string[]; set: ReadonlySet<string> } | undefined;
function prunedSet(ids: Iterable<string>): ReadonlySet<string> {
  if (!Array.isArray(ids)) return new Set(ids);
  const last = lastPruned;
  if (last !== undefined && last.ids.length === ids.length) {
    let same = true;
    for (let index = 0; index < ids.length; index++) {
      if (last.ids[index] !== ids[index]) {
        same = false;
        break;
      }
    }
    if (same) return last.set;
  }
  const set = new Set<string>(ids);
  lastPruned = { ids: ids.slice(), set };
  return set;
}


/** The digested copy of each call part, reused while its digest is the same object. */
const digestedCalls = new WeakMap<ToolCallPart, ToolCallPart>();

/** What an entry's option-dependent facts and a batch boundary depend on: what counts as pruned, protected or digestible, and how tokens are counted. */
interface FactsKey {
  counter: TokenCounter;
  placeholder: string;
  protectedTools: readonly string[];
  digestTools: readonly string[] | undefined;
}

const sameList = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean => {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return false;
  return true;
};

function sameKey(key: FactsKey | undefined, counter: TokenCounter, placeholder: string, protectedTools: readonly string[], digestTools: readonly string[] | undefined): boolean {
  return key !== undefined && key.counter === counter && key.placeholder === placeholder && sameList(key.protectedTools, protectedTools) && sameList(key.digestTools, digestTools);
}

/** The index's facts are for these options: keep them, or forget them (the options changed, rare: a host passes the same ones every request). */
function useFactsFor(index: HistoryIndex, counter: TokenCounter, placeholder: string, protectedTools: readonly string[], digestTools: readonly string[] | undefined): void {
  if (sameKey(index.options as FactsKey | undefined, counter, placeholder, protectedTools, digestTools)) return;
  forgetFacts(index);
  // A frozen list (the defaults) is kept as is: the next run's is the same array, equal at a glance.
  const keep = (names: readonly string[]) => (Object.isFrozen(names) ? names : names.slice());
  const key: FactsKey = { counter, placeholder, protectedTools: keep(protectedTools), digestTools: digestTools === undefined ? undefined : keep(digestTools) };
  index.options = key;
}

/**
 * For an array this function returned: where its batch began, and what lies older than that
 * (every eligible result there is pruned). A rerun on that very array (same length) stops its
 * scan there instead of walking results that can change nothing. Messages are treated as
 * immutable throughout (copy-on-write); a rerun on a copy of the array scans everything.
 */
interface OlderThanBatch {
  length: number;
  key: FactsKey;
  boundary: PartLocation;
  prompts: number;
  scanned: number;
}
const batchBoundaries = new WeakMap<Message[], OlderThanBatch>();

/** Whether the newest-to-oldest walk, at this entry, has reached what an earlier run left pruned (its crossing result and everything older). */
function withinBoundary(entry: Entry, boundary: PartLocation, messages: Message[]): boolean {
  if (entry.messageIndex !== boundary.messageIndex) return entry.messageIndex < boundary.messageIndex;
  // A result of the crossing's message: at or older than the crossing part. Anything else there: only when the crossing was the message's last part.
  return entry.kind === RESULT ? entry.partIndex <= boundary.partIndex : boundary.partIndex >= messages[entry.messageIndex]!.parts.length - 1;
}

/** The pruned copy of each one-part message, reused while its one part is the same. */
const singlePartCopies = new WeakMap<Message, Message>();

/** The pruned copy of each original result part, reused while its replacement text is the same. */
const replacementMemo = new WeakMap<ToolResultPart, ToolResultPart>();

/**
 * The results of the latest assistant step — the tool calls of the newest assistant message
 * that has any — while no real user prompt stands after it: the model is about to read them.
 */
function latestStepIds(messages: Message[]): Set<string> | undefined {
  for (let messageIndex = messages.length - 1; messageIndex >= 0; messageIndex--) {
    const message = messages[messageIndex]!;
    if (message.compactSummary === true) return undefined;
    if (message.role === 'user') {
      if (isUserPrompt(message)) return undefined;
      continue;
    }
    let ids: Set<string> | undefined;
    for (const part of message.parts) if (part.type === 'tool-call') (ids ??= new Set()).add(part.toolCallId);
    if (ids !== undefined) return ids;
  }
  return undefined;
}

/** One run's settings and output, handed to the helpers below (plain functions: nothing is allocated per run but this). */
interface Run {
  readonly messages: Message[];
  readonly counter: TokenCounter;
  readonly placeholder: string;
  readonly useDigest: boolean;
  readonly placeholderTokens: number;
  readonly protectedSet: ReadonlySet<string> | undefined;
  readonly digestSet: ReadonlySet<string> | undefined;
  readonly inPlace: boolean;
  output: Message[];
  prunedIds: string[];
  tokensReclaimed: number;
}

function factsOf(entry: Entry, run: Run): OptionFacts {
  let facts = entry.facts;
  if (facts === undefined) {
    const output = entry.part!.output;
    entry.facts = facts = {
      // Identity first: a placeholder this run or an earlier one wrote is the very same string.
      outputPruned: output === run.placeholder || isPrunedOutput(output, run.placeholder),
      protected: run.protectedSet !== undefined && run.protectedSet.has(entry.toolName ?? ''),
      outputTokens: -1,
      inputDigest: undefined,
      replacement: undefined,
    };
  }
  return facts;
}

/** Tokens of a result's output, memoised per part and counter. */
function outputTokensOf(entry: Entry, facts: OptionFacts, run: Run): number {
  if (facts.outputTokens < 0) facts.outputTokens = outputTokens(entry.part!, run.counter);
  return facts.outputTokens;
}

/** Tokens replacing the output would free. */
function outputGainOf(entry: Entry, facts: OptionFacts, run: Run): number {
  if (facts.outputPruned) return 0;
  const tokens = outputTokensOf(entry, facts, run);
  return tokens > run.placeholderTokens ? tokens : 0;
}

/**
 * The digest of a write/edit-like call's input and the tokens of the input before and after,
 * once per entry and options; null when it is not such a call or nothing in its input would be
 * digested. `digestInput` is pure: hashing a written file's content once is enough.
 */
function inputDigestOf(entry: Entry, facts: OptionFacts, run: Run): InputDigest | null {
  if (facts.inputDigest === undefined) {
    const name = entry.toolName;
    const call = entry.call?.part;
    const digested = run.digestSet !== undefined && name !== undefined && run.digestSet.has(name) && call !== undefined ? digestInput(call.input) : undefined;
    if (digested === undefined) facts.inputDigest = null;
    else {
      // The input as a request carries it: core's figure of the call part, kept for it.
      const before = run.counter.count(callJsonOf(entry) ?? '');
      rememberPartTokens(call!, run.counter, before);
      facts.inputDigest = { digested, before, after: run.counter.count(JSON.stringify(digested)) };
    }
  }
  return facts.inputDigest;
}

/** Tokens a digest of the call's input would free (0 when it is not a write/edit-like call or already digested). */
function inputGainOf(entry: Entry, facts: OptionFacts, run: Run): number {
  if (run.digestSet === undefined) return 0;
  const input = inputDigestOf(entry, facts, run);
  return input === null ? 0 : Math.max(0, input.before - input.after);
}

/**
 * The walk's facts about entry `at` for the run's options, in the index's flat arrays: whether
 * the walk passes it (`F_SKIP`), whether its output is pruned already, its window tokens and
 * its gain. Once per entry and options. Returns its flags.
 */
function factsAt(index: HistoryIndex, at: number, run: Run): number {
  const entry = index.entries[at]!;
  const facts = factsOf(entry, run);
  let flags = index.flags[at]! | F_FACTS;
  if (facts.outputPruned) flags |= F_OUTPUT_PRUNED;
  if (facts.protected) flags |= F_PROTECTED;
  const inputGain = facts.protected ? 0 : inputGainOf(entry, facts, run);
  // Already pruned with nothing left in its input, or protected: nothing to count or take.
  if (facts.protected || (facts.outputPruned && inputGain === 0)) flags |= F_SKIP;
  else {
    index.windowTokens[at] = (facts.outputPruned ? 0 : outputTokensOf(entry, facts, run)) + inputGain;
    index.gains[at] = outputGainOf(entry, facts, run) + inputGain;
  }
  index.flags[at] = flags;
  return flags;
}

/**
 * Marks the entries whose ids are in `pruned` (earlier prunes) and returns this set's mark:
 * by id when the set is new to the index, then only over entries indexed since.
 */
function markPruned(index: HistoryIndex, pruned: ReadonlySet<string>): number {
  const { flags, ids, prunedMarks } = index;
  const count = flags.length;
  if (index.prunedSet !== pruned) {
    const mark = ++index.prunedMark;
    for (const id of pruned) forEachResult(index, id, (at) => (prunedMarks[at] = mark));
    index.prunedSet = pruned;
  } else {
    const mark = index.prunedMark;
    for (let at = index.prunedUpTo; at < count; at++) if ((flags[at]! & (F_PROMPT | F_SUMMARY)) === 0 && pruned.has(ids[at]!)) prunedMarks[at] = mark;
  }
  index.prunedUpTo = count;
  return index.prunedMark;
}

/** The copy of a one-part message carrying `part` instead (the same copy while the part is the same); undefined for other messages. */
function carrierOf(original: Message, part: MessagePart): Message | undefined {
  if (original.parts.length !== 1) return undefined;
  const cached = singlePartCopies.get(original);
  if (cached !== undefined && cached.parts[0] === part) return cached;
  const copy: Message = { ...original, parts: [part] };
  singlePartCopies.set(original, copy);
  return copy;
}

/** What replacing a result writes (output, and the input of a write/edit-like call), or null when nothing would shrink. Pure per result and options, so computed once. */
function replacementOf(entry: Entry, facts: OptionFacts, run: Run): Replacement | null {
  const part = entry.part!;
  const { counter } = run;
  let output: Replacement['output'];
  let input: Replacement['input'];
  const gain = outputGainOf(entry, facts, run);
  if (gain > 0) {
    const replacement = run.useDigest ? digestOf(entry.toolName, entry.call?.part, part.output, gain) : run.placeholder;
    const replacementTokens = run.useDigest ? countOutput(replacement, counter) : run.placeholderTokens;
    if (replacementTokens < gain) {
      // The same pruned copy on every run: a host that prunes before each request allocates it once.
      const cached = replacementMemo.get(part);
      let pruned: ToolResultPart;
      if (cached !== undefined && cached.output === replacement) pruned = cached;
      else replacementMemo.set(part, (pruned = { ...part, output: replacement }));
      keepOutputTokens(pruned, counter, replacementTokens);
      output = { part: pruned, reclaimed: gain - replacementTokens, carrier: carrierOf(run.messages[entry.messageIndex]!, pruned) };
    }
  }
  const digest = run.digestSet === undefined ? null : inputDigestOf(entry, facts, run);
  if (digest !== null && digest.after < digest.before) {
    // The same digested copy on every run (as `replacementMemo` does for outputs).
    const { part: current, location } = entry.call!;
    let call: ToolCallPart;
    const cached = digestedCalls.get(current);
    if (cached !== undefined && cached.input === digest.digested) call = cached;
    else {
      digestedCalls.set(current, (call = { ...current, input: digest.digested }));
      rememberPartTokens(call, counter, digest.after);
    }
    input = { location, part: call, reclaimed: digest.before - digest.after, carrier: carrierOf(run.messages[location.messageIndex]!, call) };
  }
  return output === undefined && input === undefined ? null : { output, input };
}

/** Puts `part` at `partIndex` of message `messageIndex` in the output (copy-on-write: each message copied once per run). */
function setPart(run: Run, messageIndex: number, partIndex: number, part: MessagePart, carrier: Message | undefined): void {
  const original = run.messages[messageIndex]!;
  let current = run.output[messageIndex]!;
  // A result carrier of one part: the same copy on every run, while its part is the same.
  if (current === original && carrier !== undefined) {
    run.output[messageIndex] = carrier;
    return;
  }
  // A shared single-part copy is never written into: copy it again.
  if (current === original || original.parts.length === 1) run.output[messageIndex] = current = { ...current, parts: current.parts.slice() };
  (current.parts as MessagePart[])[partIndex] = part;
}

/** Replaces the output (and the write-like input) of one exchange; false when nothing would shrink. */
function replace(entry: Entry, run: Run): boolean {
  if (run.inPlace) return replaceInPlace(entry, run);
  const facts = factsOf(entry, run);
  let replacement = facts.replacement;
  if (replacement === undefined) facts.replacement = replacement = replacementOf(entry, facts, run);
  if (replacement === null) return false;
  const { output, input } = replacement;
  if (output !== undefined) {
    setPart(run, entry.messageIndex, entry.partIndex, output.part, output.carrier);
    run.tokensReclaimed += output.reclaimed;
  }
  if (input !== undefined) {
    setPart(run, input.location.messageIndex, input.location.partIndex, input.part, input.carrier);
    run.tokensReclaimed += input.reclaimed;
  }
  run.prunedIds.push(entry.part!.toolCallId);
  return true;
}

/** `replace` writing into the given parts (`inPlace`). */
function replaceInPlace(entry: Entry, run: Run): boolean {
  const part = entry.part!;
  const facts = factsOf(entry, run);
  const { counter } = run;
  let changed = false;
  const gain = outputGainOf(entry, facts, run);
  if (gain > 0) {
    const replacement = run.useDigest ? digestOf(entry.toolName, entry.call?.part, part.output, gain) : run.placeholder;
    const replacementTokens = run.useDigest ? countOutput(replacement, counter) : run.placeholderTokens;
    if (replacementTokens < gain) {
      part.output = replacement;
      keepOutputTokens(part, counter, replacementTokens);
      run.tokensReclaimed += gain - replacementTokens;
      changed = true;
    }
  }
  const digest = run.digestSet === undefined ? null : inputDigestOf(entry, facts, run);
  if (digest !== null && digest.after < digest.before) {
    const { location } = entry.call!;
    const call = run.output[location.messageIndex]!.parts[location.partIndex] as ToolCallPart;
    // A shared digest must not be written into by whoever owns this part next.
    call.input = { ...digest.digested };
    forgetPartTokens(call);
    run.tokensReclaimed += digest.before - digest.after;
    changed = true;
  }
  if (changed) {
    // Parts were written into: every index's facts about them are suspect now.
    invalidateIndexes();
    run.prunedIds.push(part.toolCallId);
  }
  return changed;
}

/**
 * What the walk found over a history's oldest entries (from entry `from - 1` back to the latest
 * compaction summary), walked with no crossing and past everything recent: the newest
 * `keepRecent` results, the turns `protectTurns` protects, the latest step. A later run on the
 * same history grown takes it as is, instead of walking those entries again, when it reaches
 * them with no crossing and the sums stay within the window: their classes cannot have changed
 * (the same earlier prunes and options, nothing recent among them, and a newer call asking what
 * one of them asked drops it). Token sums are whole numbers (else nothing is kept), so adding
 * them at once gives the walk's sums exactly.
 */
interface Settled {
  pruned: ReadonlySet<string> | undefined;
  prunedMark: number;
  keepRecent: number;
  protectTurns: number;
  supersede: boolean;
  from: number;
  prompts: number;
  scanned: number;
  window: number;
  staleTokens: number;
  /** Entries the walk listed as stale and as re-applied there, newest first. */
  stale: number[];
  reapply: number[];
}

function settledFor(
  index: HistoryIndex,
  pruned: ReadonlySet<string> | undefined,
  prunedMark: number,
  keepRecent: number,
  protectTurns: number,
  supersede: boolean,
  oldestLatest: number,
): Settled | undefined {
  const settled = index.settled as Settled | undefined;
  if (settled === undefined) return undefined;
  const same = settled.pruned === pruned && settled.prunedMark === prunedMark && settled.keepRecent === keepRecent && settled.protectTurns === protectTurns && settled.supersede === supersede;
  // The latest step among them: those results are recent now.
  return same && settled.from <= oldestLatest ? settled : undefined;
}

function unchangedResult(messages: Message[], scannedCount: number, decision: PruneDecision, reason: string): PruneResult {
  return { messages, tokensReclaimed: 0, prunedCount: 0, scannedCount, prunedIds: [], decision, reason };
}

/**
 * Clears old tool outputs, newest to oldest. The default policy is for agent loops (one or two
 * prompts, hundreds of tool calls), protection by recency as Anthropic's context editing does:
 * - never pruned: the results of the latest assistant step (a parallel batch counts whole), the
 *   newest `keepRecent` results, error results, `protectedTools`, results with fewer than
 *   `protectTurns` user prompts after them, anything before the latest compaction summary;
 * - the other results are summed newest to oldest (output, plus the input of write/edit-like
 *   calls when `digestInputs`); once the sum is strictly greater than `protectTokens`, that
 *   result (whole) and every older one are candidates;
 * - the candidates are replaced only if they total strictly more than `minimumTokens`;
 * - with `supersede`, an output made stale by a later identical call is a candidate even inside
 *   the window.
 * Tool call and result ids stay, so pairing holds. `{ protectTurns: 2, keepRecent: 0,
 * supersede: false }` is OpenCode's rule, as this function applied it before the agentic
 * default (add `digestInputs: false` for histories with write/edit calls).
 *
 * Pure (unless `inPlace`) and idempotent: running it on its own output changes nothing and
 * returns the very same array. A host that runs it before every request on its growing history
 * (the same message objects, new ones appended) pays for what is new: what it knows about each
 * message is kept per message object (see `history-index.ts`).
 */
export function pruneToolOutputs(messages: Message[], options: PruneOptions = {}): PruneResult {
  if (!Array.isArray(messages)) throw new TypeError('pruneToolOutputs expects an array of messages');
  const protectTokens = checkCount(options.protectTokens, DEFAULT_PROTECT_TOKENS, 'protectTokens');
  const minimumTokens = checkCount(options.minimumTokens, DEFAULT_MINIMUM_TOKENS, 'minimumTokens');
  const keepRecent = checkCount(options.keepRecent, DEFAULT_KEEP_RECENT, 'keepRecent');
  const protectTurns = checkCount(options.protectTurns, DEFAULT_PROTECT_TURNS, 'protectTurns');
  // Stale outputs and earlier prunes are never touched in the current turn when turns are protected at all.
  const staleTurns = Math.min(protectTurns, 1);
  const counter = options.tokenCounter ?? defaultTokenCounter;
  const placeholderOption = options.placeholder ?? DEFAULT_PLACEHOLDER;
  const useDigest = placeholderOption === 'digest';
  const placeholder = useDigest ? DEFAULT_PLACEHOLDER : placeholderOption;
  const placeholderTokens = useDigest ? 0 : countOutput(placeholder, counter);
  const protectedTools = options.protectedTools ?? DEFAULT_PROTECTED_TOOLS;
  const protectedSet = protectedTools.length === 0 ? undefined : nameSet(protectedTools);
  const digestTools = options.digestInputs === false ? undefined : (options.digestInputs ?? DEFAULT_DIGEST_INPUT_TOOLS);
  const digestSet = digestTools === undefined || digestTools.length === 0 ? undefined : nameSet(digestTools);
  const previouslyPruned = options.previouslyPruned === undefined ? undefined : prunedSet(options.previouslyPruned);
  const supersede = options.supersede ?? DEFAULT_SUPERSEDE;
  const inPlace = options.inPlace === true;

  // In place, parts are written into: nothing learnt about them may outlive the run.
  const index = historyIndex(messages, !inPlace);
  useFactsFor(index, counter, placeholderOption, protectedTools, digestTools);
  const entries = index.entries;
  const run: Run = { messages, counter, placeholder, useDigest, placeholderTokens, protectedSet, digestSet, inPlace, output: messages, prunedIds: [], tokensReclaimed: 0 };

  // This run's marks: the latest step's results (protected by recency), earlier prunes.
  const runMark = ++index.run;
  const { flags, windowTokens: windowOf, gains, keySeen, latestMarks, prunedMarks } = index;
  const latestStep = latestStepIds(messages);
  /** The oldest entry of the latest step (results protected by recency wherever they are). */
  let oldestLatest = entries.length;
  if (latestStep !== undefined) {
    for (const id of latestStep) {
      forEachResult(index, id, (at) => {
        latestMarks[at] = runMark;
        if (at < oldestLatest) oldestLatest = at;
      });
    }
  }
  const prunedMark = previouslyPruned === undefined ? 0 : markPruned(index, previouslyPruned);

  // Pass 1, newest to oldest: count prompts, fill the window, find the crossing result.
  let prompts = 0;
  let scannedCount = 0;
  let windowTokens = 0;
  let candidateTokens = 0;
  /** The entry of the crossing result. */
  let crossing = -1;
  /** The entry where pass 1 stopped once the batch was certain to be committed; pass 2 scans what is older. */
  let stoppedAt = -1;
  let stale: number[] | undefined;
  let reapply: number[] | undefined;

  const known = inPlace ? undefined : batchBoundaries.get(messages);
  const older = known !== undefined && known.length === messages.length && sameKey(known.key, counter, placeholderOption, protectedTools, digestTools) ? known : undefined;

  // What an earlier run found over the oldest entries, if it still holds (see `Settled`), and
  // where this run's oldest entries begin, to keep what it finds there for the next runs.
  const settles = !inPlace && older === undefined;
  let settled = settles ? settledFor(index, previouslyPruned, prunedMark, keepRecent, protectTurns, supersede, oldestLatest) : undefined;
  /** `settled.from`, or -1 (the walk never reaches it). */
  let settledAt = settled === undefined ? -1 : settled.from;
  let settledFrom = -1;
  let atSettled: { prompts: number; scanned: number; window: number; candidates: number; stale: number; reapply: number } | undefined;
  /** Whether an earlier prune stands among the newest entries (which may turn from recent to re-applied later). */
  let prunedAmongNewest = false;
  const { keyAddedAt } = index;

  for (let at = entries.length - 1; at >= 0; at--) {
    let flag = flags[at]!;
    if (settles && settledFrom < 0) {
      if (scannedCount >= keepRecent && prompts >= protectTurns && prompts >= staleTurns && at < oldestLatest) {
        // From here back no entry is recent or in a protected turn: what the walk finds there is settled.
        settledFrom = at + 1;
        atSettled = { prompts, scanned: scannedCount, window: windowTokens, candidates: candidateTokens, stale: stale?.length ?? 0, reapply: reapply?.length ?? 0 };
      } else if (prunedMark !== 0 && prunedMarks[at] === prunedMark) {
        prunedAmongNewest = true;
      }
    }
    if (at < settledAt && settled !== undefined) {
      const reachable = scannedCount >= keepRecent && prompts >= protectTurns && prompts >= staleTurns;
      if (reachable && crossing < 0 && Number.isInteger(windowTokens) && Number.isInteger(candidateTokens) && windowTokens + settled.window <= protectTokens) {
        // No crossing back there either: the oldest entries give what they gave (whole-number sums, so the same sums).
        prompts += settled.prompts;
        scannedCount += settled.scanned;
        windowTokens += settled.window;
        candidateTokens += settled.staleTokens;
        for (const entry of settled.stale) (stale ??= []).push(entry);
        for (const entry of settled.reapply) (reapply ??= []).push(entry);
        break;
      }
      // The crossing is back there: walk it.
      settled = undefined;
      settledAt = -1;
    }
    if (older !== undefined && withinBoundary(entries[at]!, older.boundary, messages)) {
      // Everything from here back was pruned by the run that returned this array: nothing to count but prompts and results.
      prompts += older.prompts;
      scannedCount += older.scanned;
      break;
    }
    // The latest compaction summary: nothing before it is counted or touched.
    if ((flag & F_SUMMARY) !== 0) break;
    if ((flag & F_PROMPT) !== 0) {
      prompts++;
      continue;
    }
    scannedCount++;
    if ((flag & F_ERROR) !== 0) continue;
    if ((flag & F_FACTS) === 0) flag = factsAt(index, at, run);
    // Protected, or already pruned with nothing left in its input.
    if ((flag & F_SKIP) !== 0) continue;
    // By recency: the newest results, the step the model is about to read.
    const recent = scannedCount <= keepRecent || latestMarks[at] === runMark;

    if (prunedMark !== 0 && !recent && prompts >= staleTurns && prunedMarks[at] === prunedMark) {
      (reapply ??= []).push(at);
      continue;
    }
    // Past the crossing every result is a candidate anyway: no more keys to keep.
    if (supersede && (flag & F_OUTPUT_PRUNED) === 0 && crossing < 0) {
      const key = keyIdOf(index, at);
      if (key !== NO_KEY) {
        if (keySeen[key] === runMark) {
          // A newer identical call answered the same question: this one is stale.
          if (!recent && prompts >= staleTurns) {
            const tokens = gains[at]!;
            if (tokens > 0) {
              (stale ??= []).push(at);
              candidateTokens += tokens;
            }
            continue;
          }
        } else {
          keySeen[key] = runMark;
          // A newer call asks what one of the settled entries asked: that one is stale now, what was kept is not so.
          const adder = keyAddedAt[key]!;
          const kept = index.settled as Settled | undefined;
          if (kept !== undefined && at >= kept.from && adder >= 0 && adder < kept.from) {
            index.settled = settled = undefined;
            settledAt = -1;
          }
          keyAddedAt[key] = at;
        }
      }
    }
    if (recent || prompts < protectTurns) continue;

    if (crossing < 0) {
      windowTokens += windowOf[at]!;
      if (windowTokens > protectTokens) {
        crossing = at;
        candidateTokens += gains[at]!;
      }
    } else {
      candidateTokens += gains[at]!;
    }
    if (crossing >= 0 && candidateTokens > minimumTokens) {
      // Committed whatever is older: pass 2 replaces it while it scans it, in one walk.
      stoppedAt = at;
      break;
    }
  }
  if (settles && crossing < 0 && atSettled !== undefined && !prunedAmongNewest && Number.isInteger(windowTokens) && Number.isInteger(candidateTokens)) {
    // Walked to the end without a crossing: keep what the oldest entries gave, for the next runs.
    index.settled = {
      pruned: previouslyPruned,
      prunedMark,
      keepRecent,
      protectTurns,
      supersede,
      from: settledFrom,
      prompts: prompts - atSettled.prompts,
      scanned: scannedCount - atSettled.scanned,
      window: windowTokens - atSettled.window,
      staleTokens: candidateTokens - atSettled.candidates,
      stale: stale?.slice(atSettled.stale) ?? [],
      reapply: reapply?.slice(atSettled.reapply) ?? [],
    } satisfies Settled;
  }

  const commit = candidateTokens > minimumTokens;
  if (!commit && reapply === undefined) {
    if (prompts < protectTurns) {
      return unchangedResult(messages, scannedCount, 'fewer-than-two-user-prompts', `only ${prompts} user prompt(s) since the latest compaction: the last ${protectTurns} turn(s) are never pruned`);
    }
    if (crossing < 0 && stale === undefined) {
      return windowTokens === 0
        ? unchangedResult(messages, scannedCount, 'nothing-eligible', 'no prunable tool output outside the protected recent results')
        : unchangedResult(messages, scannedCount, 'within-protected-window', `eligible tool output totals ${formatNumber(windowTokens)} tokens, not more than the protected ${formatNumber(protectTokens)}`);
    }
    return unchangedResult(messages, scannedCount, 'below-minimum', `only ${formatNumber(candidateTokens)} tokens could be reclaimed, not more than the minimum ${formatNumber(minimumTokens)}: not worth invalidating the prompt cache`);
  }

  // Pass 2: replace. Copy-on-write: the array once, each changed message and part once.
  run.output = inPlace ? messages : messages.slice();
  let newlyPruned = 0;

  if (commit) {
    if (crossing >= 0) {
      // Every eligible result from the crossing one back to the compaction summary. Results
      // protected by recency or turns are all newer than the crossing one. What pass 1 did not
      // reach (older than where it stopped) is scanned here.
      // What a rerun on the output may skip: facts about everything from the crossing back,
      // valid only if every eligible result there ends up fully pruned.
      const crossingMessage = entries[crossing]!.messageIndex;
      let olderPrompts = 0;
      let olderScanned = 0;
      // (Not with earlier prunes to re-apply: those are replaced after this walk.)
      let olderClean = !inPlace && previouslyPruned === undefined;
      for (let at = crossing; at >= 0; at--) {
        const entry = entries[at]!;
        if (entry.kind === SUMMARY) break;
        if (entry.kind === PROMPT) {
          if (entry.messageIndex < crossingMessage) olderPrompts++;
          continue;
        }
        const part = entry.part!;
        olderScanned++;
        const unscanned = at < stoppedAt;
        if (unscanned) scannedCount++;
        if (part.isError === true) continue;
        const facts = factsOf(entry, run);
        if (facts.protected) continue;
        // Write/edit-like exchanges may keep an input a rerun would still count: no shortcut then.
        if (olderClean && digestSet !== undefined && digestSet.has(entry.toolName ?? '')) olderClean = false;
        if (previouslyPruned?.has(part.toolCallId)) {
          // Pass 1 listed the ones it reached; the older ones are re-applied here.
          if (unscanned) replace(entry, run);
          continue;
        }
        if (replace(entry, run)) newlyPruned++;
        else if (!isPrunedOutput(part.output, placeholder)) olderClean = false;
      }
      const boundary = entries[crossing]!;
      if (olderClean) batchBoundaries.set(run.output, { length: run.output.length, key: index.options as FactsKey, boundary: { messageIndex: boundary.messageIndex, partIndex: boundary.partIndex }, prompts: olderPrompts, scanned: olderScanned });
    }
    for (const at of stale ?? []) if (replace(entries[at]!, run)) newlyPruned++;
  }
  for (const at of reapply ?? []) replace(entries[at]!, run);

  const { output, prunedIds, tokensReclaimed } = run;
  const prunedCount = prunedIds.length;
  if (prunedCount === 0) {
    // Re-applied ids that turned out too small to replace: nothing changed after all.
    return unchangedResult(messages, scannedCount, 'below-minimum', `only ${formatNumber(candidateTokens)} tokens could be reclaimed, not more than the minimum ${formatNumber(minimumTokens)}`);
  }
  const reapplied = prunedCount - newlyPruned;
  const decision: PruneDecision = newlyPruned > 0 ? 'pruned' : 'reapplied';
  const reason =
    newlyPruned > 0
      ? `pruned ${newlyPruned} tool result(s): more than the minimum ${formatNumber(minimumTokens)} candidate tokens` +
        `${reapplied > 0 ? `; re-applied ${reapplied} earlier prune(s)` : ''}; ${formatNumber(tokensReclaimed)} tokens reclaimed`
      : `re-applied ${reapplied} earlier prune(s) (${formatNumber(tokensReclaimed)} tokens); ${formatNumber(candidateTokens)} new candidate tokens are not more than the minimum ${formatNumber(minimumTokens)}`;
  return { messages: output, tokensReclaimed, prunedCount, scannedCount, prunedIds, decision, reason };
}
