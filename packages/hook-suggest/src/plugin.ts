import {
  definePlugin,
  type Clock,
  type EventLog,
  type EventRecord,
  type HookContext,
  type Logger,
  type Measurements,
  type Notice,
  type PluginCommand,
  type PointPayload,
} from '@hookwise/core';
import { contextWindowFor, createEventLog, resolveContextWindow, resolveInside } from '@hookwise/core/plugin';
import {
  formatCompactionNotice,
  reductionPercent,
  type CompactionRecord,
  type CompactionSizeAfterRecord,
  type SizeSource,
} from './compaction.js';
import { PLUGIN_NAME, PLUGIN_VERSION } from './meta.js';
import { capacityBands, compactionLogPath, suggestOptionsSchema, type SuggestOptions, type SuggestOptionsInput } from './options.js';
import {
  countToolCall,
  describeSize,
  dismissSuggestions,
  evaluateSuggestion,
  dismissNote,
  formatSuggestion,
  formatTokens,
  initialSuggestionState,
  measurement,
  rearmSuggestions,
  type ContextMeasurement,
  type Suggestion,
  type SuggestionState,
} from './suggestion-policy.js';

/** Everything the plugin keeps for a session, as one JSON document in core's session state. */
export interface SuggestPluginState {
  policy: SuggestionState;
  /** The model named by the host (SessionStart carries it; PostToolUse does not). */
  model: string | null;
  /**
   * The window once something confirmed it (the option, the host, a `[1m]` model, a context
   * larger than 200k): kept across compactions, so a 1M session is not taken for 200k again.
   */
  confirmedWindow: number | null;
  /** Written by compact:before, consumed by compact:after. */
  pendingCompaction: PendingCompaction | null;
  lastCompaction: LastCompaction | null;
}

interface PendingCompaction {
  startedAt: string;
  trigger: 'manual' | 'auto';
  tokensBefore: number | null;
  tokensBeforeSource: SizeSource | null;
  contextWindow: number | null;
}

interface LastCompaction {
  compaction: number;
  completedAt: string;
  boundaryUuid: string | null;
  tokensBefore: number | null;
  /** True until a size after the compaction is known (then a `compaction:size-after` line is written). */
  awaitingSizeAfter: boolean;
}

// A compact:before older than this belongs to a compaction that never completed (another hook
// blocked it, or the host died); it must not lend its figures to a later compaction.
const PENDING_COMPACTION_MAX_AGE_MS = 30 * 60_000;

type Context = HookContext<SuggestOptions>;
type ContextPayload = {
  contextTokens?: number | undefined;
  contextWindow?: number | undefined;
  contextSource?: 'usage' | 'compact-boundary' | undefined;
  model?: string | undefined;
};

interface RawMeasurement {
  contextTokens: number;
  source: 'host' | 'transcript' | 'compact-boundary';
}

function freshState(options: SuggestOptions): SuggestPluginState {
  return { policy: initialSuggestionState(options), model: null, confirmedWindow: null, pendingCompaction: null, lastCompaction: null };
}

/** The stored document, or a fresh one when it is missing or not ours (an older shape, a hand edit). */
export function normalizeState(value: unknown, options: SuggestOptions): SuggestPluginState {
  if (typeof value !== 'object' || value === null) return freshState(options);
  const stored = value as Partial<SuggestPluginState>;
  const policy = stored.policy;
  const policyValid =
    typeof policy === 'object' &&
    policy !== null &&
    typeof policy.toolCalls === 'number' &&
    typeof policy.toolCallsSinceCompaction === 'number' &&
    typeof policy.nextToolCallSuggestion === 'number';
  // Fields a stored policy lacks (an older shape) take their initial values.
  const initial = initialSuggestionState(options);
  return {
    policy: policyValid ? { ...initial, ...policy } : initial,
    model: typeof stored.model === 'string' ? stored.model : null,
    confirmedWindow: typeof stored.confirmedWindow === 'number' && stored.confirmedWindow > 0 ? stored.confirmedWindow : null,
    pendingCompaction: typeof stored.pendingCompaction === 'object' ? (stored.pendingCompaction ?? null) : null,
    lastCompaction: typeof stored.lastCompaction === 'object' ? (stored.lastCompaction ?? null) : null,
  };
}

