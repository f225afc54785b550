import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, type Report } from './analyze.js';
import { codexRolloutEntries } from './codex-rollout.js';
import { renderText } from './render-text.js';
import { identifySession } from './session-source.js';
import { threePlugins } from './test-support.js';

// A real rollout from adapter-codex's end-to-end run (see __fixtures__/codex/README.md).
const fixture = fileURLToPath(new URL('./__fixtures__/codex/codex-0.169.0-rollout.jsonl', import.meta.url));

describe('hookwise report on a Codex rollout', () => {
  let dir: string;
  let report: Report;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hookwise-codex-report-'));
    await mkdir(path.join(dir, '.codex', 'prompts'), { recursive: true });
    await writeFile(
      path.join(dir, '.codex', 'prompts', 'review-rules.md'),
      '<!-- COMPACT_SUMMARY_START -->\nREVIEW RULES\n<!-- COMPACT_SUMMARY_END -->\n',
    );
    report = await buildReport(fixture, { projectDir: dir, config: await threePlugins() });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is recognised by its first line (session_meta)', async () => {
    expect(await identifySession(fixture)).toEqual({ host: 'codex' });
    const other = path.join(dir, 'other.jsonl');
    await writeFile(other, '{"type":"session_meta"}\n');
    await expect(identifySession(other)).rejects.toThrow(/not a session file/);
  });

  it('reads context over time, tool calls, the prompt and the compaction in Codex terms', () => {
    expect(report.host).toBe('codex');
    expect(report.malformedLines).toBe(0);
    expect(report.toolCalls).toBe(4);
    expect(report.prompts).toBe(1);
    // Four turn requests; the compaction's own summarizer request is no turn.
    expect(report.timeline.map((entry) => entry.contextTokens)).toEqual([20_000, 30_000, 150_000, 12_000]);
    expect(report.timeline.map((entry) => entry.cacheReadInputTokens)).toEqual([16_000, 20_000, 29_000, 0]);
    expect(report.compactions).toHaveLength(1);
    expect(report.compactions[0]).toMatchObject({ trigger: 'auto', preTokens: 150_000 });
    // The typed `/review-rules` is the command hook-precompact keeps (its file is the project's).
    expect(report.compactions[0]!.preserved).toEqual(['/review-rules']);
    expect(report.cost).not.toBeNull();
    const text = renderText(report);
    expect(text).toContain('host: Codex CLI');
    expect(text).toContain('not Codex CLI, whose hooks cannot rewrite its requests');
  });

  it('keeps a malformed line as a counted problem, never a crash', () => {
    const rollout = codexRolloutEntries('{"type":"session_meta","payload":{"id":"abc"}}\nnot json\n{"x":1}\n');
    expect(rollout.sessionId).toBe('abc');
    expect(rollout.entries.filter((entry) => entry.type === 'malformed').map((entry) => entry.line)).toEqual([2, 3]);
  });
});
