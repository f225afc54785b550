import { contextWindowFor, formatTokens } from '@hookwise/core/plugin';

export { formatTokens };
import { capacityBands, defaultSuggestOptions, type SuggestOptions } from './options.js';

/**
 * What the policy remembers about one session. Plain JSON, so it lives in core's session state
 * and every hook process of the session sees the same counts.
 */
export interface SuggestionState {
  /** Tool calls in the session, all tools. */
  toolCalls: number;
  /** Tool calls since the last compaction (or the start of the context). */
  toolCallsSinceCompaction: number;
  /** Highest capacity band (percent) already suggested or dismissed since the last compaction. */
  capacityBandHandled: number | null;
  /** Tool calls since compaction at which the next tool-call suggestion is due. */
  nextToolCallSuggestion: number;
  /** Set by a dismissal: silent until the context reaches `untilBand` (or, with no size known, until `untilToolCalls`). */
  dismissed: { untilBand: number | null; untilToolCalls: number | null } | null;
  /** Compactions seen in the session. */
  compactions: number;
  /** The newest context size measured since the last compaction. */
  lastMeasurement: ContextMeasurement | null;
}

export interface ContextMeasurement {
  contextTokens: number;
  contextWindow: number;
  /** `contextTokens / contextWindow * 100`, unrounded. */
  percent: number;
  /**
   * True when nothing confirmed the window (no option, no host figure, no `[1m]` model, no
   * context above it seen): the bands still use it, but no words state it as a fact.
   */
  windowAssumed?: boolean;
}

/** Why a suggestion is made, with the figures that triggered it. */
export interface Suggestion {
  capacity?: { band: number; percent: number; contextTokens: number; contextWindow: number; windowAssumed?: boolean };
  toolCalls?: { count: number; threshold: number };
  /** The band after which a dismissal would end (null when none is left below 100 %). */
  nextBand: number | null;
}

export interface SuggestionResult {
  state: SuggestionState;
  suggestion?: Suggestion;
}

export type PolicyOptions = Pick<SuggestOptions, 'capacityPercent' | 'capacityStep' | 'toolCalls' | 'toolCallStep'> &
  Partial<Pick<SuggestOptions, 'toolCallBackoff' | 'quietBelowPercent'>>;

export function initialSuggestionState(options: PolicyOptions = defaultSuggestOptions): SuggestionState {
  return {
    toolCalls: 0,
    toolCallsSinceCompaction: 0,
    capacityBandHandled: null,
    nextToolCallSuggestion: options.toolCalls,
    dismissed: null,
    compactions: 0,
    lastMeasurement: null,
  };
}

/** One more tool call, of any tool. */
export function countToolCall(state: SuggestionState): SuggestionState {
  return { ...state, toolCalls: state.toolCalls + 1, toolCallsSinceCompaction: state.toolCallsSinceCompaction + 1 };
}

/** Builds a measurement; the window defaults to 200k (assumed) so a caller without one still gets a figure. */
export function measurement(
  contextTokens: number,
  contextWindow?: number,
  windowAssumed = contextWindow === undefined,
): ContextMeasurement {
  const window = contextWindow ?? contextWindowFor();
  return { contextTokens, contextWindow: window, percent: (contextTokens / window) * 100, ...(windowAssumed ? { windowAssumed } : {}) };
}

/**
 * Decides whether to suggest compaction now. Pure: give it the session's state and the newest
 * measurement (or none, when the size is unknown), get back the new state and maybe a
 * suggestion. It never asks for anything to be blocked.
 *
 * - Capacity: when the context is in a band (70, 80, 90 % by default) higher than any band
 *   suggested since the last compaction. A jump over several bands gives one suggestion, for the
 *   highest. A context that shrinks and grows again does not re-suggest a band; a compaction does.
 * - Tool calls: when the calls since the last compaction reach the due count: 50, then at gaps that
 *   double (75, 125, 225, 425 with the defaults). After the first, a due count passes in silence
 *   while the context is known to be under `quietBelowPercent` (half the first band, 35 %): there,
 *   many tool calls are no reason to compact, and advice repeated every 25 calls goes unread.
 * - Both due at once: one suggestion carrying both figures.
 * - Dismissed: nothing until the context reaches the band the dismissal named (or, when no size
 *   was known, until `toolCallStep` more calls). That band's suggestion then comes as usual.
 */