/** Where the host read a size it passes: a transcript's usage, a compaction boundary, or live (`host`). */
const sourceOf = (payload: ContextPayload): RawMeasurement['source'] =>
  payload.contextSource === 'usage' ? 'transcript' : (payload.contextSource ?? 'host');

/** The context size the host passed with the event (plugins `needs: ['contextUsage']`); undefined when it has none. */
const measureContext = (payload: ContextPayload): RawMeasurement | undefined =>
  payload.contextTokens === undefined ? undefined : { contextTokens: payload.contextTokens, source: sourceOf(payload) };

/**
 * The window for a size: confirmed by the option, the host, a `[1m]` model id or a context above
 * the default (then remembered for the session), else the default, assumed. A model id without
 * `[1m]` confirms nothing: transcripts name 1M sessions' models without it.
 */
function sessionWindow(
  state: SuggestPluginState,
  payload: ContextPayload,
  options: SuggestOptions,
  contextTokens: number | undefined,
): { contextWindow: number; assumed: boolean } {
  const resolved = resolveContextWindow({
    override: options.contextWindow,
    hostWindow: payload.contextWindow,
    model: payload.model ?? state.model ?? undefined,
    contextTokens,
  });
  const confirmed =
    resolved.source === 'option' ||
    resolved.source === 'host' ||
    resolved.source === 'inferred' ||
    (resolved.source === 'model' && resolved.contextWindow !== contextWindowFor());
  if (confirmed) return { contextWindow: resolved.contextWindow, assumed: false };
  if (state.confirmedWindow !== null) return { contextWindow: state.confirmedWindow, assumed: false };
  return { contextWindow: resolved.contextWindow, assumed: true };
}

function toMeasurement(
  raw: RawMeasurement | undefined,
  payload: ContextPayload,
  state: SuggestPluginState,
  options: SuggestOptions,
): ContextMeasurement | undefined {
  if (!raw) return undefined;
  const { contextWindow, assumed } = sessionWindow(state, payload, options, raw.contextTokens);
  return measurement(raw.contextTokens, contextWindow, assumed);
}

/** The state with the window a measurement confirmed remembered. */
const rememberWindow = (state: SuggestPluginState, current: ContextMeasurement | undefined): SuggestPluginState =>
  current && !current.windowAssumed && current.contextWindow !== state.confirmedWindow
    ? { ...state, confirmedWindow: current.contextWindow }
    : state;

/**
 * The compaction log of this project, or the engine's event log when the configured path is
 * unsafe, or when the engine must leave no files behind (a replay such as `hookwise report`).
 */
function compactionLog(context: {
  projectDir: string;
  host: string;
  options: SuggestOptions;
  logger: Logger;
  eventLog: EventLog;
  clock: Clock;
  ephemeral: boolean;
}): EventLog {
  if (context.ephemeral) return context.eventLog;
  const relative = compactionLogPath(context.options);
  try {
    // The engine's clock stamps the lines, so a replay logs the recorded session's times.
    return createEventLog({
      path: resolveInside(context.projectDir, relative),
      logger: context.logger,
      clock: () => new Date(context.clock.now()),
    });
  } catch (error) {
    context.logger.warn(
      `${PLUGIN_NAME}: compaction log path refused (${(error as Error).message}); logging compactions to the event log instead`,
    );
    return context.eventLog;
  }
}

/** The compaction log is its own file (`context.record` writes the event log): a failed line is only logged. */
async function appendSafely(
  log: EventLog,
  record: CompactionRecord | CompactionSizeAfterRecord | EventRecord,
  logger: Logger,
): Promise<void> {
  try {
    // The record interfaces have no index signature, which EventRecord asks for; they are plain JSON.
    await log.append(record as EventRecord);
  } catch (error) {
    logger.warn(`${PLUGIN_NAME}: could not write ${log.path}: ${(error as Error).message}`);
  }
}

