import type { HookwiseConfig, MergedNotice, PluginMeta } from '@hookwise/core';
import type { CacheFigures } from '@hookwise/core/counting';
import { resolveContextWindow } from '@hookwise/core/plugin';
import { summarizeCost, requestCosts, type CostSummary } from './cost.js';
import { createReplayEngine } from './replay-engine.js';
import type { ReplayNotice, ReplayResult, SessionHost, UsagePoint } from './replay.js';
import { identifySession, replaySession } from './session-source.js';

/**
 * The report's JSON shape (`hookwise report --json`). Stable: fields are only ever added, and
 * `schemaVersion` changes if one ever has to change meaning. Every `line` is the 1-based line
 * number in the transcript file. Token figures are Claude Code's own (assistant `usage`:
 * input + cache read + cache creation) except prune figures, which are estimated with the
 * engine's token counter (the one plugins count with) and core's estimate per part.
 */
export interface Report {
  schemaVersion: 1;
  /** Where the session came from: a Claude Code transcript, an OpenCode session (`opencode export` JSON, where `line` is the message's position in `messages`), or a pi session file (JSONL). */
  host: SessionHost;
  /** The transcript path as given. */
  transcript: string;
  /** Session id the events carried (the file name). */
  sessionId: string;
  /** First model the session used, or null. */
  model: string | null;
  /** Number of the last line of the file. */
  lines: number;
  /** Lines that are not JSON objects or not well-formed messages; counted, never fatal. */
  malformedLines: number;
  /** The first 50 of them. */
  malformed: Array<{ line: number; reason: string }>;
  /** The model's window: 1M for `[1m]` models or when a request measured more than 200k, else 200k. */
  contextWindow: number;
  /** Largest main-chain request size. */
  peakContextTokens: number;
  /** Line of the response that measured it; null when the transcript has no usage. */
  peakLine: number | null;
  /** Main-chain `tool_use` blocks. */
  toolCalls: number;
  /** User prompts (slash commands included). */
  prompts: number;
  /** Plugins that ran, in config order. */
  plugins: PluginMeta[];
  /** The config file used, or `default` (the three hookwise plugins with their defaults). */
  config: string;
  /** Default plugins that are not installed; their sections are empty. */
  missingPlugins: string[];
  /**
   * One entry per main-chain API response (its first line), in order: the size of the request
   * that produced it and what hook-prune would have reclaimed from that request.
   */
  timeline: TimelineEntry[];
  /** Every compaction suggestion a plugin would have made: a notice offering to compact now. */
  suggestions: SuggestionEntry[];
  /** Every compaction (`system`/`compact_boundary` line). */
  compactions: CompactionEntry[];
  /** hook-prune over the whole session. */
  prune: PruneSummary;
  /** Tool outputs the `tool:after` hooks replaced as they arrived (hook-prune's arrival trim), the only rewrite Claude Code applies. */
  outputTransforms: { outputs: number; charsBefore: number; charsAfter: number; byTool: Record<string, number>; lines: number[] };
  /** Input cost under prompt caching with and without the `llm:before` transformers, and lost edits; null when they did not run before every request. */
  cost: CostSummary | null;
  /** Every other notice (e.g. a note after a compaction). */
  notices: Array<{ line: number; point: string; text: string }>;
  /** Hooks that threw, timed out or returned something unusable (the replay went on). */
  hookErrors: Array<{ line: number; point: string; pluginName: string; hookName: string; kind: string; message: string }>;
}

export interface TimelineEntry {
  line: number;
  contextTokens: number;
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  /** Main-chain tool calls before this response. */
  toolCalls: number;
  /** Tokens hook-prune would have taken out of this request; null when it did not run. */
  pruneReclaimedTokens: number | null;
  /** Tool results it would have replaced in this request; null when it did not run. */
  prunedParts: number | null;
  /** The context of this request with hook-prune applied (`contextTokens − pruneReclaimedTokens`); null when it did not run. */
  contextWithPruneTokens: number | null;
  /** This request's input cost under prompt caching (5-minute writes, base-price tokens) as sent, and with hook-prune; null when not priced. */
  costWithout: number | null;
  costWithPrune: number | null;
  /**
   * The message tokens behind those two costs, read from the cache and written to it, as sent
   * and with hook-prune (the system/tools prefix apart: `cost.prefixTokens`): to price the
   * session at another provider's rates. Null when not priced.
   */
  cacheTokens: { without: CacheFigures; withPrune: CacheFigures } | null;
}

