import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookwiseConfig } from '@hookwise/core';
import { buildReport, type Report } from './analyze.js';
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
    expect(report.timeline.map((entry) => [entry.line, entry.contextTokens])).toEqual(expected.responses.map((response) => [response.line, response.contextTokens]));
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

  it('suggests compaction at capacity on the first response at ≥ 70 % of the window (line 1464)', () => {
    const firstAtCapacity = expected.responses.find((response) => response.contextTokens >= 140_000)!;
    expect(firstAtCapacity.line).toBe(1464);
    const capacity = report().suggestions.filter((suggestion) => suggestion.kind.startsWith('capacity'));
    expect(capacity[0]).toMatchObject({ line: firstAtCapacity.line, contextTokens: firstAtCapacity.contextTokens });
    expect(capacity[0]!.reason).toContain('71%');
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
    for (const suggestion of report().suggestions) {
      if (suggestion.eventLine > 1481 && suggestion.contextTokens !== null) expect(suggestion.contextTokens).toBeLessThan(142_431);
    }
  });

  it('has a hook-prune figure for every request', () => {
    expect(report().prune.method).toBe('turn');
    expect(report().timeline.every((entry) => entry.pruneReclaimedTokens !== null)).toBe(true);
    expect(report().prune.requests).toBe(expected.responses.length);
    expect(report().compactions[0]!.prune).not.toBeNull();
  });
});
