import { isUserPrompt, type Message } from '@hookwise/core/messages';
import { formatNumber } from './digest.js';
import {
  buildIndex,
  extendedIndex,
  F_ERROR,
  F_FACTS,
  F_OUTPUT_PRUNED,
  F_PROMPT,
  F_SKIP,
  F_SUMMARY,
  forEachResult,
  keyIdOf,
  NO_KEY,
  PROMPT,
  SUMMARY,
  type HistoryIndex,
} from './history-index.js';
import { policyOf, type Policy, type PruneDecision, type PruneOptions, type PruneResult } from './policy.js';
import { fileContextEntries } from './file-context.js';
import { factsAt, factsOf, markPruned, replace, useFactsFor, type Run } from './replacement.js';

/**
 * Prunes one conversation's history request after request. It keeps what it learnt about the
 * history (its index, the earlier prunes' set) while the history grows, so a host that prunes a
 * fresh copy before every request pays for what is new. Its results are `pruneToolOutputs`'s on
 * every history: what it keeps only saves work.
 */
export interface Pruner {
  prune(messages: Message[], options?: PruneOptions): PruneResult;
  /** How many times it indexed a history from scratch (what the warm path saves). */
  readonly indexBuilds: number;
}

/** A pruner for one session (one history at a time: another history replaces what it keeps). */
export function createPruner(): Pruner {
  let kept: HistoryIndex | undefined;
  let lastPruned: { ids: readonly string[]; set: ReadonlySet<string> } | undefined;
  let indexBuilds = 0;

  function indexOf(messages: Message[]): HistoryIndex {
    const extended = kept === undefined ? undefined : extendedIndex(kept, messages);
    if (extended !== undefined) return (kept = extended);
    indexBuilds++;
    return (kept = buildIndex(messages));
  }

  /**
   * The set of earlier prunes; the one made last run when the list is equal (a host reads it from
   * its state before every request), so the index's marks of it stay valid.
   */
  function prunedSet(ids: Iterable<string>): ReadonlySet<string> {
    if (!Array.isArray(ids)) return new Set(ids);
    const list: readonly string[] = ids;
    if (lastPruned !== undefined && lastPruned.ids.length === list.length && lastPruned.ids.every((id, at) => id === list[at]))
      return lastPruned.set;
    const set = new Set(list);
    lastPruned = { ids: list.slice(), set };
    return set;
  }

  return {
    prune(messages, options = {}) {
      if (!Array.isArray(messages)) throw new TypeError('pruneToolOutputs expects an array of messages');
      const policy = policyOf(options);
      const previouslyPruned = options.previouslyPruned === undefined ? undefined : prunedSet(options.previouslyPruned);
      return pruneWith(indexOf(messages), messages, policy, previouslyPruned);
    },
    get indexBuilds() {
      return indexBuilds;
    },
  };
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

function unchangedResult(messages: Message[], scannedCount: number, decision: PruneDecision, reason: string): PruneResult {
  return { messages, tokensReclaimed: 0, prunedCount: 0, scannedCount, prunedIds: [], decision, reason };
}

/** One run on `messages` with its index (see `pruneToolOutputs` for the policy). */
function pruneWith(
  index: HistoryIndex,
  messages: Message[],
  policy: Policy,
  previouslyPruned: ReadonlySet<string> | undefined,
): PruneResult {
  const { protectTokens, minimumTokens, keepRecent, protectTurns, staleTurns, supersede, cacheBreakRatio } = policy;
  useFactsFor(index, policy);
  const entries = index.entries;
  const run: Run = { policy, messages, output: messages, prunedIds: [], tokensReclaimed: 0 };

  // This run's marks: the latest step's results (protected by recency), earlier prunes.
  const runMark = ++index.run;
  const { flags, windowTokens: windowOf, gains, keySeen, latestMarks, prunedMarks } = index;
  const latestStep = latestStepIds(messages);
  // Results of the latest step are protected by recency wherever they are.
  if (latestStep !== undefined) for (const id of latestStep) forEachResult(index, id, (at) => (latestMarks[at] = runMark));
  const prunedMark = previouslyPruned === undefined ? 0 : markPruned(index, previouslyPruned);
  // Reads and writes of the files in use: kept whole, like the newest results.
  const fileContext = fileContextEntries(
    index,
    policy.keepFileContext,
    policy.keepEditedFiles,
    policy.workingDirectory,
    policy.keepShortEdits,
  );
  run.files = index.fileTouches?.identity;

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
  // With a cache-break ratio: the tokens a request would still send after each candidate (what
  // the cache writes again from there), and the oldest candidate whose batch frees enough.
  let tailTokens = 0;
  let cutAt = -1;
  let cutTokens = 0;
  const noteCandidate = (at: number): void => {
    if (candidateTokens > minimumTokens && candidateTokens >= cacheBreakRatio * tailTokens) {
      cutAt = at;
      cutTokens = candidateTokens;
    }
    tailTokens += windowOf[at]! - gains[at]!;
  };

  for (let at = entries.length - 1; at >= 0; at--) {
    let flag = flags[at]!;
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
    const newest = scannedCount <= keepRecent || latestMarks[at] === runMark;
    // A file back in use does not bring back a read already cleared: that would break the cache again.
    if (prunedMark !== 0 && !newest && prompts >= staleTurns && prunedMarks[at] === prunedMark) {
      (reapply ??= []).push(at);
      continue;
    }
    const recent = newest || fileContext?.has(at) === true;
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
              if (cacheBreakRatio > 0) noteCandidate(at);
            }
            continue;
          }
        } else {
          keySeen[key] = runMark;
        }
      }
    }
    if (recent || prompts < protectTurns) {
      tailTokens += windowOf[at]!;
      continue;
    }

    if (crossing < 0) {
      windowTokens += windowOf[at]!;
      if (windowTokens > protectTokens) {
        crossing = at;
        candidateTokens += gains[at]!;
        if (cacheBreakRatio > 0) noteCandidate(at);
      } else {
        tailTokens += windowOf[at]!;
      }
    } else {
      candidateTokens += gains[at]!;
      if (cacheBreakRatio > 0) noteCandidate(at);
    }
    // Without a ratio the batch is certain once it passes the minimum; with one, an older candidate may still pay.
    if (cacheBreakRatio === 0 && crossing >= 0 && candidateTokens > minimumTokens) {
      // Committed whatever is older: pass 2 replaces it while it scans it, in one walk.
      stoppedAt = at;
      break;
    }
  }
  const commit = cacheBreakRatio > 0 ? cutAt >= 0 : candidateTokens > minimumTokens;
  // Candidates older than the cut wait for a batch that pays for breaking the cache there.
  const oldest = cacheBreakRatio > 0 ? cutAt : 0;
  if (cacheBreakRatio > 0) candidateTokens = cutTokens;
  if (!commit && reapply === undefined) {
    if (prompts < protectTurns) {
      return unchangedResult(
        messages,
        scannedCount,
        'fewer-than-two-user-prompts',
        `only ${prompts} user prompt(s) since the latest compaction: the last ${protectTurns} turn(s) are never pruned`,
      );
    }
    if (crossing < 0 && stale === undefined) {
      return windowTokens === 0
        ? unchangedResult(messages, scannedCount, 'nothing-eligible', 'no prunable tool output outside the protected recent results')
        : unchangedResult(
            messages,
            scannedCount,
            'within-protected-window',
            `eligible tool output totals ${formatNumber(windowTokens)} tokens, not more than the protected ${formatNumber(protectTokens)}`,
          );
    }
    return unchangedResult(
      messages,
      scannedCount,
      'below-minimum',
      `only ${formatNumber(candidateTokens)} tokens could be reclaimed, not more than the minimum ${formatNumber(minimumTokens)}: not worth invalidating the prompt cache`,
    );
  }

  // Pass 2: replace. Copy-on-write: the array once, each changed message and part once.
  run.output = messages.slice();
  let newlyPruned = 0;

  if (commit) {
    // Every eligible result from the crossing one back to the compaction summary. Results
    // protected by recency or turns are all newer than the crossing one. What pass 1 did not
    // reach (older than where it stopped) is scanned here.
    for (let at = crossing; at >= oldest; at--) {
      const entry = entries[at]!;
      if (entry.kind === SUMMARY) break;
      if (entry.kind === PROMPT) continue;
      const unscanned = at < stoppedAt;
      if (unscanned) scannedCount++;
      if (entry.part!.isError === true || factsOf(entry, run).protected) continue;
      if (previouslyPruned?.has(entry.part!.toolCallId)) {
        // Pass 1 listed the ones it reached; the older ones are re-applied here.
        if (unscanned) replace(entry, run);
        continue;
      }
      // The reads and writes of files in use stay, wherever they are.
      if (fileContext?.has(at) === true) continue;
      if (replace(entry, run)) newlyPruned++;
    }
    for (const at of stale ?? []) if (at >= oldest && replace(entries[at]!, run)) newlyPruned++;
  }
  for (const at of reapply ?? []) replace(entries[at]!, run);

  const { output, prunedIds, tokensReclaimed } = run;
  const prunedCount = prunedIds.length;
  if (prunedCount === 0) {
    // Re-applied ids that turned out too small to replace: nothing changed after all.
    return unchangedResult(
      messages,
      scannedCount,
      'below-minimum',
      `only ${formatNumber(candidateTokens)} tokens could be reclaimed, not more than the minimum ${formatNumber(minimumTokens)}`,
    );
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