/**
 * The shared step of every point that can measure: update the measurement (counting a tool call
 * on tool:after), decide on a suggestion, and complete the last compaction's size when it was
 * unknown. All under one atomic state update, so concurrent hook processes count every call and
 * at most one of them makes each suggestion.
 */
async function observe(
  payload: ContextPayload & { sessionId: string },
  context: Context,
  countsToolCall: boolean,
): Promise<{ notice: Notice; measurements?: Measurements } | undefined> {
  const raw = measureContext(payload);
  let suggestion: Suggestion | undefined;
  let lastSize: ContextMeasurement | undefined;
  let sizeAfter: CompactionSizeAfterRecord | undefined;
  await context.state.update<SuggestPluginState>((stored) => {
    const state = normalizeState(stored, context.options);
    const current = toMeasurement(raw, payload, state, context.options);
    const counted = countsToolCall ? countToolCall(state.policy) : state.policy;
    const result = evaluateSuggestion(counted, current, context.options);
    suggestion = result.suggestion;
    lastSize = result.state.lastMeasurement ?? undefined;
    let lastCompaction = state.lastCompaction;
    // A boundary's postTokens was already used at compact:after; only a new turn completes the record.
    if (lastCompaction?.awaitingSizeAfter && current && raw?.source !== 'compact-boundary') {
      sizeAfter = {
        type: 'compaction:size-after',
        sessionId: payload.sessionId,
        compaction: lastCompaction.compaction,
        tokensBefore: lastCompaction.tokensBefore,
        tokensAfter: current.contextTokens,
        tokensAfterSource: 'next-measurement',
        reductionPercent: reductionPercent(lastCompaction.tokensBefore, current.contextTokens),
      };
      lastCompaction = { ...lastCompaction, awaitingSizeAfter: false };
    }
    return { ...rememberWindow(state, current), policy: result.state, lastCompaction };
  });
  if (sizeAfter) await appendSafely(compactionLog(context), sizeAfter, context.logger);
  if (!suggestion) return undefined;
  const about = suggestionAbout(suggestion);
  await context.record({
    type: 'suggest:compact',
    sessionId: payload.sessionId,
    point: context.point,
    kind: about.join('+'),
    ...suggestion,
  });
  const size = suggestion.capacity ?? lastSize;
  return {
    // The window the suggestion used, for a report to show beside it (1 when only assumed).
    ...(size ? { measurements: { contextWindow: size.contextWindow, contextWindowAssumed: size.windowAssumed ? 1 : 0 } } : {}),
    notice: {
      text: formatSuggestion(suggestion),
      about,
      actions: [
        { label: 'Compact now', hostAction: 'compact' },
        { label: 'Dismiss', command: DISMISS_COMMAND, note: dismissNote(suggestion) },
      ],
    },
  };
}

/** What made the suggestion: the capacity band, the tool-call count, or both at once. */
export function suggestionAbout(suggestion: Suggestion): Array<'capacity' | 'tool-calls'> {
  const about: Array<'capacity' | 'tool-calls'> = [];
  if (suggestion.capacity) about.push('capacity');
  if (suggestion.toolCalls) about.push('tool-calls');
  return about;
}

async function onSessionStart(payload: PointPayload<'session:start'>, context: Context): Promise<void> {
  const clearsContext = payload.source === 'clear';
  if (payload.model === undefined && !clearsContext) return;
  await context.state.update<SuggestPluginState>((stored) => {
    const state = normalizeState(stored, context.options);
    return {
      ...state,
      model: payload.model ?? state.model,
      policy: clearsContext ? rearmSuggestions(state.policy, 'clear', context.options) : state.policy,
    };
  });
}

/**
 * Records what compaction starts from. Returns nothing: under Claude Code, PreCompact output is
 * added to the summarizer's instructions, and a suggestion plugin has nothing to say there; it
 * never blocks either.
 */
