import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, type Report } from './analyze.js';
import { renderText } from './render-text.js';
import { identifySession } from './session-source.js';
import { SHORT_SESSION_PRUNE, threePlugins } from './test-support.js';

const kiloFile = fileURLToPath(new URL('./__fixtures__/kilo/kilo-7.7.9-export.json', import.meta.url));
const openCodeFile = fileURLToPath(new URL('./__fixtures__/opencode/opencode-export.json', import.meta.url));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const exported: any = JSON.parse(readFileSync(kiloFile, 'utf8'));

let dir: string;
let report: Report;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'hookwise-kilo-report-'));
  report = await buildReport(kiloFile, { projectDir: dir, config: await threePlugins(SHORT_SESSION_PRUNE) });
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('hookwise report on a Kilo export', () => {
  it('tells a `kilo export` from an `opencode export` by content (same shape)', async () => {
    expect((await identifySession(kiloFile)).host).toBe('kilo');
    expect((await identifySession(openCodeFile)).host).toBe('opencode');
  });

  it("says the session came from Kilo and reads it with OpenCode's reader: requests, tool calls, the compaction", () => {
    expect(report.host).toBe('kilo');
    expect(report.sessionId).toBe(exported.info.id);
    const text = renderText(report);
    expect(text.split('\n')[1]).toContain('host: Kilo');
    expect(text).toContain('What hookwise did before every request in Kilo');
    // The summary message answers the compaction request, which is not a turn of the conversation.
    const assistants = exported.messages.filter(
      (message: { info: { role: string; summary?: boolean } }) => message.info.role === 'assistant' && message.info.summary !== true,
    );
    expect(report.timeline.length).toBe(assistants.length);
    expect(report.toolCalls).toBe(1);
    expect(report.peakContextTokens).toBe(195_000);
    expect(report.compactions.map((compaction) => compaction.trigger)).toEqual(['auto']);
    expect(report.malformedLines).toBe(0);
  });
});
