import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookwiseConfig } from '@hookwise/core';
import { autoCompactPoint, buildReport, compactionsNeeded, type Report } from './analyze.js';
import { renderText } from './render-text.js';
import { bigSession, fixtureTranscripts, independentFigures, threePlugins } from './test-support.js';

let projectDir: string;
let config: HookwiseConfig;
const reports = new Map<string, Report>();

beforeAll(async () => {
  // hook-suggest logs compactions to a file in the project: keep that out of the repo.
  projectDir = await mkdtemp(path.join(tmpdir(), 'hookwise-report-'));
  config = await threePlugins();
  for (const file of fixtureTranscripts) reports.set(file, await buildReport(file, { projectDir, config }));
});

afterAll(async () => {
  await rm(projectDir, { recursive: true, force: true });
});

describe.each(fixtureTranscripts.map((file) => [path.basename(file), file]))('report on %s', (_name, file) => {
  it('matches the figures computed independently from the file', () => {
    const report = reports.get(file)!;
    const expected = independentFigures(file);
    expect(report.lines).toBe(expected.lines);
    expect(report.malformedLines).toBe(expected.malformed);
    expect(report.toolCalls).toBe(expected.toolCalls);
    expect(report.peakContextTokens).toBe(expected.peakContextTokens);
    expect(report.timeline.map((entry) => [entry.line, entry.contextTokens])).toEqual(
      expected.responses.map((response) => [response.line, response.contextTokens]),
    );
    expect(report.compactions.map((compaction) => [compaction.line, compaction.trigger, compaction.preTokens])).toEqual(
      expected.compactions.map((compaction) => [compaction.line, compaction.trigger ?? 'manual', compaction.preTokens ?? null]),
    );
    expect(report.hookErrors).toEqual([]);
  });

  it('names every suggestion by a line that exists, with a reason', () => {
    const report = reports.get(file)!;
    for (const suggestion of report.suggestions) {
      expect(suggestion.line).toBeGreaterThanOrEqual(1);
      expect(suggestion.line).toBeLessThanOrEqual(suggestion.eventLine);
      expect(suggestion.reason).not.toBe('');
    }
  });
});

describe('the big session (ae4a77f8…)', () => {
  const expected = independentFigures(bigSession);
  const report = () => reports.get(bigSession)!;

  it('has the figures PROVENANCE.md gives', () => {
    expect(report().toolCalls).toBe(242);
    expect(report().lines).toBe(2385);
    expect(report().contextWindow).toBe(200_000);
    expect(report().compactions).toHaveLength(1);
    expect(report().compactions[0]).toMatchObject({ line: 1481, trigger: 'manual', preTokens: 142_431 });
  });

  it('fills in the size after the compaction from the next request', () => {
    const after = expected.responses.find((response) => response.line > 1481)!;
    expect(report().compactions[0]).toMatchObject({ postTokens: after.contextTokens, postTokensSource: 'measured' });
  });

  it('gives hooks the context a live host measures: the recorded usage less what hook-prune took off that request', () => {
    // Recorded, the session reaches 70 % of the window at line 1464 (141,369 tokens); pi and
    // OpenCode measure their last response, which hook-prune pruned: it never gets there.
    const firstAtCapacity = expected.responses.find((response) => response.contextTokens >= 140_000)!;
    expect(firstAtCapacity).toMatchObject({ line: 1464, contextTokens: 141_369 });
    expect(report().suggestions.filter((suggestion) => suggestion.kind.startsWith('capacity'))).toEqual([]);
    const sized = report().suggestions.filter((suggestion) => suggestion.contextTokens !== null);
    expect(sized.length).toBeGreaterThan(0);
    for (const suggestion of sized) {
      const measured = report()
        .timeline.filter((entry) => entry.line < suggestion.eventLine)
        .at(-1)!;
      expect(measured.pruneReclaimedTokens).toBeGreaterThan(0);
      expect(suggestion.contextTokens).toBe(measured.contextWithPruneTokens);
    }
  });

  it('suggests compaction at the 50th tool call (tool_use at line 580)', () => {
    expect(expected.toolUseLines[49]).toBe(580);
    const toolCalls = report().suggestions.filter((suggestion) => suggestion.kind.endsWith('tool-calls'));
    expect(toolCalls[0]).toMatchObject({ line: 580, toolCalls: 50 });
    expect(toolCalls[0]!.reason).toContain('50 tool calls');
  });

  it('re-arms after the compaction: the next tool-call suggestion counts from it', () => {
    const afterCompaction = report().suggestions.filter((suggestion) => suggestion.line > 1481 && suggestion.kind.endsWith('tool-calls'));
    const callsBefore = expected.toolUseLines.filter((line) => line < 1481).length;
    expect(afterCompaction[0]).toMatchObject({ line: expected.toolUseLines[callsBefore + 49] });
  });

  it('never carries the size from before a compaction into events after it', () => {
    const sizedAfter = report().suggestions.filter((suggestion) => suggestion.eventLine > 1481 && suggestion.contextTokens !== null);
    expect(sizedAfter.length).toBeGreaterThan(0);
    for (const suggestion of sizedAfter) expect(suggestion.contextTokens).toBeLessThan(142_431);
  });

  it('has a hook-prune figure for every request', () => {
    expect(report().prune.method).toBe('every-request');
    expect(report().timeline.every((entry) => entry.pruneReclaimedTokens !== null)).toBe(true);
    expect(report().prune.requests).toBe(expected.responses.length);
    expect(report().compactions[0]!.prune).not.toBeNull();
  });

  it('target: at the compaction, hook-prune with its defaults reclaims ≥ 30 % of the history; the session would not have needed a compaction', () => {
    const { compactions, prune, timeline } = report();
    const figure = compactions[0]!.prune!;
    // The same counter for both: the history of 109,208 tokens is core's calibrated estimate of what the compaction summarised.
    console.log(
      `compaction at line ${compactions[0]!.line}: hook-prune reclaims ${figure.reclaimedTokens} of ${figure.historyTokens} history tokens (${((100 * figure.reclaimedTokens) / figure.historyTokens).toFixed(1)} %), ${figure.parts} parts; compactions needed at ${prune.autoCompactTokens}: ${prune.compactionsNeeded!.withPrune} with hook-prune, ${prune.compactionsNeeded!.without} without`,
    );
    expect(figure.reclaimedTokens / figure.historyTokens).toBeGreaterThanOrEqual(0.3);
    expect(prune.autoCompactTokens).toBe(167_000);
    expect(prune.compactionsNeeded).toEqual({ without: 1, withPrune: 0 });
    for (const entry of timeline) expect(entry.contextWithPruneTokens).toBe(entry.contextTokens - entry.pruneReclaimedTokens!);
  });
});

