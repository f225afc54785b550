import { defaultTokenCounter, IMAGE_TOKEN_ESTIMATE, type Message, type MessagePart, type TokenCounter, type ToolCallPart, type ToolResultContent, type ToolResultPart } from '@hookwise/core';
import { DEFAULT_PLACEHOLDER, DIGEST_PREFIX, digestOf } from './digest.js';
import { DEFAULT_MINIMUM_TOKENS, DEFAULT_PROTECT_TOKENS } from './thresholds.js';

/**
 * Tools whose output is never pruned: skill bodies and sub-agent reports are instructions or
 * unique evidence that cannot be re-fetched by running the tool again, and a todo list is state.
 */
export const DEFAULT_PROTECTED_TOOLS: readonly string[] = Object.freeze(['skill', 'Skill', 'Task', 'Agent', 'TodoWrite', 'todowrite']);

export interface PruneOptions {
  /** Newest eligible tool-output tokens kept verbatim (default 40,000; see `thresholdsFor`). */
  protectTokens?: number;
  /** Commit only when the candidates total strictly more than this (default 20,000). */
  minimumTokens?: number;
  /** Tool names whose results are never counted or pruned (default `DEFAULT_PROTECTED_TOOLS`). */
  protectedTools?: readonly string[];
  /** Replacement text, or `'digest'` for a one-line digest (tool, key input, size, first error line). */
  placeholder?: string;
  /** Also prune outputs made stale by a later identical call (same tool, same input), even inside the protected window; never in the current turn. */
  supersede?: boolean;
  /** Counts tokens (default core's chars/4). Counts are memoised per part object and counter. */
  tokenCounter?: TokenCounter;
  /**
   * Tool call ids an earlier run pruned. They are pruned again (outside the current turn) without
   * counting toward the window or the minimum, so a host that prunes a fresh copy of its history
   * before every request changes the prompt prefix once per batch, not once per request.
   */
  previouslyPruned?: Iterable<string>;
  /** Write placeholders into the given parts instead of copying (the array is returned as is). Default false. */
  inPlace?: boolean;
}

export type PruneDecision =
  /** Something was pruned; `messages` differs from the input. */
  | 'pruned'
  /** Earlier prunes were re-applied, no new batch was worth it. */
  | 'reapplied'
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

/**
 * A real prompt: a user message with text or an image and no tool result. Claude Code's meta
 * lines (command caveats), the printed output of local commands (`<local-command-stdout>`) and
 * a compaction summary are not the user speaking; a slash command the user typed is.
 */
