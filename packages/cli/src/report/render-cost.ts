import type { Report } from './analyze.js';
import { formatNumber, formatShort } from './format.js';

const WIDTH = 960;
const HEIGHT = 260;
const MARGIN = { top: 16, right: 16, bottom: 36, left: 72 };

/** Input cost so far, request by request, as sent and with the `llm:before` transforms (5-minute writes): two curves. */
export function costChart(report: Report): string {
  const priced = report.timeline.filter((entry) => entry.costWithout !== null && entry.costWithPrune !== null);
  if (priced.length === 0) return '';
  let without = 0;
  let withPrune = 0;
  const points = priced.map((entry) => ({ without: (without += entry.costWithout!), withPrune: (withPrune += entry.costWithPrune!) }));
  const ceiling = Math.max(without, withPrune) || 1;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (index: number) => (MARGIN.left + (points.length === 1 ? 0 : (index * plotWidth) / (points.length - 1))).toFixed(1);
  const y = (value: number) => (MARGIN.top + plotHeight - (value / ceiling) * plotHeight).toFixed(1);
  const curve = (value: (point: { without: number; withPrune: number }) => number) =>
    points.map((point, index) => `${index === 0 ? 'M' : 'L'}${x(index)},${y(value(point))}`).join(' ');
  const svg: string[] = [];
  svg.push(
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart cost-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="cost-title">`,
  );
  svg.push('<title id="cost-title">Input cost under prompt caching so far, per request</title>');
  for (const tick of [0, ceiling / 2, ceiling]) {
    svg.push(`<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tick)}" y2="${y(tick)}"/>`);
    svg.push(`<text x="${MARGIN.left - 8}" y="${Number(y(tick)) + 4}" text-anchor="end">${formatShort(tick)}</text>`);
  }
  svg.push(`<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 8}" text-anchor="middle">request</text>`);
  svg.push(`<path class="cost-curve" d="${curve((point) => point.without)}"><title>as sent: ${formatNumber(without)}</title></path>`);
  svg.push(
    `<path class="cost-prune-curve" d="${curve((point) => point.withPrune)}" stroke-dasharray="6 4"><title>with the transforms: ${formatNumber(withPrune)}</title></path>`,
  );
  svg.push('</svg>');
  return svg.join('\n');
}

/** The cost section: both lifetimes, lost edits, per compaction. */
export function costSection(report: Report): string {
  const cost = report.cost;
  if (!cost) return '<p id="cost-summary">Not priced: the <code>llm:before</code> transforms did not run before every request.</p>';
  const rows = (['5m', '1h'] as const)
    .map(
      (lifetime) =>
        `<tr><td>${lifetime === '5m' ? '5-minute' : '1-hour'} cache writes</td><td class="num">${formatNumber(cost.without[lifetime])}</td><td class="num">${formatNumber(cost.withPrune[lifetime])}</td><td class="num">${cost.ratio[lifetime].toFixed(2)}×</td></tr>`,
    )
    .join('\n');
  const spans =
    cost.spans.length > 1
      ? cost.spans
          .map(
            (span) =>
              `<tr><td>${span.compactionLine === null ? 'after the last compaction' : `up to the compaction at line ${span.compactionLine}`} (5-minute)</td><td class="num">${formatNumber(span.without['5m'])}</td><td class="num">${formatNumber(span.withPrune['5m'])}</td><td class="num">${span.without['5m'] > 0 ? (span.withPrune['5m'] / span.without['5m']).toFixed(2) : '–'}×</td></tr>`,
          )
          .join('\n')
      : '';
  return `<p id="cost-summary">Input cost under prompt caching, in tokens at the base input price (reads 0.1×, writes 1.25× or 2×; the system/tools prefix, ${formatNumber(cost.prefixTokens)} tokens, from the first request). Edits whose old text the request showed: ${formatNumber(cost.edits.sourced)}; lost (shown only in a replaced output, each charged as a re-read): ${formatNumber(cost.edits.lost)}.${cost.fromUsage ? ` The session's own usage fields price it as sent at ${formatNumber(cost.fromUsage['5m'])} (5-minute writes).` : ''}</p>
<table id="cost"><thead><tr><th></th><th>as sent</th><th>with the transforms</th><th>ratio</th></tr></thead><tbody>
${rows}
${spans}
</tbody></table>
<div class="card">
${costChart(report)}
<div class="legend"><span><i style="background:var(--context)"></i>cost so far as sent</span><span><i style="background:var(--prune)"></i>with the llm:before transforms</span></div>
</div>`;
}
