import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport } from './analyze.js';
import { clineSessionEntries, isClineSession } from './cline-session.js';
import { renderText } from './render-text.js';
import { identifySession } from './session-source.js';
import { SHORT_SESSION_PRUNE, threePlugins } from './test-support.js';

// A real Cline CLI 3.0.65 session (four read_files calls against the loopback stand-in), as Cline stored it.
const fixture = fileURLToPath(new URL('./__fixtures__/cline/cline-3.0.65.messages.json', import.meta.url));
const raw = JSON.parse(readFileSync(fixture, 'utf8'));

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'hookwise-cline-report-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('hookwise report on a Cline session', () => {
  it("is told apart by content: Cline's <id>.messages.json, pretty-printed", async () => {
    expect(isClineSession(raw)).toBe(true);
    expect((await identifySession(fixture)).host).toBe('cline');
  });

  it('reads the typed prompt, the read_files results as the JSON text Cline sends, and each request of its metrics', () => {
    const { sessionId, entries } = clineSessionEntries(raw);
    expect(sessionId).toBe(raw.sessionId);
    const first = entries[0] as { content: Array<{ text: string }> };
    expect(first.content[0]!.text).toBe('read the files');
    const result = entries.find((entry) => entry.type === 'message' && JSON.stringify(entry.content).includes('tool_result')) as {
      content: Array<{ content: unknown }>;
    };
    expect(typeof result.content[0]!.content).toBe('string');
    expect(result.content[0]!.content).toContain('alpha-line-020');
    expect(entries.filter((entry) => entry.type === 'usage')).toHaveLength(
      raw.messages.filter((message: { role: string }) => message.role === 'assistant').length,
    );
  });

  it('gives the figures of the session: requests, tool calls, prompts, peak context, what hookwise did there', async () => {
    const report = await buildReport(fixture, { projectDir: dir, config: await threePlugins(SHORT_SESSION_PRUNE) });
    const assistants = raw.messages.filter((message: { role: string }) => message.role === 'assistant');
    expect(report.host).toBe('cline');
    expect(report.timeline).toHaveLength(assistants.length);
    expect(report.toolCalls).toBe(4);
    expect(report.prompts).toBe(1);
    expect(report.peakContextTokens).toBe(
      Math.max(...assistants.map((message: { metrics: { inputTokens: number } }) => message.metrics.inputTokens)),
    );
    const text = renderText(report);
    expect(text.split('\n')[1]).toContain('host: Cline');
    expect(text).toContain('What hookwise did before every request in Cline');
  });
});
