import type { TraceEntry } from './intent-trace.js';

/**
 * The intent summary: the last `window` entries of the intent's history, then what they add up to.
 *
 * The Roo fork had two formats (a one-line-per-action list that was wired, and a statistics block
 * that was never called); this one carries both. It fires at `threshold` entries or more — the
 * fork fired at exactly 20 although its spec said "more than 20"; `>=` is the documented rule.
 */
export interface IntentStatistics {
  /** Entries in the whole history. */
  total: number;
  /** Entries summarised (the last `window`). */
  considered: number;
  /** Calls per tool, most used first (ties in order of first appearance). Entries without a tool count under `(<action type>)` or `unknown`. */
  tools: Array<{ tool: string; count: number }>;
  /** Files changed by mutations that did not fail, in order of first change. Reads are not listed. */
  filesChanged: string[];
  /** Files whose change failed or was denied (and that no later mutation in the window changed). */
  filesNotChanged: string[];
  succeeded: number;
  /** FAILURE, DENIED and ERROR: the action did not happen. */
  failed: number;
  /** Of `failed`, how many were DENIED (refused by a guard rather than broken). */
  denied: number;
  /** WARNING: the action happened, with a caveat. Neither success nor failure. */
  warnings: number;
  /** Entries with no status at all. */
  unknown: number;
}

export type Outcome = 'success' | 'failure' | 'warning' | 'unknown';

export function outcomeOf(entry: TraceEntry): Outcome {
  const status = entry.status?.toUpperCase();
  if (status === undefined) return 'unknown';
  if (status === 'SUCCESS' || status === 'OK') return 'success';
  if (status === 'FAILURE' || status === 'DENIED' || status === 'ERROR' || status === 'FAILED') return 'failure';
  if (status === 'WARNING') return 'warning';
  return 'unknown';
}

export function toolLabel(entry: TraceEntry): string {
  return entry.tool ?? (entry.action ? `(${entry.action})` : 'unknown');
}

export function intentStatistics(history: readonly TraceEntry[], window: number): IntentStatistics {
  const recent = history.slice(-window);
  const tools = new Map<string, number>();
  const changed = new Set<string>();
  const notChanged = new Set<string>();
  const statistics: IntentStatistics = {
    total: history.length,
    considered: recent.length,
    tools: [],
    filesChanged: [],
    filesNotChanged: [],
    succeeded: 0,
    failed: 0,
    denied: 0,
    warnings: 0,
    unknown: 0,
  };
  for (const entry of recent) {
    const label = toolLabel(entry);
    tools.set(label, (tools.get(label) ?? 0) + 1);
    const outcome = outcomeOf(entry);
    if (outcome === 'success') statistics.succeeded++;
    else if (outcome === 'failure') statistics.failed++;
    else if (outcome === 'warning') statistics.warnings++;
    else statistics.unknown++;
    if (entry.status?.toUpperCase() === 'DENIED') statistics.denied++;
    if (!entry.mutation) continue;
    for (const file of entry.files) {
      if (outcome === 'failure') {
        if (!changed.has(file)) notChanged.add(file);
      } else {
        changed.add(file);
        notChanged.delete(file);
      }
    }
  }
  statistics.tools = [...tools].map(([tool, count]) => ({ tool, count })).sort((left, right) => right.count - left.count); // stable: ties keep first appearance
  statistics.filesChanged = [...changed];
  statistics.filesNotChanged = [...notChanged];
  return statistics;
}

/**
 * The summary text, or null when the history is shorter than `threshold` (nothing to say yet).
 */
export function summarizeIntent(
  intentId: string,
  history: readonly TraceEntry[],
  options: { threshold: number; window: number },
): string | null {
  if (history.length < options.threshold || history.length === 0) return null;
  const statistics = intentStatistics(history, options.window);
  const recent = history.slice(-options.window);
  const lines = [`## ACTIVE INTENT: ${intentId} — last ${recent.length} of ${history.length} actions`, '', 'Actions, oldest first:'];
  recent.forEach((entry, index) => lines.push(`${index + 1}. ${describeEntry(entry)}`));
  lines.push('');
  lines.push(`Tool use: ${statistics.tools.map(({ tool, count }) => `${tool} ×${count}`).join(', ')}`);
  lines.push(`Files changed: ${statistics.filesChanged.length > 0 ? statistics.filesChanged.join(', ') : 'none'}`);
  if (statistics.filesNotChanged.length > 0) lines.push(`Changes that failed or were denied: ${statistics.filesNotChanged.join(', ')}`);
  const results = [
    `${statistics.succeeded} succeeded`,
    `${statistics.failed} failed${statistics.denied > 0 ? ` (${statistics.denied} denied)` : ''}`,
  ];
  if (statistics.warnings > 0) results.push(`${statistics.warnings} with warnings`);
  if (statistics.unknown > 0) results.push(`${statistics.unknown} without a status`);
  lines.push(`Results: ${results.join(', ')}`);
  return lines.join('\n');
}

function describeEntry(entry: TraceEntry): string {
  const time = entry.time ? shortTime(entry.time) : '(no time)';
  const action = entry.action && entry.action !== 'TOOL_EXECUTION' ? `${entry.action} ` : '';
  const files =
    entry.files.length > 0 ? ` ${entry.files.slice(0, 3).join(', ')}${entry.files.length > 3 ? ` +${entry.files.length - 3}` : ''}` : '';
  const kind = entry.mutation ? ' [write]' : '';
  return `${time} ${action}${entry.tool ?? '-'}${files}${kind} → ${entry.status ?? 'no status'}`;
}

/** `2026-02-21T17:39:20.432Z` → `2026-02-21 17:39:20Z`: seconds are enough to order actions for a reader. */
function shortTime(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(?:\.\d+)?(Z|[+-]\d{2}:?\d{2})?$/.exec(iso);
  return match ? `${match[1]} ${match[2]}${match[3] ?? ''}` : iso;
}
