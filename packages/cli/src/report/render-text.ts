import path from 'node:path';
import { hookLabel } from '@hookwise/core/host';
import type { Report } from './analyze.js';
import { clip, formatNumber, formatPercent, requestTransformsHeading, sessionHostText, stripControl } from './format.js';

const SPARK = '▁▂▃▄▅▆▇█';

/** Context size per response, squeezed into `width` columns (each column shows its largest figure). */
export function sparkline(values: readonly number[], ceiling: number, width = 60): string {
  if (values.length === 0 || ceiling <= 0) return '';
  const columns = Math.min(width, values.length);
  let line = '';
  for (let column = 0; column < columns; column++) {
    const from = Math.floor((column * values.length) / columns);
    const to = Math.max(from + 1, Math.floor(((column + 1) * values.length) / columns));
    let peak = 0;
    for (let index = from; index < to; index++) peak = Math.max(peak, values[index]!);
    line += SPARK[Math.min(SPARK.length - 1, Math.floor((peak / ceiling) * SPARK.length))];
  }
  return line;
}

/** The terminal summary: what a person reads after `hookwise report`. */
export function renderText(report: Report, options: { htmlFile?: string } = {}): string {
  const out: string[] = [];
  const name = path.basename(report.transcript);
  out.push(`hookwise report: ${name}`);
  out.push(`  ${sessionHostText(report.host)}`);
  out.push(
    `  ${formatNumber(report.lines)} lines, ${report.malformedLines === 0 ? 'no malformed lines' : `${formatNumber(report.malformedLines)} malformed line(s) skipped`}; model ${report.model ?? 'unknown'}`,
  );
  const plugins = report.plugins.map((plugin) => `${plugin.name}@${plugin.version}`).join(', ') || 'none';
  out.push(
    `  plugins: ${plugins} (${report.config === 'default' ? 'default set; no hookwise config in the project' : `config ${report.config}`})`,
  );
  if (report.missingPlugins.length > 0) out.push(`  installed but not loadable, so not replayed: ${report.missingPlugins.join(', ')}`);
  out.push('');

  out.push('Context');
  out.push(
    `  peak ${formatNumber(report.peakContextTokens)} tokens (${formatPercent(report.peakContextTokens, report.contextWindow)} of a ${formatNumber(report.contextWindow)} window)` +
      (report.peakLine !== null ? ` at line ${report.peakLine}` : ''),
  );
  out.push(
    `  ${formatNumber(report.timeline.length)} requests, ${formatNumber(report.toolCalls)} tool calls, ${formatNumber(report.prompts)} prompts`,
  );
  const spark = sparkline(
    report.timeline.map((entry) => entry.contextTokens),
    report.contextWindow,
  );
  if (spark !== '') out.push(`  ${spark}  (per request, full height = window)`);
  out.push('');

  // The window each suggestion measured against: once in the heading, again only where it changed.
  const windowOf = (suggestion: Report['suggestions'][number]) =>
    suggestion.contextWindow === null
      ? undefined
      : `${formatNumber(suggestion.contextWindow)}-token window${suggestion.contextWindowAssumed ? ', assumed: nothing confirmed it' : ''}`;
  const firstWindow = report.suggestions.map(windowOf).find((text) => text !== undefined);
  out.push(`Compaction suggestions: ${report.suggestions.length}${firstWindow ? ` (against a ${firstWindow})` : ''}`);
  let shownWindow = firstWindow;
  for (const suggestion of report.suggestions) {
    // Whole: a suggestion is a plugin's sentence with its figures, short by design.
    out.push(
      `  line ${String(suggestion.line).padEnd(6)} ${suggestion.kind.padEnd(19)} ${stripControl(suggestion.reason).replace(/\s+/g, ' ').trim()}`,
    );
    const window = windowOf(suggestion);
    if (window !== undefined && window !== shownWindow) out.push(`    from here against a ${(shownWindow = window)}`);
  }
  out.push('');

  out.push(`Compactions: ${report.compactions.length}`);
  for (const compaction of report.compactions) {
    const before = compaction.preTokens === null ? '?' : formatNumber(compaction.preTokens);
    const after = compaction.postTokens === null ? '?' : formatNumber(compaction.postTokens);
    out.push(
      `  line ${String(compaction.line).padEnd(6)} ${compaction.trigger.padEnd(7)} ${before} → ${after} tokens${compaction.postTokensSource === 'measured' ? ' (after: size of the next request)' : ''}`,
    );
    const preserved =
      compaction.preserved.length > 0 ? compaction.preserved.map((label) => clip(stripControl(label), 60)).join(', ') : 'nothing';
    out.push(
      `    preserved by compact:before hooks: ${preserved}${compaction.instructions ? ` (${formatNumber(compaction.instructions.length)} characters of instructions)` : ''}`,
    );
    if (compaction.blockedBy) out.push(`    blocked by ${compaction.blockedBy}`);
    if (compaction.prune) {
      const share =
        compaction.prune.historyTokens > 0
          ? ` of ${formatNumber(compaction.prune.historyTokens)} (${Math.round((100 * compaction.prune.reclaimedTokens) / compaction.prune.historyTokens)}%)`
          : '';
      out.push(
        `    llm:before transforms on the history compacted: ${formatNumber(compaction.prune.reclaimedTokens)}${share} tokens, ${compaction.prune.parts} part(s)`,
      );
    }
  }
  out.push('');

  const prune = report.prune;
  const arrival = report.outputTransforms;
  out.push(
    `Tool outputs replaced as they arrived (tool:after${report.host === 'claude-code' ? ': the one rewrite Claude Code applies' : report.host === 'codex' ? ': Codex applies none (no hook replaces a tool output there)' : ''}): ${arrival.outputs}`,
  );
  if (arrival.outputs > 0) {
    const tools = Object.entries(arrival.byTool)
      .map(([tool, count]) => `${count} ${tool}`)
      .join(', ');
    out.push(
      `  ${tools}; ${formatNumber(arrival.charsBefore)} → ${formatNumber(arrival.charsAfter)} characters (lines ${arrival.lines.slice(0, 10).join(', ')}${arrival.lines.length > 10 ? ', …' : ''})`,
    );
  }
  out.push('');
  out.push(requestTransformsHeading(report.host));
  out.push('');
  out.push(
    `Pruning (llm:before transforms before every request${prune.method === 'turn' ? `; ${formatNumber(prune.runs)} runs: the first request of each turn stands for the turn` : ''})`,
  );
  if (prune.method === 'not-run') {
    out.push('  not run: no plugin listens on llm:before');
  } else if (prune.requests === 0) {
    out.push('  no request in this session to run it before');
  } else if (prune.requestsPruned === 0) {
    out.push(`  nothing taken out of any of the ${formatNumber(prune.requests)} requests`);
  } else {
    out.push(
      `  would have reclaimed up to ${formatNumber(prune.maxReclaimedTokens)} tokens from one request (line ${prune.maxReclaimedLine}), ${prune.maxParts} part(s) at most`,
    );
    out.push(
      `  ${formatNumber(prune.totalReclaimedTokens)} tokens not sent over the session, ${formatNumber(prune.requestsPruned)} of ${formatNumber(prune.requests)} requests pruned`,
    );
  }
  if (prune.compactionsNeeded) {
    const { without, withPrune } = prune.compactionsNeeded;
    out.push(
      `  compactions needed at an auto-compact point of ${formatNumber(prune.autoCompactTokens)} tokens: ${withPrune} with these transforms, ${without} without`,
    );
  }
  const cost = report.cost;
  if (cost) {
    out.push('');
    out.push(
      'Input cost under prompt caching (reads 0.1×, writes 1.25× for the 5-minute cache, 2× for the 1-hour cache; in tokens at the base input price)',
    );
    for (const lifetime of ['5m', '1h'] as const) {
      out.push(
        `  ${lifetime === '5m' ? '5-minute' : '1-hour  '} writes: ${formatNumber(cost.withPrune[lifetime])} with these transforms, ${formatNumber(cost.without[lifetime])} without: ${cost.ratio[lifetime].toFixed(2)}×`,
      );
    }
    out.push(
      `  edits whose old text the request showed: ${formatNumber(cost.edits.sourced)}; lost (shown only in a replaced output): ${formatNumber(cost.edits.lost)}${cost.edits.lost > 0 ? `, charged as re-reads (${formatNumber(cost.edits.rereadTokens)} tokens), at lines ${cost.edits.lostLines.slice(0, 10).join(', ')}` : ''}`,
    );
    if (cost.spans.length > 1) {
      for (const span of cost.spans)
        out.push(
          `  ${span.compactionLine === null ? 'after the last compaction' : `up to the compaction at line ${span.compactionLine}`}: ${formatNumber(span.withPrune['5m'])} with, ${formatNumber(span.without['5m'])} without (5-minute writes, ${formatNumber(span.requests)} requests)`,
        );
    }
    if (cost.fromUsage)
      out.push(
        `  the model prices the session as sent at ${formatNumber(cost.without['5m'])}; its own usage fields say ${formatNumber(cost.fromUsage['5m'])} (5-minute writes)`,
      );
  }

  if (report.host === 'gemini' && report.timeline.length > 0) {
    // Gemini's implicit cache: cached prompt tokens are billed at a discount and nothing is charged for writing them.
    const input = report.timeline.reduce((sum, entry) => sum + entry.contextTokens, 0);
    const cached = report.timeline.reduce((sum, entry) => sum + entry.cacheReadInputTokens, 0);
    out.push('');
    out.push(
      `Gemini's own usage: ${formatNumber(input)} prompt tokens over ${formatNumber(report.timeline.length)} requests, ${formatNumber(cached)} of them cached (${input > 0 ? Math.round((100 * cached) / input) : 0}%; implicit caching, no write charge)`,
    );
  }

  if (report.notices.length > 0) {
    out.push('');
    out.push(`Other notices: ${report.notices.length}`);
    for (const notice of report.notices.slice(0, 10))
      out.push(`  line ${String(notice.line).padEnd(6)} ${clip(stripControl(notice.text), 110)}`);
    if (report.notices.length > 10) out.push(`  … and ${report.notices.length - 10} more (--json has them all)`);
  }
  if (report.hookErrors.length > 0) {
    out.push('');
    out.push(`Hook errors (skipped, the replay went on): ${report.hookErrors.length}`);
    for (const error of report.hookErrors.slice(0, 10))
      out.push(`  line ${String(error.line).padEnd(6)} ${hookLabel(error, error.point)}: ${clip(stripControl(error.message), 100)}`);
  }
  if (report.malformed.length > 0) {
    out.push('');
    out.push('Malformed lines');
    for (const entry of report.malformed.slice(0, 5))
      out.push(`  line ${String(entry.line).padEnd(6)} ${clip(stripControl(entry.reason), 100)}`);
    if (report.malformedLines > 5) out.push(`  … and ${report.malformedLines - 5} more`);
  }
  if (options.htmlFile) {
    out.push('');
    out.push(`HTML report: ${options.htmlFile}`);
  }
  return `${out.join('\n')}\n`;
}
