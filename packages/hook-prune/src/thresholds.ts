import { contextWindowFor } from '@hookwise/core/plugin';

/** The window the defaults were made for: core's default window (200k). */
const DEFAULT_CONTEXT_WINDOW = contextWindowFor();

/** The two numbers that decide what gets pruned. */
export interface PruneThresholds {
  /** Newest eligible tool-output tokens kept verbatim; pruning starts once the running sum is strictly greater. */
  protectTokens: number;
  /** A prune is committed only when it frees strictly more than this, so the prompt cache is invalidated for a worthwhile batch. */
  minimumTokens: number;
}

/** OpenCode's constants, tuned for a 200k window (core's default window); smaller windows get proportionally smaller thresholds. */
export const DEFAULT_PROTECT_TOKENS = 40_000;
export const DEFAULT_MINIMUM_TOKENS = 20_000;

// tunacode's local-mode thresholds: below these, pruning would churn the cache for crumbs.
const PROTECT_FLOOR = 2_000;
const MINIMUM_FLOOR = 500;

/** The window of a model name (core's rule: 1M for `[1m]`, else 200k), or a window given as a number, which must be positive. */
function windowOf(modelOrWindow: string | number | undefined): number {
  if (typeof modelOrWindow === 'number') {
    if (!Number.isFinite(modelOrWindow) || modelOrWindow <= 0)
      throw new RangeError(`context window must be a positive number of tokens, got ${modelOrWindow}`);
    return contextWindowFor(undefined, modelOrWindow);
  }
  return contextWindowFor(modelOrWindow);
}

/**
 * Thresholds for a model or a context window. From 200k up the defaults hold (40,000 / 20,000:
 * a bigger window is no reason to keep more stale output). Below 200k both scale with the
 * window (20 % and 10 % of it), but never below 2,000 / 500 tokens, so a 32k local model gets
 * 6,400 / 3,200 and an 8k one 2,000 / 800.
 */
export function thresholdsFor(modelOrWindow?: string | number): PruneThresholds {
  const window = windowOf(modelOrWindow);
  if (window >= DEFAULT_CONTEXT_WINDOW) return { protectTokens: DEFAULT_PROTECT_TOKENS, minimumTokens: DEFAULT_MINIMUM_TOKENS };
  const scale = window / DEFAULT_CONTEXT_WINDOW;
  return {
    protectTokens: Math.max(PROTECT_FLOOR, Math.round(DEFAULT_PROTECT_TOKENS * scale)),
    minimumTokens: Math.max(MINIMUM_FLOOR, Math.round(DEFAULT_MINIMUM_TOKENS * scale)),
  };
}
