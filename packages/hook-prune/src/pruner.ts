import { isUserPrompt, type Message } from '@hookwise/core';
import { formatNumber } from './digest.js';
import { buildIndex, extendedIndex, F_ERROR, F_FACTS, F_OUTPUT_PRUNED, F_PROMPT, F_SKIP, F_SUMMARY, forEachResult, keyIdOf, NO_KEY, PROMPT, SUMMARY, type HistoryIndex } from './history-index.js';
import { policyOf, type Policy, type PruneDecision, type PruneOptions, type PruneResult } from './policy.js';
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
   * its state before every request), so the index's marks and settled sums stay valid.
   */
  function prunedSet(ids: Iterable<string>): ReadonlySet<string> {
    if (!Array.isArray(ids)) return new Set(ids);
    const list: readonly string[] = ids;
    if (lastPruned !== undefined && lastPruned.ids.length === list.length && lastPruned.ids.every((id, at) => id === list[at])) return lastPruned.set;
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

function settledFor(index: HistoryIndex, policy: Policy, pruned: ReadonlySet<string> | undefined, prunedMark: number, oldestLatest: number): Settled | undefined {
  const settled = index.settled as Settled | undefined;
  if (settled === undefined) return undefined;
  const same = settled.pruned === pruned && settled.prunedMark === prunedMark && settled.keepRecent === policy.keepRecent && settled.protectTurns === policy.protectTurns && settled.supersede === policy.supersede;
  // The latest step among them: those results are recent now.
  return same && settled.from <= oldestLatest ? settled : undefined;
}

function unchangedResult(messages: Message[], scannedCount: number, decision: PruneDecision, reason: string): PruneResult {
  return { messages, tokensReclaimed: 0, prunedCount: 0, scannedCount, prunedIds: [], decision, reason };
}

/** One run on `messages` with its index (see `pruneToolOutputs` for the policy). */
function pruneWith(index: HistoryIndex, messages: Message[], policy: Policy, previouslyPruned: ReadonlySet<string> | undefined): PruneResult {
  const { protectTokens, minimumTokens, keepRecent, protectTurns, staleTurns, supersede } = policy;
  useFactsFor(index, policy);
  const entries = index.entries;
  const run: Run = { policy, messages, output: messages, prunedIds: [], tokensReclaimed: 0 };

  // This run's marks: the latest step's results (protected by recency), earlier prunes.
  const runMark = ++index.run;
  const { flags, windowTokens: windowOf, gains, keySeen, latestMarks, prunedMarks, keyAddedAt } = index;
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

  // What an earlier run found over the oldest entries, if it still holds (see `Settled`), and
  // where this run's oldest entries begin, to keep what it finds there for the next runs.
  let settled = settledFor(index, policy, previouslyPruned, prunedMark, oldestLatest);
  /** `settled.from`, or -1 (the walk never reaches it). */
  let settledAt = settled === undefined ? -1 : settled.from;
  let settledFrom = -1;
  let atSettled: { prompts: number; scanned: number; window: number; candidates: number; stale: number; reapply: number } | undefined;
  /** Whether an earlier prune stands among the newest entries (which may turn from recent to re-applied later). */
  let prunedAmongNewest = false;

  for (let at = entries.length - 1; at >= 0; at--) {
    let flag = flags[at]!;
    if (settledFrom < 0) {
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
  if (crossing < 0 && atSettled !== undefined && !prunedAmongNewest && Number.isInteger(windowTokens) && Number.isInteger(candidateTokens)) {
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
  run.output = messages.slice();
  let newlyPruned = 0;

  if (commit) {
    // Every eligible result from the crossing one back to the compaction summary. Results
    // protected by recency or turns are all newer than the crossing one. What pass 1 did not
    // reach (older than where it stopped) is scanned here.
    for (let at = crossing; at >= 0; at--) {
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
      if (replace(entry, run)) newlyPruned++;
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