async function onCompactBefore(
  payload: PointPayload<'compact:before'>,
  context: Context,
): Promise<{ measurements: Measurements } | undefined> {
  const raw = measureContext(payload);
  const startedAt = new Date(context.clock.now()).toISOString();
  let current: ContextMeasurement | undefined;
  await context.state.update<SuggestPluginState>((stored) => {
    const state = normalizeState(stored, context.options);
    current = toMeasurement(raw, payload, state, context.options);
    const pendingCompaction: PendingCompaction = {
      startedAt,
      trigger: payload.trigger,
      tokensBefore: current?.contextTokens ?? null,
      tokensBeforeSource: current ? (raw?.source ?? null) : null,
      contextWindow: current?.contextWindow ?? null,
    };
    return { ...rememberWindow(state, current), pendingCompaction };
  });
  // This hook runs first ('pre'): later hooks of compact:before read the size as measurements.
  return current ? { measurements: { contextTokens: current.contextTokens, contextWindow: current.contextWindow } } : undefined;
}

async function onCompactAfter(
  payload: PointPayload<'compact:after'>,
  context: Context,
): Promise<{ notice?: string; measurements?: Measurements } | undefined> {
  // Sizes the host read from its compaction boundary, else its own.
  const sizeSource = sourceOf(payload) === 'compact-boundary' ? 'compact-boundary' : 'host';
  const now = context.clock.now();
  const completedAt = new Date(now).toISOString();
  let record: CompactionRecord | undefined;
  await context.state.update<SuggestPluginState>((stored) => {
    const state = normalizeState(stored, context.options);
    const pendingAge = state.pendingCompaction ? now - Date.parse(state.pendingCompaction.startedAt) : Infinity;
    const pending = pendingAge >= 0 && pendingAge <= PENDING_COMPACTION_MAX_AGE_MS ? state.pendingCompaction : null;
    const before = pickSize([
      [payload.tokensBefore, sizeSource],
      [pending?.tokensBefore ?? undefined, pending?.tokensBeforeSource ?? 'transcript'],
    ]);
    const after = pickSize([
      [payload.tokensAfter, sizeSource],
      [payload.contextTokens, 'host'],
    ]);
    const contextWindow =
      pending?.contextWindow ?? sessionWindow(state, payload, context.options, before.tokens ?? undefined).contextWindow;
    const policy = rearmSuggestions(state.policy, 'compaction', context.options);
    const trigger = payload.trigger ?? pending?.trigger ?? 'unknown';
    record = {
      type: 'compaction',
      sessionId: payload.sessionId,
      host: context.host,
      compaction: policy.compactions,
      trigger,
      startedAt: pending?.startedAt ?? null,
      completedAt,
      tokensBefore: before.tokens,
      tokensBeforeSource: before.source,
      tokensAfter: after.tokens,
      tokensAfterSource: after.source,
      reductionPercent: reductionPercent(before.tokens, after.tokens),
      contextWindow,
      toolCallsSinceLastCompaction: state.policy.toolCallsSinceCompaction,
      toolCallsTotal: state.policy.toolCalls,
      preserved: payload.preserved ?? [],
      ...(payload.compactionId ? { boundaryUuid: payload.compactionId } : {}),
    };
    return {
      ...state,
      policy,
      pendingCompaction: null,
      lastCompaction: {
        compaction: policy.compactions,
        completedAt,
        boundaryUuid: payload.compactionId ?? null,
        tokensBefore: before.tokens,
        awaitingSizeAfter: after.tokens === null,
      },
    };
  });
  if (!record) return undefined;
  await appendSafely(compactionLog(context), record, context.logger);
  // Later hooks of compact:after read the sizes as measurements (this hook runs first).
  const measurements: Measurements = {};
  if (record.tokensBefore !== null) measurements.tokensBefore = record.tokensBefore;
  if (record.tokensAfter !== null) measurements.tokensAfter = record.tokensAfter;
  const sizes = Object.keys(measurements).length > 0 ? { measurements } : {};
  if (!context.options.compactionNotice) return sizes;
  return {
    notice: formatCompactionNotice({
      completedAt,
      trigger: record.trigger,
      tokensBefore: record.tokensBefore,
      tokensAfter: record.tokensAfter,
      preserved: record.preserved,
    }),
    ...sizes,
  };
}

