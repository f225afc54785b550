import path from 'node:path';
import type { Report, TimelineEntry } from './analyze.js';
import { formatNumber, formatPercent, formatShort, requestTransformsHeading, sessionHostText, stripControl } from './format.js';
import { costSection } from './render-cost.js';

/**
 * One self-contained HTML page: an inline SVG chart (context tokens per request, the window,
 * the context the llm:before transforms would have left, markers for suggestions and compactions) and tables.
 * No script, no external resource: it opens offline and from a mail attachment alike.
 * Everything that comes from the transcript or a plugin is escaped.
 */

export function escapeHtml(text: string): string {
  return stripControl(text).replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

const WIDTH = 1000;
const HEIGHT = 420;
const MARGIN = { left: 72, right: 24, top: 24, bottom: 56 };
const PLOT_WIDTH = WIDTH - MARGIN.left - MARGIN.right;
const PLOT_HEIGHT = HEIGHT - MARGIN.top - MARGIN.bottom;

const round = (value: number) => Math.round(value * 10) / 10;

/** Index of the last request at or before `line` (fractional between requests when `between`). */
function positionOf(timeline: readonly TimelineEntry[], line: number, between = false): number {
  let low = 0;
  let high = timeline.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (timeline[middle]!.line <= line) {
      found = middle;
      low = middle + 1;
    } else high = middle - 1;
  }
  if (!between) return Math.max(0, found);
  return Math.min(timeline.length - 1, found + 0.5);
}

function chart(report: Report): string {
  const timeline = report.timeline;
  const count = timeline.length;
  const yMax = Math.max(report.contextWindow, report.peakContextTokens, 1) * 1.05;
  const x = (index: number) => round(MARGIN.left + (count <= 1 ? PLOT_WIDTH / 2 : (index / (count - 1)) * PLOT_WIDTH));
  const y = (tokens: number) => round(MARGIN.top + PLOT_HEIGHT - (tokens / yMax) * PLOT_HEIGHT);
  const svg: string[] = [];
  svg.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title">`,
  );
  svg.push(`<title id="chart-title">Context tokens per request</title>`);

  // Grid and axes.
  const step = yMax > 600_000 ? 200_000 : yMax > 120_000 ? 50_000 : yMax > 30_000 ? 10_000 : Math.max(1, Math.ceil(yMax / 5));
  svg.push('<g class="axis axis-y">');
  for (let tick = 0; tick <= yMax; tick += step) {
    svg.push(`<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tick)}" y2="${y(tick)}"/>`);
    svg.push(`<text x="${MARGIN.left - 8}" y="${y(tick) + 4}" text-anchor="end">${formatShort(tick)}</text>`);
  }
  svg.push('</g>');
  svg.push('<g class="axis axis-x">');
  const xTicks = Math.min(count, 8);
  for (let tick = 0; tick < xTicks; tick++) {
    const index = xTicks === 1 ? 0 : Math.round((tick / (xTicks - 1)) * (count - 1));
    svg.push(`<text x="${x(index)}" y="${HEIGHT - MARGIN.bottom + 18}" text-anchor="middle">${index + 1}</text>`);
    svg.push(
      `<text class="minor" x="${x(index)}" y="${HEIGHT - MARGIN.bottom + 32}" text-anchor="middle">line ${timeline[index]?.line ?? ''}</text>`,
    );
  }
  svg.push(`<text x="${MARGIN.left + PLOT_WIDTH / 2}" y="${HEIGHT - 6}" text-anchor="middle">request</text>`);
  svg.push(`<line class="axis-line" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(0)}" y2="${y(0)}"/>`);
  svg.push('</g>');

  // The window.
  svg.push(
    `<line class="window-line" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(report.contextWindow)}" y2="${y(report.contextWindow)}" stroke-dasharray="8 5"><title>context window ${formatNumber(report.contextWindow)} tokens</title></line>`,
  );
  svg.push(
    `<text class="window-label" x="${WIDTH - MARGIN.right - 4}" y="${y(report.contextWindow) - 6}" text-anchor="end">window ${formatShort(report.contextWindow)}</text>`,
  );

  // Claude Code's auto-compact point: where the with-prune curve has to stay below.
  const autoCompact = report.prune.autoCompactTokens;
  svg.push(
    `<line class="auto-compact-line" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(autoCompact)}" y2="${y(autoCompact)}" stroke-dasharray="2 4"><title>Claude Code compacts by itself at ${formatNumber(autoCompact)} tokens</title></line>`,
  );
  svg.push(
    `<text class="window-label" x="${WIDTH - MARGIN.right - 4}" y="${y(autoCompact) - 6}" text-anchor="end">auto-compact ${formatShort(autoCompact)}</text>`,
  );

  // Compactions first, so the curves are drawn over them.
  report.compactions.forEach((compaction, index) => {
    const at = x(positionOf(timeline, compaction.line, true));
    const label = `compaction at line ${compaction.line} (${compaction.trigger}): ${compaction.preTokens === null ? '?' : formatNumber(compaction.preTokens)} → ${compaction.postTokens === null ? '?' : formatNumber(compaction.postTokens)} tokens`;
    svg.push(
      `<g class="marker marker-compaction" id="compaction-${index + 1}" data-line="${compaction.line}"><title>${escapeHtml(label)}</title>` +
        `<line x1="${at}" x2="${at}" y1="${MARGIN.top}" y2="${y(0)}"/>` +
        `<text x="${at + 4}" y="${MARGIN.top + 12}">compaction</text></g>`,
    );
  });

  if (count > 0) {
    const curve = (value: (entry: TimelineEntry) => number) =>
      timeline.map((entry, index) => `${index === 0 ? 'M' : 'L'}${x(index)},${y(value(entry))}`).join(' ');
    svg.push(`<path class="context-curve" d="${curve((entry) => entry.contextTokens)}"><title>context tokens per request</title></path>`);
    // Dashed and on top, so it stays visible where the transforms changed nothing and the curves meet.
    svg.push(
      `<path class="prune-curve" d="${curve((entry) => entry.contextWithPruneTokens ?? entry.contextTokens)}" stroke-dasharray="6 4"><title>context with the llm:before transforms before each request</title></path>`,
    );
  }

  report.suggestions.forEach((suggestion, index) => {
    const position = positionOf(timeline, suggestion.line);
    const entry = timeline[position];
    const cy = y(entry ? entry.contextTokens : 0);
    svg.push(
      `<g class="marker marker-suggestion" id="suggestion-${index + 1}" data-line="${suggestion.line}" data-kind="${escapeHtml(suggestion.kind)}"><title>${escapeHtml(`line ${suggestion.line}: ${suggestion.reason}`)}</title>` +
        `<circle cx="${x(position)}" cy="${cy}" r="7"/><text x="${x(position)}" y="${cy - 12}" text-anchor="middle">${index + 1}</text></g>`,
    );
  });
  svg.push('</svg>');
  return svg.join('\n');
}