describe('compactionsNeeded (the headline)', () => {
  const points = (...sizes: number[]) => sizes.map((contextTokens, index) => ({ line: (index + 1) * 10, contextTokens }));

  it('counts each time the context reaches the auto-compact point, restarting from the size after a compaction', () => {
    // 170k: the first (back to 50k); then +30k and +90k: 170k again, the second.
    expect(compactionsNeeded(points(50_000, 120_000, 170_000, 200_000, 290_000), [], 167_000, 50_000, () => 0)).toBe(2);
    expect(compactionsNeeded(points(50_000, 166_999), [], 167_000, 50_000, () => 0)).toBe(0);
  });

  it('undoes a recorded compaction: the growth after it is added to the size before it', () => {
    // 140k, compaction at line 25 (restart 45k), then 45k → 75k: 140k + 30k = 170k ≥ 167k.
    expect(compactionsNeeded(points(100_000, 140_000, 45_000, 75_000), [{ line: 25, reclaimedTokens: 0 }], 167_000, 45_000, () => 0)).toBe(
      1,
    );
  });

  it("takes what was reclaimed off each request, and keeps what a recorded compaction's history had reclaimed", () => {
    const sizes = points(100_000, 140_000, 45_000, 75_000);
    expect(compactionsNeeded(sizes, [{ line: 25, reclaimedTokens: 5_000 }], 167_000, 45_000, () => 0)).toBe(0);
    expect(compactionsNeeded(sizes, [{ line: 25, reclaimedTokens: 0 }], 167_000, 45_000, (point) => (point.line === 40 ? 3_001 : 0))).toBe(
      0,
    );
    expect(compactionsNeeded(sizes, [{ line: 25, reclaimedTokens: 0 }], 167_000, 45_000, (point) => (point.line === 40 ? 3_000 : 0))).toBe(
      1,
    );
  });

  it('auto-compacts at window − 33,000 (167,000 of 200,000, 967,000 of 1M)', () => {
    expect(autoCompactPoint(200_000)).toBe(167_000);
    expect(autoCompactPoint(1_000_000)).toBe(967_000);
  });
});

describe('a window given with the session', () => {
  it("reaches every point the plugins see, and is the report's window", async () => {
    const seen = new Map<string, unknown>();
    const config: HookwiseConfig = {
      on: {
        'llm:before': (payload) => void seen.set('llm:before', payload.contextWindow),
        'tool:after': (payload) => void seen.set('tool:after', payload.contextWindow),
      },
    };
    const file = fixtureTranscripts.find((name) => name.endsWith('tool_heavy.jsonl'))!;
    const given = await buildReport(file, { projectDir, config, contextWindow: 1_000_000 });
    expect(Object.fromEntries(seen)).toEqual({ 'llm:before': 1_000_000, 'tool:after': 1_000_000 });
    expect(given.contextWindow).toBe(1_000_000);
    seen.clear();
    expect((await buildReport(file, { projectDir, config })).contextWindow).toBe(200_000);
    expect(Object.fromEntries(seen)).toEqual({ 'llm:before': undefined, 'tool:after': undefined });
  });
});

describe('whether pruning ran', () => {
  // Side-chain lines only: a sub-agent's file, in which the main chain made no request.
  const noRequest = fixtureTranscripts.find((file) => file.includes('/subagents/'))!;

  it('with a plugin on llm:before and no request to run it before, says so: not "no plugin listens"', async () => {
    const report = reports.get(noRequest)!;
    expect(report.timeline).toEqual([]);
    expect(report.prune).toMatchObject({ method: 'every-request', runs: 0, requests: 0 });
    const text = renderText(report);
    expect(text).toContain('no request in this session to run it before');
    expect(text).not.toContain('no plugin listens on llm:before');
  });

  it('without a plugin on llm:before, says that none listens', async () => {
    const report = await buildReport(noRequest, { projectDir, config: { plugins: [] } });
    expect(report.prune.method).toBe('not-run');
    expect(renderText(report)).toContain('not run: no plugin listens on llm:before');
  });
});