function pickSize(candidates: Array<[number | undefined, SizeSource]>): { tokens: number | null; source: SizeSource | null } {
  for (const [tokens, source] of candidates) if (tokens !== undefined) return { tokens, source };
  return { tokens: null, source: null };
}

const DISMISS_COMMAND = 'suggest dismiss';

const dismissCommand: PluginCommand<SuggestOptions> = {
  name: DISMISS_COMMAND,
  description: 'Silence compaction suggestions until the context reaches the next capacity band (or the next compaction).',
  async run(_args, context) {
    const updated = await context.state.update<SuggestPluginState>((stored) => {
      const state = normalizeState(stored, context.options);
      return { ...state, policy: dismissSuggestions(state.policy, context.options) };
    });
    const dismissed = updated.policy.dismissed;
    if (dismissed?.untilBand != null)
      return `Compaction suggestions dismissed until the context reaches ${dismissed.untilBand}% (or the next compaction).`;
    if (dismissed?.untilToolCalls != null) {
      return `Compaction suggestions dismissed for ${dismissed.untilToolCalls - updated.policy.toolCallsSinceCompaction} tool calls (context size not known yet), or until the next compaction.`;
    }
    return 'Compaction suggestions dismissed until the next compaction.';
  },
};

const statusCommand: PluginCommand<SuggestOptions> = {
  name: 'suggest status',
  description: 'Show tool calls, the last measured context size and when the next compaction suggestion comes.',
  async run(_args, context) {
    const state = normalizeState(await context.state.read<SuggestPluginState>(), context.options);
    const { policy } = state;
    const bands = capacityBands(context.options);
    const lines = [`Session ${context.sessionId}`];
    lines.push(
      `Tool calls: ${policy.toolCalls} in the session, ${policy.toolCallsSinceCompaction} since the last compaction (next suggestion at ${policy.nextToolCallSuggestion}).`,
    );
    const size = policy.lastMeasurement;
    lines.push(
      size
        ? `Context: ${describeSize(size)}${size.windowAssumed ? ` (window not known; ${formatTokens(size.contextWindow)} assumed)` : ''}.`
        : 'Context: size not measured since the last compaction.',
    );
    lines.push(
      `Capacity bands: ${bands.join(', ')}%; suggested so far: ${policy.capacityBandHandled === null ? 'none' : `up to ${policy.capacityBandHandled}%`}.`,
    );
    if (policy.dismissed) {
      lines.push(
        `Dismissed until ${policy.dismissed.untilBand !== null ? `${policy.dismissed.untilBand}%` : policy.dismissed.untilToolCalls !== null ? `${policy.dismissed.untilToolCalls} tool calls` : 'the next compaction'}.`,
      );
    }
    lines.push(
      `Compactions: ${policy.compactions}${state.lastCompaction ? ` (last at ${state.lastCompaction.completedAt})` : ''}; log: ${compactionLogPath(context.options)}.`,
    );
    return lines.join('\n');
  },
};

/**
 * The plugin: `suggest({ capacityPercent: 70, toolCalls: 50 })` in `hookwise.config.ts`.
 * Counts every tool call, measures the context, suggests compaction as a notice (never a block)
 * and logs every compaction with its sizes.
 */
export const suggest = definePlugin<SuggestOptions, SuggestOptionsInput>({
  meta: { name: PLUGIN_NAME, version: PLUGIN_VERSION },
  options: suggestOptionsSchema,
  // The context size in every payload: a command-hook host reads it from its transcript for us.
  needs: ['contextUsage'],
  on: {
    'session:start': onSessionStart,
    'tool:after': (payload, context) => observe(payload, context, true),
    'prompt:submit': (payload, context) => observe(payload, context, false),
    'agent:stop': (payload, context) => observe(payload, context, false),
    // First, so later hooks of these points read the sizes it measured.
    'compact:before': { handler: onCompactBefore, order: 'pre' },
    'compact:after': { handler: onCompactAfter, order: 'pre' },
  },
  commands: [dismissCommand, statusCommand],
});
