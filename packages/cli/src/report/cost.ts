import { CACHE_READ_PRICE, CACHE_WRITE_PRICES, cacheCost, type CacheFigures, type CacheLifetime } from '@hookwise/core/counting';
import type { ReplayResult, UsagePoint } from './replay-result.js';

/** A cost at both cache lifetimes, in tokens at the base input price. */
export interface CostPair {
  '5m': number;
  '1h': number;
}

export interface CostSpan {
  /** The compaction that ends the span (its line), or null for the span after the last one. */
  compactionLine: number | null;
  requests: number;
  without: CostPair;
  withPrune: CostPair;
}

/**
 * What the session's input cost under prompt caching, as the host sent it and with the
 * `llm:before` transformers (hook-prune) applied, by core's cache model (see the README, "Cost
 * under prompt caching"): cache reads 0.1×, writes 1.25× (5-minute) or 2× (1-hour).
 */
export interface CostSummary {
  /** The system/tools prefix: the first request's measured size minus its messages by the engine's counter. */
  prefixTokens: number;
  requests: number;
  without: CostPair;
  /** Lost edits' re-reads included. */
  withPrune: CostPair;
  /** `withPrune / without`. */
  ratio: CostPair;
  /** The same requests priced from the transcript's own usage fields (uncached input 1×): how close the model lands. */
  fromUsage: CostPair | null;
  /** Edits whose old text the request that made them showed (sourced), and those whose text the transform had replaced (lost). */
  edits: { sourced: number; lost: number; rereadTokens: number; lostLines: number[] };
  /** Per compaction: the requests since the one before it; the last span runs to the end. */
  spans: CostSpan[];
}

const pair = (cost: (lifetime: CacheLifetime) => number): CostPair => ({ '5m': cost('5m'), '1h': cost('1h') });

function usageCost(points: readonly UsagePoint[], lifetime: CacheLifetime): number {
  let cost = 0;
  for (const point of points)
    cost +=
      point.inputTokens + CACHE_READ_PRICE * point.cacheReadInputTokens + CACHE_WRITE_PRICES[lifetime] * point.cacheCreationInputTokens;
  return cost;
}

/** Per-request costs of one side, the prefix included (written by the first request, read by the others). */
export function requestCosts(figures: readonly CacheFigures[], prefixTokens: number, lifetime: CacheLifetime): number[] {
  const write = CACHE_WRITE_PRICES[lifetime];
  return figures.map(
    (figure, index) =>
      (index === 0 ? write : CACHE_READ_PRICE) * prefixTokens + CACHE_READ_PRICE * figure.readTokens + write * figure.writeTokens,
  );
}

/** The cost summary, or null when no request was priced (`llm:before` did not run before every request). */
export function summarizeCost(replay: ReplayResult): CostSummary | null {
  const priced = replay.usage.filter((point) => point.prune?.cache !== undefined);
  if (priced.length === 0) return null;
  const first = priced[0]!;
  const firstMessages = first.prune!.cache!.without.readTokens + first.prune!.cache!.without.writeTokens;
  const prefixTokens = Math.max(0, first.contextTokens - firstMessages);
  const without = priced.map((point) => point.prune!.cache!.without);
  const withPrune = priced.map((point) => point.prune!.cache!.withPrune);
  const lost = replay.edits.filter((edit) => edit.lost);
  const rereadTokens = lost.reduce((sum, edit) => sum + edit.rereadTokens, 0);
  const withoutCost = pair((lifetime) => cacheCost(without, prefixTokens, lifetime));
  const withCost = pair((lifetime) => cacheCost(withPrune, prefixTokens, lifetime) + CACHE_WRITE_PRICES[lifetime] * rereadTokens);

  const spans: CostSpan[] = [];
  let start = 0;
  const boundaries = [...replay.compactions.map((compaction) => compaction.line), Number.POSITIVE_INFINITY];
  for (const boundary of boundaries) {
    let end = start;
    while (end < priced.length && priced[end]!.line < boundary) end++;
    if (end > start || boundary !== Number.POSITIVE_INFINITY) {
      // A span's first request reads the prefix unless it is the session's first.
      const price = (side: CacheFigures[], lifetime: CacheLifetime) => {
        const costs = requestCosts(side, prefixTokens, lifetime);
        return costs.slice(start, end).reduce((sum, cost) => sum + cost, 0);
      };
      const lostHere = lost
        .filter((edit) => edit.line >= (priced[start]?.line ?? 0) && edit.line < boundary)
        .reduce((sum, edit) => sum + edit.rereadTokens, 0);
      spans.push({
        compactionLine: boundary === Number.POSITIVE_INFINITY ? null : boundary,
        requests: end - start,
        without: pair((lifetime) => price(without, lifetime)),
        withPrune: pair((lifetime) => price(withPrune, lifetime) + CACHE_WRITE_PRICES[lifetime] * lostHere),
      });
    }
    start = end;
  }

  return {
    prefixTokens,
    requests: priced.length,
    without: withoutCost,
    withPrune: withCost,
    ratio: pair((lifetime) => (withoutCost[lifetime] > 0 ? withCost[lifetime] / withoutCost[lifetime] : 1)),
    fromUsage: priced.some((point) => point.contextTokens > 0) ? pair((lifetime) => usageCost(priced, lifetime)) : null,
    edits: { sourced: replay.edits.length, lost: lost.length, rereadTokens, lostLines: lost.map((edit) => edit.line) },
    spans,
  };
}
