import { defaultTokenCounter, IMAGE_TOKEN_ESTIMATE, isUserPrompt, type Message, type MessagePart, type TokenCounter, type ToolCallPart, type ToolResultContent, type ToolResultPart } from '@hookwise/core';
import { DEFAULT_DIGEST_INPUT_TOOLS, DEFAULT_PLACEHOLDER, DIGEST_PREFIX, digestInput, digestOf } from './digest.js';
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

/** Memoised token counts, per counter, per part object. Parts are treated as immutable (copy-on-write), so a part's count never goes stale. */
const tokenMemo = new WeakMap<TokenCounter, WeakMap<ToolResultPart, number>>();

/** Images inside a tool result count as core's fixed estimate. */
const IMAGE_TOKENS = IMAGE_TOKEN_ESTIMATE;

function countOutput(output: ToolResultContent, counter: TokenCounter): number {
  if (typeof output === 'string') return output === '' ? 0 : counter.count(output);
  let total = 0;
  for (const item of output) total += item.type === 'image' ? IMAGE_TOKENS : item.text === '' ? 0 : counter.count(item.text);
  return total;
}

/** Tokens of a tool result's output, memoised. Exported for hosts that report sizes the same way the pruner sees them. */
export function toolResultTokens(part: ToolResultPart, counter: TokenCounter = defaultTokenCounter): number {
  let memo = tokenMemo.get(counter);
  if (memo === undefined) {
    memo = new WeakMap();
    tokenMemo.set(counter, memo);
  }
  let tokens = memo.get(part);
  if (tokens === undefined) {
    tokens = countOutput(part.output, counter);
    memo.set(part, tokens);
  }
  return tokens;
}

/** Whether an output is a placeholder or digest left by a pruner (this one, OpenCode, tunacode). */
export function isPrunedOutput(output: ToolResultContent, placeholder: string = DEFAULT_PLACEHOLDER): boolean {
  // Short strings only: a placeholder is one line, and a 50 KB output is rejected on length alone.
  return typeof output === 'string' && output.length < 1_024 && (output === placeholder || output === DEFAULT_PLACEHOLDER || output.startsWith(DIGEST_PREFIX));
}

/** Where a part is: message index and part index. */
interface PartLocation {
  messageIndex: number;
  partIndex: number;
}

const formatNumber = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

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

interface CallEntry {
  part: ToolCallPart;
  location: PartLocation;
}

/**
 * The calls-by-id index of the latest history this function ran on, by its first message. A
 * host that prunes a fresh copy of its history before every request sends the same message
 * objects again with new ones after them: the index is extended over the new ones instead of
 * rebuilt (a pointer comparison per message, no map entry). Any other history starts afresh.
 */
interface CallIndex {
  messages: Message[];
  /** Each message's part count when indexed: a message whose parts grew in place is indexed afresh. */
  partCounts: number[];
  calls: Map<string, CallEntry>;
}
const callIndexes = new WeakMap<Message, CallIndex>();

function recordCallIndex(messages: Message[], calls: Map<string, CallEntry>): void {
  if (messages.length > 0) callIndexes.set(messages[0]!, { messages: messages.slice(), partCounts: messages.map((message) => message.parts.length), calls });
}

/** The index to extend: its map, and how many of `messages` it covers already (record it with `recordCallIndex` once filled). */
function callIndexFor(messages: Message[]): { calls: Map<string, CallEntry>; indexed: number } | undefined {
  const first = messages[0];
  if (first === undefined) return undefined;
  const known = callIndexes.get(first);
  let indexed = 0;
  let calls: Map<string, CallEntry> | undefined;
  if (known !== undefined && known.messages.length <= messages.length) {
    const previous = known.messages;
    let same = true;
    for (let index = 0; index < previous.length; index++) {
      if (previous[index] !== messages[index] || known.partCounts[index] !== messages[index]!.parts.length) {
        same = false;
        break;
      }
    }
    if (same) {
      calls = known.calls;
      indexed = previous.length;
    }
  }
  return { calls: calls ?? new Map(), indexed };
}