/**
 * What a suggestion is about, as its plugin's notice says it (`Notice.about`, joined with `+`);
 * `other` when the notice says nothing. hook-suggest's are `capacity`, `tool-calls` and
 * `capacity+tool-calls`.
 */
export type SuggestionKind = string;

export interface SuggestionEntry {
  /**
   * Where the suggestion's condition became true: for a capacity suggestion the first line of the
   * response whose usage crossed the band, for a tool-call suggestion the `tool_use` line of the
   * call that reached the count, for both at once the later of the two.
   */
  line: number;
  /** Line of the event the plugin spoke on (a `tool:before`, `tool:after` or `prompt:submit`). */
  eventLine: number;
  point: string;
  kind: SuggestionKind;
  /** The suggestion's text as its plugin words it, figures included. */
  reason: string;
  contextTokens: number | null;
  /** The window the suggestion measured against (its plugin's `contextWindow` measurement), null when it gave none. */
  contextWindow: number | null;
  /** True when that window was only assumed (its plugin's `contextWindowAssumed` measurement). */
  contextWindowAssumed: boolean;
  /** Main-chain tool calls so far. */
  toolCalls: number;
}

export interface CompactionEntry {
  line: number;
  trigger: 'manual' | 'auto';
  /** `compactMetadata.preTokens`, else the last measured size. */
  preTokens: number | null;
  /** `compactMetadata.postTokens`, else the size of the next request (see `postTokensSource`). */
  postTokens: number | null;
  postTokensSource: 'metadata' | 'measured' | null;
  /** What the `compact:before` hooks (hook-precompact) preserved: labels such as `/babysit`. */
  preserved: string[];
  /** Text they added to the compaction instructions, or null. */
  instructions: string | null;
  /** Plugin that would have blocked the compaction, or null. */
  blockedBy: string | null;
  /**
   * What hook-prune would have reclaimed from the history being compacted, and that history's
   * size, both by the engine's token counter; null when it did not run.
   */
  prune: { reclaimedTokens: number; historyTokens: number; parts: number } | null;
}

export interface PruneSummary {
  /**
   * How the `llm:before` transformers (hook-prune) were run, always through the engine (the
   * plugins' own code) on the history each request carried, plus once on the history each
   * compaction summarised:
   * - `every-request` (default): before every request.
   * - `turn` (`buildReport(…, { pruneSampling: 'turn' })`): before the first request after each
   *   user message; the other requests of that turn get the same figure. Exact for a transformer
   *   whose choice changes only when a prompt arrives (hook-prune's OpenCode rule); a lower bound
   *   for one that also reacts to the turn's own tool results (hook-prune's agentic default).
   * - `not-run`: no plugin listens on `llm:before`.
   */
  method: 'turn' | 'every-request' | 'not-run';
  /** Times `llm:before` actually ran (compactions included). */
  runs: number;
  /** Requests it has a figure for (compactions not included). */
  requests: number;
  /** Requests from which it would have taken something out. */
  requestsPruned: number;
  /** Most tokens taken out of one request, and that response's line. */
  maxReclaimedTokens: number;
  maxReclaimedLine: number | null;
  /** Tokens not sent over the whole session: the sum over every request. */
  totalReclaimedTokens: number;
  /** Most tool results replaced in one request. */
  maxParts: number;
  /** Claude Code's auto-compact point for this window: window − 20,000 (output reserve) − 13,000 (167,000 of 200,000, ≈ 83.5 %). */
  autoCompactTokens: number;
  /**
   * The headline: how many compactions the session would have needed, replaying its context
   * growth request by request (recorded compactions undone) against `autoCompactTokens` — as
   * recorded (`without`) and minus what hook-prune reclaimed before each request (`withPrune`).
   * After a simulated compaction the context restarts from the size recorded after the
   * session's own compaction (or its first request when it had none); what was reclaimed from
   * a history the session compacted stays reclaimed. Null when prune did not run.
   */
  compactionsNeeded: { without: number; withPrune: number } | null;
}

