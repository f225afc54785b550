import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { readContextTokens, readLastAssistantText, readTranscriptTail } from './transcript-tail.js';

const fixturesRoot = fileURLToPath(new URL('../../../../fixtures/', import.meta.url));
const bigSession = path.join(fixturesRoot, 'claude-code-transcripts/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
/** The compaction that just happened: a boundary no measured request follows yet. */
const readCompactionFromTranscript = async (file: string) => (await readTranscriptTail(file)).compaction;

let directory: string;
let bigLines: string[];

beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'hw-suggest-tail-'));
  bigLines = (await readFile(bigSession, 'utf8')).split('\n');
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

let fileNumber = 0;
async function transcript(lines: string[], ending = '\n'): Promise<string> {
  const file = path.join(directory, `t${++fileNumber}.jsonl`);
  await writeFile(file, lines.join('\n') + ending);
  return file;
}
/** The big session's first `count` lines, as the transcript looked at that moment. */
const bigUpTo = (count: number) => transcript(bigLines.slice(0, count));

function assistant(usage: Record<string, number>, extra: Record<string, unknown> = {}, text = 'ok'): string {
  return JSON.stringify({
    type: 'assistant',
    uuid: `a${++fileNumber}`,
    isSidechain: false,
    message: { id: 'msg_1', model: 'claude-opus-4-6', role: 'assistant', content: [{ type: 'text', text }], usage },
    ...extra,
  });
}
const user = (text: string) => JSON.stringify({ type: 'user', isSidechain: false, message: { role: 'user', content: text } });
const boundary = (metadata: Record<string, unknown>, key = 'compactMetadata') =>
  JSON.stringify({ type: 'system', subtype: 'compact_boundary', uuid: 'b1', content: 'Conversation compacted', [key]: metadata });

