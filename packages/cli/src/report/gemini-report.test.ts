import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, type Report } from './analyze.js';
import { renderText } from './render-text.js';
import { geminiSessionEntries } from './gemini-session.js';
import { identifySession } from './session-source.js';
import { threePlugins } from './test-support.js';
import { readFileSync } from 'node:fs';

// A real Gemini CLI 0.61.0 session file (see __fixtures__/gemini/README.md): `/babysit` with two
// tool calls, then `--resume` with a response reporting 900,000 prompt tokens, one compression and two more calls.
const fixture = fileURLToPath(new URL('./__fixtures__/gemini/gemini-0.61.0-session.jsonl', import.meta.url));

describe('hookwise report on a Gemini CLI session file', () => {
  let dir: string;
  let report: Report;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'hookwise-gemini-report-'));
    await writeFile(path.join(dir, 'babysit.toml'), '');
    report = await buildReport(fixture, { projectDir: dir, config: await threePlugins() });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is recognised by its first line', async () => {
    expect(await identifySession(fixture)).toEqual({ host: 'gemini' });
  });

  it('counts each tool call once although Gemini writes a response twice and --resume repeats results', () => {
    expect(report.host).toBe('gemini');
    expect(report.toolCalls).toBe(4);
    expect(report.prompts).toBe(2);
    expect(report.model).toBe('gemini-2.5-flash');
  });

  it("reads the context over time from Gemini's tokens and the compression from the `<state_snapshot>` history", () => {
    expect(report.timeline).toHaveLength(5);
    expect(report.peakContextTokens).toBe(900_000);
    expect(report.compactions).toEqual([expect.objectContaining({ trigger: 'auto', preTokens: 900_000, postTokens: 12_306 })]);
  });

  it('puts a compression after the results of the turn it interrupted, as it happened: the suggestion at the third call comes first', () => {
    // Gemini writes the call's result after the compression that ran before the request carrying it.
    expect(report.suggestions).toHaveLength(1);
    expect(report.suggestions[0]!.line).toBeLessThan(report.compactions[0]!.line);
  });

  it("states Gemini's own usage: prompt tokens and the implicitly cached share", () => {
    expect(renderText(report)).toContain(
      "Gemini's own usage: 949,144 prompt tokens over 5 requests, 0 of them cached (0%; implicit caching, no write charge)",
    );
  });

  it('passes the custom command Gemini expanded as the command that ran', () => {
    const { entries } = geminiSessionEntries(readFileSync(fixture, 'utf8'));
    const prompt = entries.find((entry) => entry.type === 'message' && entry.role === 'user') as { content: Array<{ text?: string }> };
    expect(prompt.content[0]!.text).toBe('<command-name>/babysit</command-name><command-args></command-args>');
  });
});
