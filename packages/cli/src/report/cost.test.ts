import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookwiseConfig } from '@hookwise/core';
import { buildReport, type Report } from './analyze.js';
import { bigSession, threePlugins } from './test-support.js';

let projectDir: string;
let report: Report;
let windowReport: Report;

beforeAll(async () => {
  projectDir = await mkdtemp(path.join(tmpdir(), 'hookwise-cost-'));
  const config: HookwiseConfig = await threePlugins();
  report = await buildReport(bigSession, { projectDir, config });
  const prune = (await import('../../../hook-prune/src/index.js')).default;
  windowReport = await buildReport(bigSession, { projectDir, config: { plugins: [prune({ policy: 'window' })] } });
});

afterAll(async () => {
  await rm(projectDir, { recursive: true, force: true });
});

describe('input cost under prompt caching, on the recorded session', () => {
  it('prices every request both ways, and the model lands within 10 % of what the transcript says was paid', () => {
    const cost = report.cost!;
    expect(cost.requests).toBe(report.prune.requests);
    expect(cost.prefixTokens).toBeGreaterThan(5_000);
    const check = cost.fromUsage!['5m'] / cost.without['5m'];
    expect(check).toBeGreaterThan(0.9);
    expect(check).toBeLessThan(1.1);
    // The timeline's per-request figures add up to the totals (lost edits' re-reads aside).
    const sum = report.timeline.reduce((total, entry) => total + (entry.costWithout ?? 0), 0);
    expect(sum).toBeCloseTo(cost.without['5m'], 3);
  });

  it('gives each request its cache tokens, which re-priced at the same rates give its costs', () => {
    const { prefixTokens } = report.cost!;
    const priced = report.timeline.filter((entry) => entry.cacheTokens !== null);
    expect(priced.length).toBe(report.cost!.requests);
    priced.forEach((entry, index) => {
      const price = (figures: { readTokens: number; writeTokens: number }) =>
        (index === 0 ? 1.25 : 0.1) * prefixTokens + 0.1 * figures.readTokens + 1.25 * figures.writeTokens;
      expect(price(entry.cacheTokens!.without)).toBeCloseTo(entry.costWithout!, 6);
      expect(price(entry.cacheTokens!.withPrune)).toBeCloseTo(entry.costWithPrune!, 6);
    });
    // The pruned requests send fewer tokens in all.
    const sent = (side: 'without' | 'withPrune') =>
      priced.reduce((sum, entry) => sum + entry.cacheTokens![side].readTokens + entry.cacheTokens![side].writeTokens, 0);
    expect(sent('withPrune')).toBeLessThan(sent('without'));
  });

  it('1-hour writes cost more than 5-minute writes, both ways', () => {
    const cost = report.cost!;
    expect(cost.without['1h']).toBeGreaterThan(cost.without['5m']);
    expect(cost.withPrune['1h']).toBeGreaterThan(cost.withPrune['5m']);
  });

  it('the default policy costs less than not pruning and than the window policy, and loses no sourced edit here', () => {
    const cost = report.cost!;
    const window = windowReport.cost!;
    expect(cost.edits.sourced).toBeGreaterThan(30);
    // At most 1 lost edit per 30 whose text the requests showed.
    expect(cost.edits.lost).toBeLessThanOrEqual(cost.edits.sourced / 30);
    expect(cost.ratio['5m']).toBeLessThan(1);
    expect(cost.ratio['5m']).toBeLessThan(window.ratio['5m']);
    expect(cost.ratio['1h']).toBeLessThan(window.ratio['1h']);
    // Still avoids the session's compaction.
    expect(report.prune.compactionsNeeded).toEqual({ without: 1, withPrune: 0 });
  });

  it('splits the session at its compaction: the spans add up to the whole', () => {
    const { spans, without, withPrune } = report.cost!;
    expect(spans.map((span) => span.compactionLine)).toEqual([report.compactions[0]!.line, null]);
    expect(spans.reduce((sum, span) => sum + span.without['5m'], 0)).toBeCloseTo(without['5m'], 3);
    expect(spans.reduce((sum, span) => sum + span.withPrune['5m'], 0)).toBeCloseTo(withPrune['5m'], 3);
  });
});