/** A compaction suggestion is a notice that offers the host's compact action (structure, not wording). */
function isSuggestion(notice: MergedNotice): boolean {
  return notice.actions.some((action) => 'hostAction' in action && action.hostAction === 'compact');
}

/**
 * Where a suggestion's condition became true, by what its notice says it is about: `capacity`,
 * the context size: the response that measured it; `tool-calls`, the count of tool calls: the
 * `tool_use` that reached it; both: the later of the two. Anything else: the event.
 */
function suggestionLine(about: readonly string[], notice: ReplayNotice): number {
  const lines: number[] = [];
  if (about.includes('capacity')) lines.push(notice.usageLine ?? notice.eventLine);
  if (about.includes('tool-calls')) lines.push(notice.toolUseLine ?? notice.eventLine);
  return lines.length > 0 ? Math.max(...lines) : notice.eventLine;
}

// Claude Code 2.1.x: auto-compaction at the effective window (window − min(max output, 20,000))
// minus a 13,000-token buffer (measured in anthropics/claude-code#31806): 167,000 of 200,000.
const OUTPUT_RESERVE_TOKENS = 20_000;
const AUTO_COMPACT_BUFFER_TOKENS = 13_000;

/** Where Claude Code compacts by itself for a context window. */
export function autoCompactPoint(contextWindow: number): number {
  return Math.max(0, contextWindow - OUTPUT_RESERVE_TOKENS - AUTO_COMPACT_BUFFER_TOKENS);
}

/**
 * Replays the context growth between consecutive requests — a recorded compaction's drop left
 * out, as if it had not happened — and counts how often the context, minus what `reclaimed`
 * says was taken out of that request, reaches `threshold`; each time it restarts from `restart`.
 * What was reclaimed from the history a recorded compaction summarised stays reclaimed after it
 * (pruned results stay pruned), so it is carried until a simulated compaction.
 */
export function compactionsNeeded<P extends { line: number; contextTokens: number }>(
  points: readonly P[],
  compactions: ReadonlyArray<{ line: number; reclaimedTokens: number }>,
  threshold: number,
  restart: number,
  reclaimed: (point: P) => number,
): number {
  let needed = 0;
  let context: number | undefined;
  let carried = 0;
  let previous: P | undefined;
  for (const point of points) {
    if (context === undefined || previous === undefined) {
      context = point.contextTokens;
    } else {
      const between = compactions.filter((compaction) => compaction.line > previous!.line && compaction.line < point.line);
      // Across a recorded compaction only the growth after it counts: the drop is what we undo.
      context += between.length > 0 ? Math.max(0, point.contextTokens - restart) : point.contextTokens - previous.contextTokens;
      for (const compaction of between) carried += compaction.reclaimedTokens;
    }
    previous = point;
    if (context - carried - reclaimed(point) >= threshold) {
      needed++;
      context = restart;
      carried = 0;
    }
  }
  return needed;
}