/** Memoised tokens of a call's input as a request carries it (JSON), per counter, per part object. */
const inputMemo = new WeakMap<TokenCounter, WeakMap<ToolCallPart, number>>();

/**
 * `digestInput` is pure: its result per input object (null: nothing to digest), and that
 * digest's tokens per counter. A host that prunes before every request meets the same write
 * and edit inputs on every run; hashing their content once is enough.
 */
const digestMemo = new WeakMap<object, Record<string, unknown> | null>();
const digestTokensMemo = new WeakMap<TokenCounter, WeakMap<object, number>>();

function memoisedDigest(input: unknown): Record<string, unknown> | undefined {
  if (typeof input !== 'object' || input === null) return digestInput(input);
  let digested = digestMemo.get(input);
  if (digested === undefined) digestMemo.set(input, (digested = digestInput(input) ?? null));
  return digested ?? undefined;
}

function digestTokens(digested: Record<string, unknown>, counter: TokenCounter): number {
  let memo = digestTokensMemo.get(counter);
  if (memo === undefined) digestTokensMemo.set(counter, (memo = new WeakMap()));
  let tokens = memo.get(digested);
  if (tokens === undefined) memo.set(digested, (tokens = counter.count(JSON.stringify(digested))));
  return tokens;
}

/** The digested copy of each call part, reused while its digest is the same object. */
const digestedCalls = new WeakMap<ToolCallPart, ToolCallPart>();

/**
 * For an array this function returned: where its batch began, and what lies older than that
 * (every eligible result there is pruned). A rerun on that very array (same length) stops its
 * scan there instead of walking results that can change nothing. Messages are treated as
 * immutable throughout (copy-on-write); a rerun on a copy of the array scans everything.
 */
interface OlderThanBatch {
  length: number;
  key: string;
  boundary: PartLocation;
  prompts: number;
  scanned: number;
}
const batchBoundaries = new WeakMap<Message[], OlderThanBatch>();
/** What the older-than-batch facts depend on: what counts as pruned, protected or digestible. */
const countersById = new WeakMap<TokenCounter, number>();
let nextCounterId = 0;
function boundaryKey(counter: TokenCounter, placeholder: string, protectedTools: readonly string[], digestTools: readonly string[] | undefined): string {
  let id = countersById.get(counter);
  if (id === undefined) countersById.set(counter, (id = ++nextCounterId));
  return `${id}\u0000${placeholder}\u0000${protectedTools.join('\u0001')}\u0000${digestTools?.join('\u0001') ?? ''}`;
}

/** A one-part result carrier as this function pruned it: reused when the same part is pruned again the same way. */
const carrierCopies = new WeakMap<Message, { source: ToolResultPart; placeholder: string; counter: TokenCounter; copy: Message; reclaimed: number }>();

/** The pruned copy of each one-part message, reused while its one part is the same. */
const singlePartCopies = new WeakMap<Message, Message>();

/** The pruned copy of each original result part, reused while its replacement text is the same. */
const replacementMemo = new WeakMap<ToolResultPart, ToolResultPart>();

/** Memoised supersede keys (tool name and input as JSON), per call part. */
const keyMemo = new WeakMap<ToolCallPart, string>();

function supersedeKey(call: ToolCallPart): string {
  let key = keyMemo.get(call);
  if (key === undefined) {
    key = `${call.toolName}\u0000${JSON.stringify(call.input)}`;
    keyMemo.set(call, key);
  }
  return key;
}

/** Memoised tokens a digest of a call's input frees, per counter, per part object. */
const inputGainMemo = new WeakMap<TokenCounter, WeakMap<ToolCallPart, number>>();

