import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readTranscriptEntries, transcriptEntriesOf } from './transcript.js';

// These pin how the byte scanner (transcript-scanner.ts) gets its speed, not what it reads
// (transcript-lines.test.ts holds it equal to the plain reader): which lines it parses, how
// often it searches a chunk. A failure here means the report may have become slower.

const bigSession = fileURLToPath(
  new URL('../../../../fixtures/claude-code-transcripts/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl', import.meta.url),
);
const scratch = mkdtempSync(path.join(tmpdir(), 'hookwise-transcript-speed-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const write = (name: string, lines: string[]) => {
  const file = path.join(scratch, name);
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
};
const entriesOf = async (file: string) => {
  const entries = [];
  for await (const batch of readTranscriptEntries(file)) entries.push(...batch);
  return entries;
};

describe('speed guard: lines of a type no entry reads are typed without parsing', () => {
  it('finds the type past keys and values like it and past arrays, without parsing', async () => {
    const lines = [
      // Keys ending in "type", `y`s (more than it looks at one by one) and "type" inside a string before the key.
      '{"subtype":"x","userType":"yyyy","say":"y y y y y","note":"type:\\"type\\":\\"user\\"","type":"progress","data":{}}',
      // An array before the key holds no keys: the key is still the line's own.
      '{"tags":["a","[b"],"type":"queue-operation","operation":"enqueue"}',
      '{"type":"file-history-snapshot","snapshot":{}}',
      // Type names that only start like one read (a longer name, a name cut by an escaped quote).
      '{"type":"progressive","message":{"role":"user","content":"x"}}',
      '{"type":"progress\\"","data":{}}',
    ];
    const file = write('heads.jsonl', lines);
    const parse = vi.spyOn(JSON, 'parse');
    let entries;
    try {
      entries = await entriesOf(file);
      expect(parse.mock.calls.map(([text]) => text)).toStrictEqual(lines.slice(3));
    } finally {
      parse.mockRestore();
    }
    expect(entries.map((entry) => entry.type)).toStrictEqual(['other', 'other', 'other', 'other', 'other']);
    expect(entries.map((entry) => (entry.type === 'other' ? entry.value : undefined))).toStrictEqual(lines.map((line) => JSON.parse(line)));
  });

  it('searches a chunk of lines without a type key for it once, not once per line to the chunk end', async () => {
    const file = write(
      'no-type.jsonl',
      Array.from({ length: 2_000 }, (_, index) => `{"n":${index}}`),
    );
    const indexOf = vi.spyOn(Buffer.prototype, 'indexOf');
    let entries;
    try {
      entries = await entriesOf(file);
      const searchesForKey = indexOf.mock.calls.filter(
        ([needle]) => needle === 0x79 || (Buffer.isBuffer(needle) && needle.toString() === '"type":"'),
      );
      expect(searchesForKey).toHaveLength(1);
    } finally {
      indexOf.mockRestore();
    }
    expect(entries.map((entry) => entry.type === 'other' && entry.value['n'])).toStrictEqual(
      Array.from({ length: 2_000 }, (_, index) => index),
    );
  });

  it('does not parse them on the recorded session: 1,723 of its 2,385 lines', async () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      let other = 0;
      for await (const batch of readTranscriptEntries(bigSession)) for (const entry of batch) if (entry.type === 'other') other++;
      // 1,697 progress lines, 26 file-history snapshots, and 4 system lines (parsed: not of those types).
      expect(other).toBe(1_697 + 26 + 4);
      expect(parse).toHaveBeenCalledTimes(2_385 - 1_697 - 26);
    } finally {
      parse.mockRestore();
    }
  });

  it('reads the type only within the first 2,048 bytes of a line: a value ending past them is parsed', async () => {
    // `"type":"progress"` after a pad of n characters: its closing quote is at byte 26 + n.
    const padded = (n: number) => `{"pad":"${'x'.repeat(n)}","type":"progress","data":{}}`;
    const file = write('limit.jsonl', [padded(2_021), padded(2_022)]);
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const entries = await entriesOf(file);
      expect(entries.map((entry) => entry.type)).toStrictEqual(['other', 'other']);
      expect(parse).toHaveBeenCalledTimes(1);
      expect(parse.mock.calls[0]![0]).toBe(padded(2_022));
    } finally {
      parse.mockRestore();
    }
  });
});