/** Turns what a replay recorded into the report. */
export function analyzeReplay(
  replay: ReplayResult,
  context: { plugins: PluginMeta[]; config: string; missingPlugins: string[]; contextWindow?: number },
): Report {
  let peakContextTokens = 0;
  let peakLine: number | null = null;
  for (const point of replay.usage) {
    if (point.contextTokens > peakContextTokens) {
      peakContextTokens = point.contextTokens;
      peakLine = point.line;
    }
  }
  // Transcripts name models without `[1m]`: core infers the 1M window from a larger request.
  const { contextWindow } = resolveContextWindow({
    override: context.contextWindow,
    model: replay.model,
    contextTokens: peakContextTokens,
  });

  const suggestions: SuggestionEntry[] = [];
  const notices: Report['notices'] = [];
  for (const notice of replay.notices) {
    const other: string[] = [];
    for (const item of notice.notices) {
      if (item.text.trim() === '') continue;
      if (!isSuggestion(item)) {
        other.push(item.text);
        continue;
      }
      const kind = item.about.length > 0 ? item.about.join('+') : 'other';
      suggestions.push({
        line: suggestionLine(item.about, notice),
        eventLine: notice.eventLine,
        point: notice.point,
        kind,
        reason: item.text,
        contextTokens: notice.contextTokens ?? null,
        contextWindow: notice.measurements?.contextWindow ?? null,
        contextWindowAssumed: notice.measurements?.contextWindowAssumed === 1,
        toolCalls: notice.toolCalls,
      });
    }
    if (other.length > 0) notices.push({ line: notice.eventLine, point: notice.point, text: other.join('\n') });
  }

  const cost = summarizeCost(replay);
  const priced = replay.usage.filter((point) => point.prune?.cache !== undefined);
  const costs = new Map<UsagePoint, [number, number]>();
  if (cost) {
    const without = requestCosts(
      priced.map((point) => point.prune!.cache!.without),
      cost.prefixTokens,
      '5m',
    );
    const withPrune = requestCosts(
      priced.map((point) => point.prune!.cache!.withPrune),
      cost.prefixTokens,
      '5m',
    );
    priced.forEach((point, index) => costs.set(point, [without[index]!, withPrune[index]!]));
  }
  const timeline: TimelineEntry[] = replay.usage.map((point) => ({
    line: point.line,
    contextTokens: point.contextTokens,
    inputTokens: point.inputTokens,
    cacheReadInputTokens: point.cacheReadInputTokens,
    cacheCreationInputTokens: point.cacheCreationInputTokens,
    toolCalls: point.toolCallsBefore,
    pruneReclaimedTokens: point.prune ? point.prune.reclaimedTokens : null,
    prunedParts: point.prune ? point.prune.parts : null,
    contextWithPruneTokens: point.prune ? point.contextTokens - point.prune.reclaimedTokens : null,
    costWithout: costs.get(point)?.[0] ?? null,
    costWithPrune: costs.get(point)?.[1] ?? null,
    cacheTokens:
      cost && point.prune?.cache ? { without: { ...point.prune.cache.without }, withPrune: { ...point.prune.cache.withPrune } } : null,
  }));

  const autoCompactTokens = autoCompactPoint(contextWindow);
  const prune: PruneSummary = {
    method: replay.requestHooks ? replay.pruneSampling : 'not-run',
    runs: replay.pruneRuns,
    requests: 0,
    requestsPruned: 0,
    maxReclaimedTokens: 0,
    maxReclaimedLine: null,
    totalReclaimedTokens: 0,
    maxParts: 0,
    autoCompactTokens,
    compactionsNeeded: null,
  };
  if (replay.pruneRuns > 0) {
    const restart =
      replay.compactions.find((compaction) => compaction.postTokens !== undefined)?.postTokens ?? replay.usage[0]?.contextTokens ?? 0;
    const undone = (withPrune: boolean) =>
      replay.compactions.map((compaction) => ({
        line: compaction.line,
        reclaimedTokens: withPrune ? (compaction.prune?.reclaimedTokens ?? 0) : 0,
      }));
    prune.compactionsNeeded = {
      without: compactionsNeeded(replay.usage, undone(false), autoCompactTokens, restart, () => 0),
      withPrune: compactionsNeeded(replay.usage, undone(true), autoCompactTokens, restart, (point) => point.prune?.reclaimedTokens ?? 0),
    };
  }
  for (const point of replay.usage) {
    if (!point.prune) continue;
    prune.requests++;
    prune.totalReclaimedTokens += point.prune.reclaimedTokens;
    if (point.prune.parts > 0) prune.requestsPruned++;
    if (point.prune.parts > prune.maxParts) prune.maxParts = point.prune.parts;
    if (point.prune.reclaimedTokens > prune.maxReclaimedTokens) {
      prune.maxReclaimedTokens = point.prune.reclaimedTokens;
      prune.maxReclaimedLine = point.line;
    }
  }

  return {
    schemaVersion: 1,
    host: replay.host ?? 'claude-code',
    transcript: replay.transcript,
    sessionId: replay.sessionId,
    model: replay.model ?? null,
    lines: replay.lines,
    malformedLines: replay.malformed.length,
    malformed: replay.malformed.slice(0, 50),
    contextWindow,
    peakContextTokens,
    peakLine,
    toolCalls: replay.toolCalls.length,
    prompts: replay.prompts.length,
    plugins: context.plugins,
    config: context.config,
    missingPlugins: context.missingPlugins,
    timeline,
    suggestions,
    compactions: replay.compactions.map((compaction) => ({
      line: compaction.line,
      trigger: compaction.trigger,
      preTokens: compaction.preTokens ?? null,
      postTokens: compaction.postTokens ?? null,
      postTokensSource: compaction.postTokensSource ?? null,
      preserved: compaction.preserved,
      instructions: compaction.instructions ?? null,
      blockedBy: compaction.blockedBy ?? null,
      prune: compaction.prune
        ? {
            reclaimedTokens: compaction.prune.reclaimedTokens,
            historyTokens: compaction.prune.historyTokens ?? 0,
            parts: compaction.prune.parts,
          }
        : null,
    })),
    prune,
    cost,
    outputTransforms: {
      outputs: replay.outputTransforms.length,
      charsBefore: replay.outputTransforms.reduce((sum, item) => sum + item.charsBefore, 0),
      charsAfter: replay.outputTransforms.reduce((sum, item) => sum + item.charsAfter, 0),
      byTool: replay.outputTransforms.reduce<Record<string, number>>(
        (counts, item) => ({ ...counts, [item.toolName]: (counts[item.toolName] ?? 0) + 1 }),
        {},
      ),
      lines: replay.outputTransforms.map((item) => item.line),
    },
    notices,
    hookErrors: replay.hookErrors.map(({ line, point, pluginName, hookName, kind, message }) => ({
      line,
      point,
      pluginName,
      hookName,
      kind,
      message,
    })),
  };
}