describe('readContextTokens on the recorded session', () => {
  it('sums input, cache-read and cache-creation tokens of the last assistant line (line 1464: 141,369)', async () => {
    const reading = await readContextTokens(await bigUpTo(1464));
    expect(reading).toMatchObject({ contextTokens: 141_369, source: 'usage' });
    expect(reading?.usage).toMatchObject({
      inputTokens: 0,
      cacheReadInputTokens: 138_620,
      cacheCreationInputTokens: 2_749,
      model: 'claude-haiku-4-5-20251001',
    });
  });

  it('agrees with a full parse of the whole file', async () => {
    let expected: number | undefined;
    for (const text of bigLines) {
      if (!text.trim()) continue;
      const record = JSON.parse(text) as { type?: string; isSidechain?: boolean; message?: { usage?: Record<string, number> } };
      const usage = record.message?.usage;
      if (record.type !== 'assistant' || record.isSidechain || !usage) continue;
      const total = (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
      if (total > 0) expected = total;
    }
    expect(expected).toBeGreaterThan(0);
    expect((await readContextTokens(bigSession))?.contextTokens).toBe(expected);
  });

  it('finds the compaction right after the boundary, and no size until the next turn', async () => {
    const file = await bigUpTo(1482);
    expect(await readCompactionFromTranscript(file)).toEqual({
      line: 0,
      trigger: 'manual',
      preTokens: 142_431,
      uuid: '434dc859-6299-4713-8613-d28662692f06',
      timestamp: '2026-02-12T14:48:36.922Z',
    });
    // The last usage (line 1473) describes the context before compaction; the boundary has no postTokens.
    expect(await readContextTokens(file)).toBeUndefined();
    expect((await readTranscriptTail(file)).usage?.contextTokens).toBe(141_787);
  });

  it('does not take an old compaction for a new one once a turn follows it', async () => {
    const file = await bigUpTo(1495);
    expect(await readCompactionFromTranscript(file)).toBeUndefined();
    expect((await readContextTokens(file))?.contextTokens).toBe(45_263);
  });

  it('reads only the end of the file', async () => {
    // The last assistant line of the session sits in its last few lines: a read capped far below
    // the file size still finds it.
    const size = Buffer.byteLength(bigLines.join('\n'));
    const tailBytes = Buffer.byteLength(bigLines.slice(-30).join('\n'));
    expect(tailBytes).toBeLessThan(size / 10);
    const reading = await readContextTokens(bigSession, { maxBytes: tailBytes });
    expect(reading?.contextTokens).toBe((await readContextTokens(bigSession))?.contextTokens);
  });

  it('ignores the sub-agent transcript of the compaction (isSidechain lines)', async () => {
    const subagent = path.join(
      fixturesRoot,
      'claude-code-transcripts/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-acompact-946d2b.jsonl',
    );
    expect(await readContextTokens(subagent)).toBeUndefined();
  });
});

describe('readTranscriptTail on edge cases', () => {
  it('skips sidechain, all-zero, synthetic and API-error lines', async () => {
    const file = await transcript([
      assistant({ input_tokens: 5, cache_read_input_tokens: 1_000, cache_creation_input_tokens: 20 }),
      assistant({ input_tokens: 9_000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, { isSidechain: true }),
      assistant({ input_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 0 }),
      assistant({ input_tokens: 7 }, { isApiErrorMessage: true }),
      JSON.stringify({ type: 'assistant', message: { model: '<synthetic>', usage: { input_tokens: 3 }, content: [] } }),
      user('next'),
    ]);
    expect(await readContextTokens(file)).toMatchObject({ contextTokens: 1_025, source: 'usage' });
  });

  it('counts cache-creation tokens (leaving them out under-reads the newest turn)', async () => {
    const file = await transcript([assistant({ input_tokens: 0, cache_read_input_tokens: 138_620, cache_creation_input_tokens: 2_749 })]);
    expect((await readContextTokens(file))?.contextTokens).toBe(141_369);
  });

  it('skips a half-written last line and a file without a final newline', async () => {
    const good = assistant({ input_tokens: 10, cache_read_input_tokens: 90 });
    const half = assistant({ input_tokens: 99_999 }).slice(0, 40);
    expect((await readContextTokens(await transcript([good, half], '')))?.contextTokens).toBe(100);
    expect((await readContextTokens(await transcript([good], '')))?.contextTokens).toBe(100);
  });

  it('assembles lines longer than a read chunk, multi-byte characters included', async () => {
    const long = assistant({ input_tokens: 1, cache_read_input_tokens: 2, cache_creation_input_tokens: 3 }, {}, 'äöü€😀'.repeat(400));
    const file = await transcript([user('first'), long, user('zwölf €')], '\r\n');
    for (const chunkSize of [1, 7, 64, 1_000_000]) {
      const tail = await readTranscriptTail(file, { chunkSize });
      expect(tail.usage?.contextTokens).toBe(6);
      expect(tail.usage?.uuid).toBe(JSON.parse(long).uuid);
    }
  });

  it('gives up at maxBytes instead of reading a huge file whole', async () => {
    const file = await transcript([
      assistant({ input_tokens: 500 }),
      ...Array.from({ length: 50 }, (_, index) => user(`message ${index} ${'x'.repeat(100)}`)),
    ]);
    expect(await readTranscriptTail(file, { maxBytes: 2_000 })).toEqual({});
    expect((await readTranscriptTail(file)).usage?.contextTokens).toBe(500);
  });

  it('uses postTokens of a boundary newer than the last turn, in either spelling', async () => {
    const before = assistant({ input_tokens: 150_000 });
    const camel = await transcript([before, boundary({ trigger: 'auto', preTokens: 150_000, postTokens: 31_000 }), user('summary')]);
    expect(await readContextTokens(camel)).toMatchObject({ contextTokens: 31_000, source: 'compact-boundary' });
    const snake = await transcript([before, boundary({ trigger: 'auto', pre_tokens: 150_000, post_tokens: 29_000 }, 'compact_metadata')]);
    expect(await readCompactionFromTranscript(snake)).toMatchObject({ trigger: 'auto', preTokens: 150_000, postTokens: 29_000 });
  });

  it('returns nothing for an empty transcript and throws a clear error for a missing one', async () => {
    expect(await readTranscriptTail(await transcript([], ''))).toEqual({});
    const missing = path.join(directory, 'missing.jsonl');
    await expect(readTranscriptTail(missing)).rejects.toThrow(`Cannot open transcript ${missing}`);
  });
});

describe('readLastAssistantText', () => {
  const said = (content: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ type: 'assistant', message: { role: 'assistant', content }, ...extra });

  it('gives the text parts of the last assistant message with text, joined with a newline', async () => {
    const file = await transcript([
      said([{ type: 'text', text: 'first' }]),
      said([
        { type: 'text', text: 'final' },
        { type: 'tool_use', id: 't', name: 'Read', input: {} },
        { type: 'text', text: 'report' },
      ]),
      said([{ type: 'tool_use', id: 't2', name: 'Read', input: {} }]),
      said([{ type: 'text', text: '  ' }]),
      user('thanks'),
    ]);
    expect(await readLastAssistantText(file)).toBe('final\nreport');
    expect(await readLastAssistantText(await transcript([said('plain string'), user('x')]))).toBe('plain string');
  });

  it('skips a truncated last line', async () => {
    const file = await transcript(
      [said([{ type: 'text', text: 'done' }]), said([{ type: 'text', text: 'half written' }]).slice(0, 45)],
      '',
    );
    expect(await readLastAssistantText(file)).toBe('done');
  });

  it('gives undefined for a missing file, a file without assistant text and a directory', async () => {
    expect(await readLastAssistantText(path.join(directory, 'missing.jsonl'))).toBeUndefined();
    expect(await readLastAssistantText(await transcript([user('only a prompt')]))).toBeUndefined();
    const folder = path.join(directory, 'folder.jsonl');
    await mkdir(folder);
    expect(await readLastAssistantText(folder)).toBeUndefined();
  });

  // A FIFO with no writer would block an ordinary open until one appears: the test would time out.
  it('gives undefined for a FIFO without waiting for a writer', { timeout: 5_000 }, async () => {
    const fifo = path.join(directory, 'agent.fifo');
    execFileSync('mkfifo', [fifo]);
    expect(await readLastAssistantText(fifo)).toBeUndefined();
  });

  it('reads only the last maxBytes (default 256 KiB) of a huge file', async () => {
    const file = path.join(directory, 'huge.jsonl');
    // An assistant line, then a sparse hole of 8 MiB: nothing of the line is in the last 256 KiB.
    await writeFile(file, said([{ type: 'text', text: 'long ago' }]) + '\n');
    await truncate(file, 8 * 1024 * 1024);
    expect(await readLastAssistantText(file)).toBeUndefined();
    expect(await readLastAssistantText(file, { maxBytes: 16 * 1024 * 1024 })).toBe('long ago');
  });

  it('reads a line that starts exactly where maxBytes runs out, not one cut by it', async () => {
    const last = said([{ type: 'text', text: 'edge' }]);
    const file = await transcript([user('x'.repeat(500)), last]);
    const lastBytes = Buffer.byteLength(last) + 1;
    expect(await readLastAssistantText(file, { maxBytes: lastBytes })).toBe('edge');
    expect(await readLastAssistantText(file, { maxBytes: lastBytes - 1 })).toBeUndefined();
    expect(await readLastAssistantText(file, { maxBytes: lastBytes, chunkSize: 7 })).toBe('edge');
  });
});
