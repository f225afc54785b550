import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportCommand } from './command.js';
import { fixtureTranscripts } from './test-support.js';

const fixturesDir = new URL('../../../../fixtures/', import.meta.url).pathname;

const toolHeavy = fixtureTranscripts.find((file) => file.endsWith('tool_heavy.jsonl'))!;
let project: string;

beforeAll(async () => {
  project = await mkdtemp(path.join(tmpdir(), 'hookwise-report-command-'));
  // No plugins: these tests are about the command, not about what plugins say.
  await writeFile(path.join(project, 'hookwise.config.json'), JSON.stringify({ plugins: {} }));
});

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  return { stream, text: () => text };
}

describe('hookwise report', () => {
  it('prints the documented JSON shape on stdout with --json, and nothing else', async () => {
    const stdout = capture();
    const stderr = capture();
    const code = await reportCommand({
      transcript: toolHeavy,
      json: true,
      projectDir: project,
      stdout: stdout.stream,
      stderr: stderr.stream,
    });
    expect(code).toBe(0);
    const report = JSON.parse(stdout.text());
    expect(Object.keys(report).sort()).toEqual(
      [
        'schemaVersion',
        'cost',
        'host',
        'outputTransforms',
        'transcript',
        'sessionId',
        'model',
        'lines',
        'malformedLines',
        'malformed',
        'contextWindow',
        'peakContextTokens',
        'peakLine',
        'toolCalls',
        'prompts',
        'plugins',
        'config',
        'missingPlugins',
        'timeline',
        'suggestions',
        'compactions',
        'prune',
        'notices',
        'hookErrors',
      ].sort(),
    );
    expect(report).toMatchObject({
      schemaVersion: 1,
      toolCalls: 6,
      lines: 39,
      contextWindow: 200_000,
      plugins: [],
      prune: { method: 'not-run' },
    });
    expect(Object.keys(report.timeline[0]).sort()).toEqual(
      [
        'cacheCreationInputTokens',
        'cacheReadInputTokens',
        'contextTokens',
        'cacheTokens',
        'contextWithPruneTokens',
        'costWithPrune',
        'costWithout',
        'inputTokens',
        'line',
        'prunedParts',
        'pruneReclaimedTokens',
        'toolCalls',
      ].sort(),
    );
    expect(stderr.text()).toBe('');
  });

  it('prints a readable summary and writes the HTML page where asked', async () => {
    const lines: string[] = [];
    const html = path.join(project, 'out', 'report.html');
    const code = await reportCommand({
      transcript: toolHeavy,
      json: false,
      html,
      projectDir: project,
      stdout: (text) => lines.push(text),
      stderr: (text) => lines.push(`ERR ${text}`),
    });
    expect(code).toBe(0);
    const text = lines.join('');
    expect(text).toContain('hookwise report: tool_heavy.jsonl');
    expect(text).toContain('6 tool calls');
    expect(text).toContain(`HTML report: ${html}`);
    expect(await readFile(html, 'utf8')).toMatch(/^<!doctype html>/);
  });

  it('fails with a clear message and exit 1 when the transcript cannot be read', async () => {
    const stderr = capture();
    const missing = path.join(project, 'nope.jsonl');
    const code = await reportCommand({
      transcript: missing,
      json: true,
      projectDir: project,
      stdout: capture().stream,
      stderr: stderr.stream,
    });
    expect(code).toBe(1);
    expect(stderr.text()).toContain(`cannot read the transcript ${missing}`);
  });

  it.each([
    ['a JSON line of something else', '{"a":1}\n'],
    ["a Roo fork's intent trace", null],
    ['an empty file', ''],
    ['plain text', 'hello\nworld\n'],
  ])('refuses %s in one line naming what it expected, exit 1', async (_what, text) => {
    const file =
      text === null
        ? path.join(fixturesDir, 'roo-intent-trace/tedoaba-roo-code/agent_trace.jsonl')
        : path.join(project, `not-a-session-${Math.random().toString(36).slice(2)}.jsonl`);
    if (text !== null) await writeFile(file, text);
    const stdout = capture();
    const stderr = capture();
    const code = await reportCommand({ transcript: file, json: true, projectDir: project, stdout: stdout.stream, stderr: stderr.stream });
    expect(code).toBe(1);
    expect(stdout.text()).toBe('');
    const lines = stderr.text().trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/expected a Claude Code transcript .*an OpenCode export .*a pi session file/);
  });

  it('fails with the config error and exit 1 when the project config is invalid', async () => {
    const broken = await mkdtemp(path.join(tmpdir(), 'hookwise-report-broken-'));
    try {
      await writeFile(path.join(broken, 'hookwise.config.json'), '{ "plugins": ');
      const stderr = capture();
      const code = await reportCommand({
        transcript: toolHeavy,
        json: false,
        projectDir: broken,
        stdout: capture().stream,
        stderr: stderr.stream,
      });
      expect(code).toBe(1);
      expect(stderr.text()).toMatch(/hookwise report: .*not valid JSON/);
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});