const STYLE = `
:root { color-scheme: light; --ink: #1d2330; --muted: #5d6677; --line: #d8dde6; --context: #2563eb; --prune: #16a34a; --suggest: #d97706; --compact: #9333ea; --window: #dc2626; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #f6f7f9; }
main { max-width: 1080px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.sub { color: var(--muted); margin: 0 0 16px; word-break: break-all; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(170px, 1fr)); gap: 12px; margin: 16px 0; }
.figure { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; }
.figure b { display: block; font-size: 20px; } .figure span { color: var(--muted); font-size: 13px; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 12px; }
.chart { width: 100%; height: auto; display: block; }
.chart text { font-size: 12px; fill: var(--muted); } .chart .minor { font-size: 10px; }
.grid { stroke: #eef0f4; } .axis-line { stroke: #9aa3b2; }
.context-curve { fill: none; stroke: var(--context); stroke-width: 2.2; }
.prune-curve { fill: none; stroke: var(--prune); stroke-width: 2; stroke-opacity: .85; }
.cost-curve { fill: none; stroke: var(--context); stroke-width: 2; }
.cost-prune-curve { fill: none; stroke: var(--prune); stroke-width: 2; }
.auto-compact-line { stroke: var(--window); stroke-width: 1; stroke-opacity: .6; }
.window-line { stroke: var(--window); stroke-width: 1.5; } .window-label { fill: var(--window) !important; }
.marker-suggestion circle { fill: var(--suggest); stroke: #fff; stroke-width: 2; } .marker-suggestion text { fill: var(--suggest) !important; font-weight: 600; }
.marker-compaction line { stroke: var(--compact); stroke-width: 2; stroke-dasharray: 2 3; } .marker-compaction text { fill: var(--compact) !important; }
.legend { display: flex; flex-wrap: wrap; gap: 18px; color: var(--muted); font-size: 13px; margin: 8px 4px 0; }
.legend i { display: inline-block; width: 18px; height: 3px; vertical-align: middle; margin-right: 6px; }
table { width: 100%; border-collapse: collapse; background: #fff; border: 1px solid var(--line); border-radius: 8px; font-size: 14px; }
th, td { text-align: left; padding: 7px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f0f2f6; font-weight: 600; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.empty { color: var(--muted); font-style: italic; }
details summary { cursor: pointer; color: var(--muted); margin: 8px 0; }
pre { white-space: pre-wrap; word-break: break-word; font-size: 12px; max-height: 240px; overflow: auto; background: #f6f7f9; padding: 8px; border-radius: 6px; margin: 6px 0 0; }
`;