describe("speed guard: a tool result line's toolUseResult is cut out before parsing", () => {
  const result = (tail: string, toolUseResult = '{"stdout":"a } ] \\" b","file":{"content":"x"}}') =>
    `{"parentUuid":"p","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"out"}]},"uuid":"u1","timestamp":"2026-01-01T00:00:00.000Z","toolUseResult":${toolUseResult}${tail}}`;
  const entriesOfLines = (name: string, lines: string[]) => entriesOf(write(name, lines));
  const parsedEntries = (lines: string[]) =>
    lines.flatMap((line, index) => transcriptEntriesOf({ line: index + 1, value: JSON.parse(line) }));

  it('is left out unparsed: the entries are those of the whole line', async () => {
    const lines = [
      result(',"sourceToolAssistantUUID":"a1"'),
      result(',"sourceToolAssistantUUID":"a\\"1\\\\","n":3,"ok":true,"none":null'),
      // An error's toolUseResult is its text; as the last field there is no tail.
      result('', '"Error: \\"quoted\\" ,\\"toolUseResult\\":1"'),
      result(',"x":-1.5e3', '[1,{"toolUseResult":2}]'),
      // A nested object with the same key: cutting there leaves braces that do not match, so the whole line is parsed.
      result(',"id":"z"', '{"inner":{"a":1,"toolUseResult":{"b":2},"c":"d"}}'),
    ];
    const parse = vi.spyOn(JSON, 'parse');
    let entries;
    try {
      entries = await entriesOfLines('tool-use-result.jsonl', lines);
      // One parse per line, without the field, except the nested case: cut at the inner key (the
      // outer one is still there, the braces do not match), then parsed whole.
      expect(parse.mock.calls.map(([text]) => (text as string).includes('"toolUseResult":'))).toStrictEqual([
        false,
        false,
        false,
        false,
        true,
        true,
      ]);
    } finally {
      parse.mockRestore();
    }
    expect(entries).toStrictEqual(parsedEntries(lines));
  });

  it('is found past many `U`s after it, and a line without it is parsed whole', async () => {
    const lines = [
      result(',"sourceToolAssistantUUID":"UUUU","x":"U"', '{"out":"UUUUUUUUUUUU","n":{"U":"U"}}'),
      result(',"sourceToolAssistantUUID":"a1"', '"Error: UNKNOWN UNIX USER"'),
      // No toolUseResult, `U`s everywhere.
      '{"type":"user","message":{"role":"user","content":"UUUUUUUUUUUUUUUUUUUU"},"uuid":"UUID"}',
    ];
    const parse = vi.spyOn(JSON, 'parse');
    let entries;
    try {
      entries = await entriesOfLines('tool-use-result-u.jsonl', lines);
      expect(parse.mock.calls.map(([text]) => (text as string).includes('"toolUseResult":'))).toStrictEqual([false, false, false]);
    } finally {
      parse.mockRestore();
    }
    expect(entries).toStrictEqual(parsedEntries(lines));
  });

  it('is cut out whether it is shorter or longer than the fields after it, leaving the lines around it as they were', async () => {
    const lines = [
      // Shorter than what follows it, then longer.
      result(',"sourceToolAssistantUUID":"a1","requestId":"req_0123456789","n":1', '1'),
      result(',"id":"z"', `"${'x'.repeat(300)}"`),
      '{"type":"progress","data":{"n":2}}',
      result(',"sourceToolAssistantUUID":"a3"'),
      '{"type":"queue-operation","operation":"enqueue"}',
    ];
    const parse = vi.spyOn(JSON, 'parse');
    let entries;
    try {
      entries = await entriesOfLines('tool-use-result-lengths.jsonl', lines);
      expect(parse.mock.calls.map(([text]) => (text as string).includes('"toolUseResult":'))).toStrictEqual([false, false, false]);
    } finally {
      parse.mockRestore();
    }
    expect(
      entries.map((entry) => (entry.type === 'other' ? { type: 'other', line: entry.line, value: entry.value } : entry)),
    ).toStrictEqual(parsedEntries(lines));
  });
});