function inputTokens(part: ToolCallPart, counter: TokenCounter): number {
  let memo = inputMemo.get(counter);
  if (memo === undefined) {
    memo = new WeakMap();
    inputMemo.set(counter, memo);
  }
  let tokens = memo.get(part);
  if (tokens === undefined) {
    tokens = counter.count(JSON.stringify(part.input) ?? '');
    memo.set(part, tokens);
  }
  return tokens;
}

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
 * returns the very same array.
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

  // Calls by id, with where they are: only needed for names missing on results, digests, input digests and supersede keys.
  let calls: Map<string, CallEntry> | undefined;
  const callEntry = (toolCallId: string) => {
    if (calls === undefined) {
      const index = options.inPlace === true ? undefined : callIndexFor(messages);
      calls = index?.calls ?? new Map();
      for (let messageIndex = index?.indexed ?? 0; messageIndex < messages.length; messageIndex++) {
        const parts = messages[messageIndex]!.parts;
        for (let partIndex = 0; partIndex < parts.length; partIndex++) {
          const part = parts[partIndex]!;
          if (part.type === 'tool-call') calls.set(part.toolCallId, { part, location: { messageIndex, partIndex } });
        }
      }
      if (index !== undefined) recordCallIndex(messages, calls);
    }
    return calls.get(toolCallId);
  };
  const callOf = (toolCallId: string): ToolCallPart | undefined => callEntry(toolCallId)?.part;
  /** The call of a result: almost always in the message just before the result's message, so look there before building the map. */
  const callNear = (messageIndex: number, toolCallId: string): ToolCallPart | undefined => {
    const previous = messageIndex > 0 ? messages[messageIndex - 1]! : undefined;
    if (previous !== undefined && previous.role === 'assistant') {
      const parts = previous.parts;
      for (let index = parts.length - 1; index >= 0; index--) {
        const part = parts[index]!;
        if (part.type === 'tool-call' && part.toolCallId === toolCallId) return part;
      }
    }
    return callOf(toolCallId);
  };
  const toolNameOf = (part: ToolResultPart) => part.toolName ?? callOf(part.toolCallId)?.toolName;
  const isProtected = (part: ToolResultPart) => protectedSet !== undefined && protectedSet.has(toolNameOf(part) ?? '');
  /** Tokens a digest of the call's input would free (0 when it is not a write/edit-like call or already digested). */
  const inputGain = (part: ToolResultPart): number => {
    if (digestSet === undefined) return 0;
    const name = toolNameOf(part);
    if (name === undefined || !digestSet.has(name)) return 0;
    const call = callOf(part.toolCallId);
    if (call === undefined) return 0;
    let memo = inputGainMemo.get(counter);
    if (memo === undefined) {
      memo = new WeakMap();
      inputGainMemo.set(counter, memo);
    }
    let gain = memo.get(call);
    if (gain === undefined) {
      const digested = memoisedDigest(call.input);
      gain = digested === undefined ? 0 : Math.max(0, inputTokens(call, counter) - digestTokens(digested, counter));
      memo.set(call, gain);
    }
    return gain;
  };
  let counts = tokenMemo.get(counter);
  if (counts === undefined) tokenMemo.set(counter, (counts = new WeakMap()));
  const memoCounts = counts;
  /** Tokens of a result's output, memoised (the map fetched once per run). */
  const outputTokens = (part: ToolResultPart): number => {
    let tokens = memoCounts.get(part);
    if (tokens === undefined) memoCounts.set(part, (tokens = countOutput(part.output, counter)));
    return tokens;
  };
  /** Tokens replacing the output would free. */
  const outputGain = (part: ToolResultPart): number => {
    if (part.output === placeholder || isPrunedOutput(part.output, placeholder)) return 0;
    const tokens = outputTokens(part);
    return tokens > placeholderTokens ? tokens : 0;
  };

  const latestStep = latestStepIds(messages);

  // Pass 1, newest to oldest: count prompts, fill the window, find the crossing result.
  let prompts = 0;
  let scannedCount = 0;
  let windowTokens = 0;
  let candidateTokens = 0;
  let crossing: PartLocation | undefined;
  /** Where pass 1 stopped once the batch was certain to be committed; pass 2 scans what is older. */
  let stoppedAt: PartLocation | undefined;
  let stale: PartLocation[] | undefined;
  let reapply: PartLocation[] | undefined;
  const supersedingKeys = supersede ? new Set<string>() : undefined;

  const key = boundaryKey(counter, placeholderOption, protectedTools, digestTools);
  const known = options.inPlace === true ? undefined : batchBoundaries.get(messages);
  const older = known !== undefined && known.length === messages.length && known.key === key ? known : undefined;

  scan: for (let messageIndex = messages.length - 1; messageIndex >= 0; messageIndex--) {
    const message = messages[messageIndex]!;
    if (older !== undefined && messageIndex <= older.boundary.messageIndex && (messageIndex < older.boundary.messageIndex || older.boundary.partIndex >= message.parts.length - 1)) {
      // Everything from here back was pruned by the run that returned this array: nothing to count but prompts and results.
      prompts += older.prompts;
      scannedCount += older.scanned;
      break;
    }
    // The latest compaction summary: nothing before it is counted or touched.
    if (message.compactSummary === true) break;
    if (message.role === 'user' && isUserPrompt(message)) {
      prompts++;
      continue;
    }
    const parts = message.parts;
    for (let partIndex = parts.length - 1; partIndex >= 0; partIndex--) {
      if (older !== undefined && messageIndex === older.boundary.messageIndex && partIndex <= older.boundary.partIndex) {
        prompts += older.prompts;
        scannedCount += older.scanned;
        break scan;
      }
      const part = parts[partIndex]!;
      if (part.type !== 'tool-result') continue;
      scannedCount++;
      if (part.isError === true) continue;
      // Identity first: a placeholder this run or an earlier one wrote is the very same string.
      const outputPruned = part.output === placeholder || isPrunedOutput(part.output, placeholder);
      // Already pruned, input too (or no input to digest): nothing left to count or take.
      if (outputPruned && (digestSet === undefined || inputGain(part) === 0)) continue;
      if (isProtected(part)) continue;
      // By recency: the newest results, the step the model is about to read.
      const recent = scannedCount <= keepRecent || (latestStep !== undefined && latestStep.has(part.toolCallId));

      if (previouslyPruned !== undefined && !recent && prompts >= staleTurns && previouslyPruned.has(part.toolCallId)) {
        (reapply ??= []).push({ messageIndex, partIndex });
        continue;
      }
      // Past the crossing every result is a candidate anyway: no more keys to keep.
      if (supersedingKeys !== undefined && !outputPruned && crossing === undefined) {
        const call = callNear(messageIndex, part.toolCallId);
        const key = call === undefined ? '' : supersedeKey(call);
        if (call !== undefined && supersedingKeys.has(key)) {
          // A newer identical call answered the same question: this one is stale.
          if (!recent && prompts >= staleTurns && crossing === undefined) {
            const tokens = outputGain(part) + inputGain(part);
            if (tokens > 0) {
              (stale ??= []).push({ messageIndex, partIndex });
              candidateTokens += tokens;
            }
            continue;
          }
        } else if (call !== undefined) {
          supersedingKeys.add(key);
        }
      }
      if (recent || prompts < protectTurns) continue;

      if (crossing === undefined) {
        const tokens = (outputPruned ? 0 : outputTokens(part)) + inputGain(part);
        windowTokens += tokens;
        if (windowTokens > protectTokens) {
          crossing = { messageIndex, partIndex };
          candidateTokens += outputGain(part) + inputGain(part);
        }
      } else {
        candidateTokens += outputGain(part) + inputGain(part);
      }
      if (crossing !== undefined && candidateTokens > minimumTokens) {
        // Committed whatever is older: pass 2 replaces it while it scans it, in one walk.
        stoppedAt = { messageIndex, partIndex };
        break scan;
      }
    }
  }

  const commit = candidateTokens > minimumTokens;
  const unchanged = (decision: PruneDecision, reason: string): PruneResult => ({
    messages,
    tokensReclaimed: 0,
    prunedCount: 0,
    scannedCount,
    prunedIds: [],
    decision,
    reason,
  });
  if (!commit && reapply === undefined) {
    if (prompts < protectTurns) {
      return unchanged('fewer-than-two-user-prompts', `only ${prompts} user prompt(s) since the latest compaction: the last ${protectTurns} turn(s) are never pruned`);
    }
    if (crossing === undefined && stale === undefined) {
      return windowTokens === 0
        ? unchanged('nothing-eligible', 'no prunable tool output outside the protected recent results')
        : unchanged('within-protected-window', `eligible tool output totals ${formatNumber(windowTokens)} tokens, not more than the protected ${formatNumber(protectTokens)}`);
    }
    return unchanged('below-minimum', `only ${formatNumber(candidateTokens)} tokens could be reclaimed, not more than the minimum ${formatNumber(minimumTokens)}: not worth invalidating the prompt cache`);
  }

  // Pass 2: replace. Copy-on-write: the array once, each changed message and part once.
  const inPlace = options.inPlace === true;
  const output = inPlace ? messages : messages.slice();
  const prunedIds: string[] = [];
  let tokensReclaimed = 0;
  let newlyPruned = 0;

  /** Puts `part` at `partIndex` of message `messageIndex` in the output, copying the message once. */
  const setPart = (messageIndex: number, partIndex: number, part: MessagePart): void => {
    const original = messages[messageIndex]!;
    if (inPlace) {
      (original.parts as MessagePart[])[partIndex] = part;
      return;
    }
    let current = output[messageIndex]!;
    if (current === original && original.parts.length === 1) {
      // A result carrier of one part: the same copy on every run, while its part is the same.
      const cached = singlePartCopies.get(original);
      if (cached !== undefined && cached.parts[0] === part) {
        output[messageIndex] = cached;
      } else {
        const copy: Message = { ...original, parts: [part] };
        singlePartCopies.set(original, copy);
        output[messageIndex] = copy;
      }
      return;
    }
    // A shared single-part copy is never written into: copy it again.
    if (current === original || original.parts.length === 1) output[messageIndex] = current = { ...current, parts: current.parts.slice() };
    (current.parts as MessagePart[])[partIndex] = part;
  };

  /** Replaces the output (and the write-like input) of one exchange; false when nothing would shrink. */
  const replace = (messageIndex: number, partIndex: number, part: ToolResultPart): boolean => {
    // Fast path for a host that prunes the same history again (warm): a one-part carrier whose
    // result this function already replaced, with the same placeholder and counter, gets the
    // very same copy back, with one lookup. Write/edit-like results take the full path (inputs).
    if (!inPlace && !useDigest) {
      const original = messages[messageIndex]!;
      if (original.parts.length === 1 && output[messageIndex] === original) {
        const cached = carrierCopies.get(original);
        if (cached !== undefined && cached.source === part && cached.placeholder === placeholder && cached.counter === counter && (digestSet === undefined || !digestSet.has(toolNameOf(part) ?? ''))) {
          output[messageIndex] = cached.copy;
          tokensReclaimed += cached.reclaimed;
          prunedIds.push(part.toolCallId);
          return true;
        }
      }
    }
    let changed = false;
    const gain = outputGain(part);
    if (gain > 0) {
      const replacement = useDigest ? digestOf(toolNameOf(part), callOf(part.toolCallId), part.output, gain) : placeholder;
      const replacementTokens = useDigest ? countOutput(replacement, counter) : placeholderTokens;
      if (replacementTokens < gain) {
        let pruned: ToolResultPart;
        if (inPlace) {
          pruned = part;
          pruned.output = replacement;
        } else {
          // The same pruned copy on every run: a host that prunes before each request allocates it once.
          const cached = replacementMemo.get(part);
          if (cached !== undefined && cached.output === replacement) {
            pruned = cached;
          } else {
            pruned = { ...part, output: replacement };
            replacementMemo.set(part, pruned);
          }
        }
        setPart(messageIndex, partIndex, pruned);
        if (memoCounts.get(pruned) !== replacementTokens) memoCounts.set(pruned, replacementTokens);
        tokensReclaimed += gain - replacementTokens;
        changed = true;
        const original = messages[messageIndex]!;
        if (!inPlace && !useDigest && original.parts.length === 1) {
          carrierCopies.set(original, { source: part, placeholder, counter, copy: output[messageIndex]!, reclaimed: gain - replacementTokens });
        }
      }
    }
    if (digestSet !== undefined) {
      const name = toolNameOf(part);
      const entry = name !== undefined && digestSet.has(name) ? callEntry(part.toolCallId) : undefined;
      const digested = entry === undefined ? undefined : memoisedDigest(entry.part.input);
      if (entry !== undefined && digested !== undefined) {
        const before = inputTokens(entry.part, counter);
        const after = digestTokens(digested, counter);
        if (after < before) {
          const { messageIndex: callMessage, partIndex: callPart } = entry.location;
          const current = output[callMessage]!.parts[callPart] as ToolCallPart;
          let call: ToolCallPart;
          if (inPlace) {
            call = current;
            // A shared digest must not be written into by whoever owns this part next.
            call.input = { ...digested };
          } else {
            // The same digested copy on every run (as `replacementMemo` does for outputs).
            const cached = digestedCalls.get(current);
            if (cached !== undefined && cached.input === digested) call = cached;
            else digestedCalls.set(current, (call = { ...current, input: digested }));
          }
          setPart(callMessage, callPart, call);
          inputMemo.get(counter)?.set(call, after);
          inputGainMemo.get(counter)?.set(call, 0);
          tokensReclaimed += before - after;
          changed = true;
        }
      }
    }
    if (changed) prunedIds.push(part.toolCallId);
    return changed;
  };

  if (commit) {
    if (crossing !== undefined) {
      // Every eligible result from the crossing one back to the compaction summary. Results
      // protected by recency or turns are all newer than the crossing one. What pass 1 did not
      // reach (older than where it stopped) is scanned here.
      // What a rerun on the output may skip: facts about everything from the crossing back,
      // valid only if every eligible result there ends up fully pruned.
      let olderPrompts = 0;
      let olderScanned = 0;
      // (Not with earlier prunes to re-apply: those are replaced after this walk.)
      let olderClean = !inPlace && previouslyPruned === undefined;
      for (let messageIndex = crossing.messageIndex; messageIndex >= 0; messageIndex--) {
        const message = messages[messageIndex]!;
        if (message.compactSummary === true) break;
        if (messageIndex < crossing.messageIndex && message.role === 'user' && isUserPrompt(message)) olderPrompts++;
        const parts = message.parts;
        const last = messageIndex === crossing.messageIndex ? crossing.partIndex : parts.length - 1;
        const unscannedFrom = stoppedAt === undefined ? -1 : messageIndex < stoppedAt.messageIndex ? parts.length : messageIndex === stoppedAt.messageIndex ? stoppedAt.partIndex : -1;
        for (let partIndex = last; partIndex >= 0; partIndex--) {
          const part = parts[partIndex]!;
          if (part.type !== 'tool-result') continue;
          olderScanned++;
          const unscanned = partIndex < unscannedFrom;
          if (unscanned) scannedCount++;
          if (part.isError === true || isProtected(part)) continue;
          // Write/edit-like exchanges may keep an input a rerun would still count: no shortcut then.
          if (olderClean && digestSet !== undefined && digestSet.has(toolNameOf(part) ?? '')) olderClean = false;
          if (previouslyPruned?.has(part.toolCallId)) {
            // Pass 1 listed the ones it reached; the older ones are re-applied here.
            if (unscanned) replace(messageIndex, partIndex, part);
            continue;
          }
          if (replace(messageIndex, partIndex, part)) newlyPruned++;
          else if (!isPrunedOutput(part.output, placeholder)) olderClean = false;
        }
      }
      if (olderClean) batchBoundaries.set(output, { length: output.length, key, boundary: crossing, prompts: olderPrompts, scanned: olderScanned });
    }
    for (const location of stale ?? []) {
      if (replace(location.messageIndex, location.partIndex, messages[location.messageIndex]!.parts[location.partIndex] as ToolResultPart)) newlyPruned++;
    }
  }
  for (const location of reapply ?? []) replace(location.messageIndex, location.partIndex, messages[location.messageIndex]!.parts[location.partIndex] as ToolResultPart);

  const prunedCount = prunedIds.length;
  if (prunedCount === 0) {
    // Re-applied ids that turned out too small to replace: nothing changed after all.
    return unchanged('below-minimum', `only ${formatNumber(candidateTokens)} tokens could be reclaimed, not more than the minimum ${formatNumber(minimumTokens)}`);
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