function figure(value: string, label: string): string {
  return `<div class="figure"><b>${value}</b><span>${label}</span></div>`;
}

function table(id: string, headers: string[], rows: string[][], empty: string): string {
  if (rows.length === 0) return `<p class="empty" id="${id}">${empty}</p>`;
  const head = headers.map((header) => `<th>${header}</th>`).join('');
  const body = rows.map((cells) => `<tr>${cells.join('')}</tr>`).join('\n');
  return `<table id="${id}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

const cell = (text: string) => `<td>${text}</td>`;
const numberCell = (value: number | null) => `<td class="num">${value === null ? '–' : formatNumber(value)}</td>`;

export function renderHtml(report: Report): string {
  const name = path.basename(report.transcript);
  const prune = report.prune;
  const suggestionRows = report.suggestions.map((suggestion, index) => [
    numberCell(index + 1),
    numberCell(suggestion.line),
    cell(escapeHtml(suggestion.kind)),
    numberCell(suggestion.contextTokens),
    cell(
      suggestion.contextWindow === null
        ? ''
        : `${formatNumber(suggestion.contextWindow)}${suggestion.contextWindowAssumed ? ' (assumed)' : ''}`,
    ),
    numberCell(suggestion.toolCalls),
    cell(escapeHtml(suggestion.reason)),
  ]);
  const compactionRows = report.compactions.map((compaction) => [
    numberCell(compaction.line),
    cell(escapeHtml(compaction.trigger)),
    numberCell(compaction.preTokens),
    `<td class="num">${compaction.postTokens === null ? '–' : formatNumber(compaction.postTokens)}${compaction.postTokensSource === 'measured' ? ' <small>(next request)</small>' : ''}</td>`,
    cell(
      (compaction.preserved.length > 0 ? escapeHtml(compaction.preserved.join(', ')) : '<span class="empty">nothing</span>') +
        (compaction.instructions
          ? `<details><summary>instructions added (${formatNumber(compaction.instructions.length)} characters)</summary><pre>${escapeHtml(compaction.instructions)}</pre></details>`
          : '') +
        (compaction.blockedBy ? `<br>blocked by ${escapeHtml(compaction.blockedBy)}` : ''),
    ),
    compaction.prune
      ? `<td class="num">${formatNumber(compaction.prune.reclaimedTokens)} <small>of ${formatNumber(compaction.prune.historyTokens)} (${formatPercent(compaction.prune.reclaimedTokens, compaction.prune.historyTokens)}), ${compaction.prune.parts} parts</small></td>`
      : numberCell(null),
  ]);
  const runs =
    prune.method === 'turn'
      ? ` (run ${formatNumber(prune.runs)} times through the engine: on the first request of each turn, whose figure holds for the whole turn, and on each compaction)`
      : '';
  const pruneText =
    prune.method === 'not-run'
      ? 'Not run: no plugin listens on <code>llm:before</code>.'
      : prune.requests === 0
        ? 'No request in this session to run it before.'
        : prune.requestsPruned === 0
          ? `Nothing would be taken out of any of the ${formatNumber(prune.requests)} requests${runs}.`
          : `${formatNumber(prune.requestsPruned)} of ${formatNumber(prune.requests)} requests would be pruned${runs}: up to ${formatNumber(prune.maxReclaimedTokens)} tokens (${prune.maxParts} parts) from one request, ${formatNumber(prune.totalReclaimedTokens)} tokens not sent over the session.`;
  const noticeRows = report.notices.map((notice) => [
    numberCell(notice.line),
    cell(escapeHtml(notice.point)),
    cell(`<pre>${escapeHtml(notice.text)}</pre>`),
  ]);
  const errorRows = report.hookErrors.map((error) => [
    numberCell(error.line),
    cell(escapeHtml(error.point)),
    cell(escapeHtml(`${error.pluginName} › ${error.hookName}`)),
    cell(escapeHtml(`${error.kind}: ${error.message}`)),
  ]);
  const timelineRows = report.timeline.map((entry, index) => [
    numberCell(index + 1),
    numberCell(entry.line),
    numberCell(entry.contextTokens),
    numberCell(entry.inputTokens),
    numberCell(entry.cacheReadInputTokens),
    numberCell(entry.cacheCreationInputTokens),
    numberCell(entry.toolCalls),
    numberCell(entry.pruneReclaimedTokens),
  ]);

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>hookwise report: ${escapeHtml(name)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>hookwise report</h1>
<p class="sub">${escapeHtml(sessionHostText(report.host))}</p>
<p class="sub">${escapeHtml(report.transcript)} · ${formatNumber(report.lines)} lines · model ${escapeHtml(report.model ?? 'unknown')} · plugins: ${escapeHtml(report.plugins.map((plugin) => `${plugin.name}@${plugin.version}`).join(', ') || 'none')}</p>
<div class="figures">
${figure(formatNumber(report.peakContextTokens), `peak context tokens (${formatPercent(report.peakContextTokens, report.contextWindow)} of ${formatShort(report.contextWindow)})`)}
${figure(formatNumber(report.timeline.length), 'requests')}
${figure(formatNumber(report.toolCalls), 'tool calls')}
${figure(formatNumber(report.suggestions.length), 'suggestions')}
${figure(formatNumber(report.compactions.length), 'compactions')}
${figure(formatNumber(prune.maxReclaimedTokens), 'most tokens taken out of one request')}
${prune.compactionsNeeded ? figure(`${prune.compactionsNeeded.withPrune} / ${prune.compactionsNeeded.without}`, `compactions needed with / without the transforms (auto-compact at ${formatShort(prune.autoCompactTokens)})`) : ''}
${figure(formatNumber(report.malformedLines), 'malformed lines')}
</div>
<div class="card">
${chart(report)}
<div class="legend"><span><i style="background:var(--context)"></i>context tokens per request</span><span><i style="background:var(--prune)"></i>with the llm:before transforms before each request</span><span><i style="background:var(--window)"></i>context window</span><span><i style="background:var(--suggest)"></i>suggestion</span><span><i style="background:var(--compact)"></i>compaction</span></div>
</div>
<h2>Compaction suggestions</h2>
${table('suggestions', ['#', 'line', 'kind', 'context', 'window', 'tool calls', 'reason'], suggestionRows, 'No plugin would have suggested compacting.')}
<h2>Compactions</h2>
${table('compactions', ['line', 'trigger', 'tokens before', 'tokens after', 'preserved (compact:before)', 'llm:before on that history'], compactionRows, 'No compaction in this session.')}
<h2 id="request-transforms">${escapeHtml(requestTransformsHeading(report.host))}</h2>
<h3>Pruning (llm:before)</h3>
<p id="prune-summary">${pruneText}</p>
<h3>Input cost under prompt caching</h3>
${costSection(report)}
${noticeRows.length > 0 ? `<h2>Other notices</h2>\n${table('notices', ['line', 'event', 'notice'], noticeRows, '')}` : ''}
${errorRows.length > 0 ? `<h2>Hook errors</h2>\n${table('hook-errors', ['line', 'event', 'hook', 'error'], errorRows, '')}` : ''}
${
  report.malformedLines > 0
    ? `<h2>Malformed lines</h2>\n${table(
        'malformed',
        ['line', 'reason'],
        report.malformed.map((entry) => [numberCell(entry.line), cell(escapeHtml(entry.reason))]),
        '',
      )}`
    : ''
}
<h2>Requests</h2>
<details><summary>all ${formatNumber(report.timeline.length)} requests</summary>
${table('timeline', ['#', 'line', 'context', 'input', 'cache read', 'cache creation', 'tool calls before', 'llm:before reclaims'], timelineRows, 'No request with usage in this transcript.')}
</details>
</main>
</body>
</html>
`;
}