export interface BuildReportOptions {
  projectDir: string;
  configFile?: string;
  /** A config to use instead of loading one (tests, in-process callers). */
  config?: HookwiseConfig;
  onLine?: (line: number) => void;
  /** See `PruneSummary.method`; default `every-request`. */
  pruneSampling?: 'turn' | 'every-request';
  /** See `ReplayOptions.synchronousReads`. */
  synchronousReads?: boolean;
  /** See `ReplayOptions.contextWindow`; also the report's `contextWindow`. */
  contextWindow?: number;
}

/** Replays a transcript through the project's plugins and builds the report. */
export async function buildReport(transcript: string, options: BuildReportOptions): Promise<Report> {
  // The file first: one that is no session is refused before any plugin loads.
  const source = await identifySession(transcript);
  const setup = await createReplayEngine({
    projectDir: options.projectDir,
    ...(options.configFile !== undefined ? { configFile: options.configFile } : {}),
    ...(options.config !== undefined ? { config: options.config } : {}),
  });
  try {
    const replay = await replaySession(
      transcript,
      {
        engine: setup.engine,
        clock: setup.clock,
        ...(options.onLine ? { onLine: options.onLine } : {}),
        ...(options.pruneSampling ? { pruneSampling: options.pruneSampling } : {}),
        ...(options.synchronousReads ? { synchronousReads: true } : {}),
        ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
      },
      source,
    );
    return analyzeReplay(replay, {
      plugins: [...setup.engine.plugins],
      config: setup.configSource,
      missingPlugins: setup.missingPlugins,
      ...(options.contextWindow !== undefined ? { contextWindow: options.contextWindow } : {}),
    });
  } finally {
    await setup.engine.dispose();
  }
}
