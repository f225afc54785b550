import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identifySession, SessionFormatError } from './session-source.js';
import { fixtureTranscripts, reportJsonOn } from './test-support.js';

const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));
const rooTrace = here('../../../../fixtures/roo-intent-trace/tedoaba-roo-code/agent_trace.jsonl');
const exportFile = here('__fixtures__/opencode/opencode-export.json');
const piFile = here('__fixtures__/pi/pi-session-long.jsonl');
const shortTranscript = fixtureTranscripts.find((file) => file.endsWith('short.jsonl'))!;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'hookwise-session-source-'));
  // No plugins: these tests are about which files the report reads.
  await writeFile(path.join(dir, 'hookwise.config.json'), JSON.stringify({ plugins: {} }));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function write(name: string, text: string): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, text);
  return file;
}

describe('which host a session file comes from, by its content', () => {
  it('tells every Claude Code fixture, the OpenCode export and the pi session apart, whatever their names', async () => {
    for (const file of fixtureTranscripts) expect((await identifySession(file)).host, path.basename(file)).toBe('claude-code');
    expect((await identifySession(exportFile)).host).toBe('opencode');
    expect((await identifySession(piFile)).host).toBe('pi');
    const renamed = path.join(dir, 'session.json');
    await copyFile(piFile, renamed);
    expect((await identifySession(renamed)).host).toBe('pi');
  });

  it('finds a Claude Code transcript whose first line is longer than the 64 KiB it looks at first', async () => {
    const pasted = JSON.stringify({ type: 'user', message: { role: 'user', content: 'x'.repeat(200_000) } });
    const file = await write('long-first-line.jsonl', `${pasted}\n${await readFile(shortTranscript, 'utf8')}`);
    expect((await identifySession(file)).host).toBe('claude-code');
  });

  it('refuses what no host writes, in one line that names the three formats it reads', async () => {
    const cases: Array<[string, string, RegExp]> = [
      ['object.jsonl', '{"a":1}\n', /is JSON but not a session file/],
      ['roo.jsonl', await readFile(rooTrace, 'utf8'), /is JSONL but not a session file/],
      ['empty.jsonl', '', /is empty/],
      ['notes.jsonl', 'hello\n', /is not JSON/],
      ['lines.jsonl', '{"event":"start"}\n{"event":"stop"}\n', /is JSONL but not a session file/],
    ];
    for (const [name, text, reason] of cases) {
      const error = await identifySession(await write(name, text)).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error, name).toBeInstanceOf(SessionFormatError);
      const message = (error as Error).message;
      expect(message, name).toMatch(reason);
      expect(message, name).not.toContain('\n');
      for (const format of ['a Claude Code transcript', 'an OpenCode export', 'a pi session file']) expect(message, name).toContain(format);
    }
  });
});

describe('hookwise report on a file it does not read', () => {
  it('exits 1 with one line on stderr and nothing on stdout, for {"a":1} and the Roo Code trace', async () => {
    for (const [name, text] of [
      ['a.jsonl', '{"a":1}\n'],
      ['agent_trace.jsonl', await readFile(rooTrace, 'utf8')],
    ] as const) {
      const result = await reportJsonOn(dir, name, text);
      expect(result.code, name).toBe(1);
      expect(result.stdout, name).toBe('');
      expect(result.stderr, name).toMatch(
        /^hookwise report: .* but not a session file: expected a Claude Code transcript .*, an OpenCode export .*, a pi session file .*, a Gemini CLI session file .*, a Cline session .* or a Codex rollout .*\n$/,
      );
      expect(result.stderr.trimEnd().split('\n'), name).toHaveLength(1);
    }
  });
});