export function evaluateSuggestion(
  state: SuggestionState,
  current: ContextMeasurement | undefined,
  options: PolicyOptions = defaultSuggestOptions,
): SuggestionResult {
  const bands = capacityBands(options);
  let next: SuggestionState = current ? { ...state, lastMeasurement: current } : { ...state };

  if (next.dismissed) {
    const { untilBand, untilToolCalls } = next.dismissed;
    const bandReached = untilBand !== null && current !== undefined && current.percent >= untilBand;
    const callsReached = untilToolCalls !== null && next.toolCallsSinceCompaction >= untilToolCalls;
    if (!bandReached && !callsReached) return { state: next };
    next = { ...next, dismissed: null };
  }

  const suggestion: Suggestion = { nextBand: null };
  if (current) {
    const band = highestBandReached(bands, current.percent);
    if (band !== null && (next.capacityBandHandled === null || band > next.capacityBandHandled)) {
      suggestion.capacity = {
        band,
        percent: current.percent,
        contextTokens: current.contextTokens,
        contextWindow: current.contextWindow,
        ...(current.windowAssumed ? { windowAssumed: true } : {}),
      };
      next = { ...next, capacityBandHandled: band };
    }
  }
  if (next.toolCallsSinceCompaction >= next.nextToolCallSuggestion) {
    const first = next.nextToolCallSuggestion <= options.toolCalls;
    const farBelow = current !== undefined && current.percent < (options.quietBelowPercent ?? options.capacityPercent / 2);
    if (first || !farBelow) suggestion.toolCalls = { count: next.toolCallsSinceCompaction, threshold: next.nextToolCallSuggestion };
    next = { ...next, nextToolCallSuggestion: nextToolCallThreshold(next.toolCallsSinceCompaction, options) };
  }
  if (!suggestion.capacity && !suggestion.toolCalls) return { state: next };
  suggestion.nextBand = bandAbove(bands, next.capacityBandHandled, next.lastMeasurement?.percent);
  return { state: next, suggestion };
}

/**
 * Silences suggestions until the next band: when the context size is known, until it reaches the
 * first band above its current size (both kinds of suggestion; at 72 % that is 80 %, above the
 * last band only a compaction re-arms them); when it is not, for `toolCallStep` more tool calls.
 */
export function dismissSuggestions(state: SuggestionState, options: PolicyOptions = defaultSuggestOptions): SuggestionState {
  const bands = capacityBands(options);
  const percent = state.lastMeasurement?.percent;
  if (percent === undefined) {
    return { ...state, dismissed: { untilBand: null, untilToolCalls: state.toolCallsSinceCompaction + options.toolCallStep } };
  }
  const reached = highestBandReached(bands, percent);
  const handled = reached === null ? state.capacityBandHandled : Math.max(reached, state.capacityBandHandled ?? reached);
  return { ...state, capacityBandHandled: handled, dismissed: { untilBand: bandAbove(bands, handled, percent), untilToolCalls: null } };
}

/** After a compaction (or a cleared context) everything re-arms: bands, tool-call count, dismissal. */
export function rearmSuggestions(
  state: SuggestionState,
  reason: 'compaction' | 'clear',
  options: PolicyOptions = defaultSuggestOptions,
): SuggestionState {
  return {
    ...state,
    toolCallsSinceCompaction: 0,
    capacityBandHandled: null,
    nextToolCallSuggestion: options.toolCalls,
    dismissed: null,
    compactions: state.compactions + (reason === 'compaction' ? 1 : 0),
    lastMeasurement: null,
  };
}

/**
 * Short, factual text for the user, with the figures that triggered the suggestion. The offers
 * (compact now, dismiss) are the notice's actions: each host words them in its own terms.
 */
export function formatSuggestion(suggestion: Suggestion): string {
  const parts: string[] = [];
  if (suggestion.capacity) parts.push(`Context at ${describeSize(suggestion.capacity)}.`);
  if (suggestion.toolCalls) parts.push(`${suggestion.toolCalls.count} tool calls since the last compaction.`);
  return parts.join(' ');
}

/**
 * A context size in words: `73% (145,945 / 200,000 tokens)` against a confirmed window, the
 * tokens alone (`145,945 tokens`) against an assumed one.
 */
export function describeSize(size: Pick<ContextMeasurement, 'percent' | 'contextTokens' | 'contextWindow' | 'windowAssumed'>): string {
  if (size.windowAssumed) return `${formatTokens(size.contextTokens)} tokens`;
  return `${Math.round(size.percent)}% (${formatTokens(size.contextTokens)} / ${formatTokens(size.contextWindow)} tokens)`;
}

/** What dismissing this suggestion does: the note of its dismiss action. */
export function dismissNote(suggestion: Suggestion): string {
  return `quiet until ${suggestion.nextBand === null ? 'the next compaction' : `${suggestion.nextBand}%`}`;
}

function highestBandReached(bands: readonly number[], percent: number): number | null {
  let reached: number | null = null;
  for (const band of bands) if (percent >= band) reached = band;
  return reached;
}

function bandAbove(bands: readonly number[], handled: number | null, percent: number | undefined): number | null {
  const floor = Math.max(handled ?? -Infinity, percent ?? -Infinity);
  return bands.find((band) => band > floor) ?? null;
}

/** The next due count above `count`: `toolCalls`, then gaps of `toolCallStep` that grow by `toolCallBackoff` each time. */
function nextToolCallThreshold(count: number, options: PolicyOptions): number {
  const backoff = options.toolCallBackoff ?? 2;
  let due = options.toolCalls;
  for (let gap = options.toolCallStep; due <= count; gap = Math.round(gap * backoff)) due += gap;
  return due;
}