export function isUserPrompt(message: Message): boolean {
  if (message.role !== 'user' || message.compactSummary === true) return false;
  let hasContent = false;
  for (const part of message.parts) {
    if (part.type === 'tool-result') return false;
    if (part.type === 'image') hasContent = true;
    else if (part.type === 'text' && part.text.trim() !== '' && !part.text.startsWith('<local-command-')) hasContent = true;
  }
  // Checked last: result carriers, by far the most common user messages, never get here.
  const claudeCode = message.providerMetadata?.['claudeCode'] as { isMeta?: unknown } | undefined;
  return hasContent && claudeCode?.isMeta !== true;
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

function checkTokens(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number ≥ 0, got ${value}`);
  return value;
}

/**
 * Clears old tool outputs, newest to oldest, OpenCode's way:
 * - only tool results with at least two real user prompts at or after their message are
 *   eligible (the current and the previous turn are never touched);
 * - eligible tokens are summed newest to oldest; once the sum is strictly greater than
 *   `protectTokens`, that result (whole) and every older eligible one are candidates;
 * - the candidates are replaced only if they total strictly more than `minimumTokens`.
 * Error results, protected tools, already-pruned results and anything before the latest
 * compaction summary are never touched; tool call and result ids stay, so pairing holds.
 *
 * Pure (unless `inPlace`) and idempotent: running it on its own output changes nothing and
 * returns the very same array.
 */
export function pruneToolOutputs(messages: Message[], options: PruneOptions = {}): PruneResult {
  if (!Array.isArray(messages)) throw new TypeError('pruneToolOutputs expects an array of messages');
  const protectTokens = checkTokens(options.protectTokens, DEFAULT_PROTECT_TOKENS, 'protectTokens');
  const minimumTokens = checkTokens(options.minimumTokens, DEFAULT_MINIMUM_TOKENS, 'minimumTokens');
  const counter = options.tokenCounter ?? defaultTokenCounter;
  const placeholderOption = options.placeholder ?? DEFAULT_PLACEHOLDER;
  const useDigest = placeholderOption === 'digest';
  const placeholder = useDigest ? DEFAULT_PLACEHOLDER : placeholderOption;
  const placeholderTokens = useDigest ? 0 : countOutput(placeholder, counter);
  const protectedTools = options.protectedTools ?? DEFAULT_PROTECTED_TOOLS;
  const protectedSet = protectedTools.length === 0 ? undefined : new Set(protectedTools);
  const previouslyPruned = options.previouslyPruned === undefined ? undefined : new Set(options.previouslyPruned);
  const supersede = options.supersede === true;

  // Calls by id: only needed for names missing on results, digests and supersede keys.
  let calls: Map<string, ToolCallPart> | undefined;
  const callOf = (toolCallId: string): ToolCallPart | undefined => {
    if (calls === undefined) {
      calls = new Map();
      for (const message of messages) for (const part of message.parts) if (part.type === 'tool-call') calls.set(part.toolCallId, part);
    }
    return calls.get(toolCallId);
  };
  const toolNameOf = (part: ToolResultPart) => part.toolName ?? callOf(part.toolCallId)?.toolName;
  const isProtected = (part: ToolResultPart) => protectedSet !== undefined && protectedSet.has(toolNameOf(part) ?? '');

  // Pass 1, newest to oldest: count prompts, fill the window, find the crossing result.
  let prompts = 0;
  let start = 0;
  let scannedCount = 0;
  let windowTokens = 0;
  let candidateTokens = 0;
  let crossing: PartLocation | undefined;
  let stale: PartLocation[] | undefined;
  let reapply: PartLocation[] | undefined;
  const supersedingKeys = supersede ? new Set<string>() : undefined;

  for (let messageIndex = messages.length - 1; messageIndex >= 0; messageIndex--) {
    const message = messages[messageIndex]!;
    if (message.compactSummary === true) {
      start = messageIndex + 1;
      break;
    }
    if (message.role === 'user' && isUserPrompt(message)) {
      prompts++;
      continue;
    }
    const parts = message.parts;
    for (let partIndex = parts.length - 1; partIndex >= 0; partIndex--) {
      const part = parts[partIndex]!;
      if (part.type !== 'tool-result') continue;
      scannedCount++;
      // Identity first: a placeholder this run or an earlier one wrote is the very same string.
      if (part.output === placeholder || part.isError === true || isPrunedOutput(part.output, placeholder) || isProtected(part)) continue;

      if (previouslyPruned !== undefined && prompts >= 1 && previouslyPruned.has(part.toolCallId)) {
        (reapply ??= []).push({ messageIndex, partIndex });
        continue;
      }
      if (supersedingKeys !== undefined) {
        const call = callOf(part.toolCallId);
        const key = `${toolNameOf(part) ?? ''}\u0000${call === undefined ? '' : JSON.stringify(call.input)}`;
        if (call !== undefined && supersedingKeys.has(key)) {
          // A newer identical call answered the same question: this one is stale.
          if (prompts >= 1 && crossing === undefined) {
            const tokens = toolResultTokens(part, counter);
            if (tokens > placeholderTokens) {
              (stale ??= []).push({ messageIndex, partIndex });
              candidateTokens += tokens;
            }
            continue;
          }
        } else if (call !== undefined) {
          supersedingKeys.add(key);
        }
      }
      if (prompts < 2) continue;

      const tokens = toolResultTokens(part, counter);
      if (crossing === undefined) {
        windowTokens += tokens;
        if (windowTokens > protectTokens) {
          crossing = { messageIndex, partIndex };
          if (tokens > placeholderTokens) candidateTokens += tokens;
        }
      } else if (tokens > placeholderTokens) {
        candidateTokens += tokens;
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
    if (prompts < 2) return unchanged('fewer-than-two-user-prompts', `only ${prompts} user prompt(s) since the latest compaction: the current and the previous turn are never pruned`);
    if (crossing === undefined && stale === undefined) {
      return windowTokens === 0
        ? unchanged('nothing-eligible', 'no prunable tool output older than the previous turn')
        : unchanged('within-protected-window', `eligible tool output totals ${formatNumber(windowTokens)} tokens, not more than the protected ${formatNumber(protectTokens)}`);
    }
    return unchanged('below-minimum', `only ${formatNumber(candidateTokens)} tokens could be reclaimed, not more than the minimum ${formatNumber(minimumTokens)}: not worth invalidating the prompt cache`);
  }

  // Pass 2: replace. Copy-on-write: the array once, each changed message and part once.
  const output = options.inPlace === true ? messages : messages.slice();
  const copiedParts = options.inPlace === true ? undefined : new Set<number>();
  const prunedIds: string[] = [];
  let tokensReclaimed = 0;
  let newlyPruned = 0;

  const replace = (messageIndex: number, partIndex: number, part: ToolResultPart): boolean => {
    const tokens = toolResultTokens(part, counter);
    const replacement = useDigest ? digestOf(toolNameOf(part), callOf(part.toolCallId), part.output, tokens) : placeholder;
    const replacementTokens = useDigest ? countOutput(replacement, counter) : placeholderTokens;
    if (replacementTokens >= tokens) return false;
    let pruned: ToolResultPart;
    if (copiedParts === undefined) {
      part.output = replacement;
      pruned = part;
    } else {
      let message = output[messageIndex]!;
      if (!copiedParts.has(messageIndex)) {
        message = { ...message, parts: message.parts.slice() };
        output[messageIndex] = message;
        copiedParts.add(messageIndex);
      }
      pruned = { ...part, output: replacement };
      (message.parts as MessagePart[])[partIndex] = pruned;
    }
    tokenMemo.get(counter)?.set(pruned, replacementTokens);
    tokensReclaimed += tokens - replacementTokens;
    prunedIds.push(part.toolCallId);
    return true;
  };

  if (commit) {
    if (crossing !== undefined) {
      // Every eligible result from the crossing one back to the compaction boundary.
      for (let messageIndex = crossing.messageIndex; messageIndex >= start; messageIndex--) {
        const parts = messages[messageIndex]!.parts;
        const last = messageIndex === crossing.messageIndex ? crossing.partIndex : parts.length - 1;
        for (let partIndex = last; partIndex >= 0; partIndex--) {
          const part = parts[partIndex]!;
          if (part.type !== 'tool-result' || part.isError === true || isPrunedOutput(part.output, placeholder) || isProtected(part)) continue;
          if (previouslyPruned?.has(part.toolCallId)) continue; // re-applied below
          if (replace(messageIndex, partIndex, part)) newlyPruned++;
        }
      }
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
      ? `pruned ${newlyPruned} tool result(s): ${formatNumber(candidateTokens)} candidate tokens > minimum ${formatNumber(minimumTokens)}` +
        `${reapplied > 0 ? `; re-applied ${reapplied} earlier prune(s)` : ''}; ${formatNumber(tokensReclaimed)} tokens reclaimed`
      : `re-applied ${reapplied} earlier prune(s) (${formatNumber(tokensReclaimed)} tokens); ${formatNumber(candidateTokens)} new candidate tokens are not more than the minimum ${formatNumber(minimumTokens)}`;
  return { messages: output, tokensReclaimed, prunedCount, scannedCount, prunedIds, decision, reason };
}
