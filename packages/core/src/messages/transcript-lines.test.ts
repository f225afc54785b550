import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  iterateTranscript,
  readTranscript,
  readTranscriptEntries,
  transcriptEntriesOf,
  transcriptFrom,
  type TranscriptCompactBoundary,
  type TranscriptEntry,
  type TranscriptLine,
  type TranscriptUsage,
} from './transcript.js';
import { readLinesPlainly } from './transcript-lines.js';
import { scanTranscriptLines } from './transcript-scanner.js';
import { readTranscriptTail } from './transcript-tail.js';

// The byte scanner against its spec, the plain reader, through the public readers.

const fixtures = fileURLToPath(new URL('../../../../fixtures/', import.meta.url));
const scratch = mkdtempSync(path.join(tmpdir(), 'hookwise-transcript-lines-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function jsonlFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (statSync(full).isDirectory()) return jsonlFiles(full);
    return name.endsWith('.jsonl') ? [full] : [];
  });
}

/** An entry as data: a lazily parsed `other` entry becomes the plain object it stands for. */
const plainEntry = (entry: TranscriptEntry) =>
  entry.type === 'other' ? { type: entry.type, line: entry.line, value: entry.value } : entry;
const plainLine = (line: TranscriptLine) => ('error' in line ? line : { line: line.line, value: line.value });

async function scannedEntries(file: string) {
  const entries = [];
  for await (const batch of readTranscriptEntries(file)) entries.push(...batch.map(plainEntry));
  return entries;
}

async function plainEntries(file: string) {
  const entries = [];
  for await (const batch of readLinesPlainly(file, { forEntries: true }))
    for (const line of batch.lines) entries.push(...transcriptEntriesOf(line).map(plainEntry));
  return entries;
}

async function scannedLines(file: string) {
  const lines = [];
  for await (const line of iterateTranscript(file)) lines.push(plainLine(line));
  return lines;
}

async function plainLines(file: string) {
  const lines = [];
  for await (const batch of readLinesPlainly(file, { forEntries: false })) lines.push(...batch.lines);
  return lines;
}

async function lineCountOf(reader: typeof readLinesPlainly, file: string) {
  let count = 0;
  for await (const batch of reader(file, { forEntries: true })) count = batch.lineCount;
  return count;
}

/** What the backwards tail reader must find, worked out forwards from the plain reader's entries. */
async function tailFromPlainEntries(file: string) {
  let usage: TranscriptUsage | undefined;
  let compaction: TranscriptCompactBoundary | undefined;
  for (const entry of await plainEntries(file)) {
    if (entry.type === 'usage' && !entry.isSidechain) {
      const { type: _type, ...rest } = entry;
      usage = { ...rest, line: 0 };
      compaction = undefined;
    } else if (entry.type === 'compact-boundary') {
      const { type: _type, ...rest } = entry;
      compaction = { ...rest, line: 0 };
    }
  }
  return { ...(usage ? { usage } : {}), ...(compaction ? { compaction } : {}) };
}

async function expectSameAsPlain(file: string): Promise<void> {
  const entries = await plainEntries(file);
  expect(await scannedEntries(file)).toStrictEqual(entries);
  expect(await scannedLines(file)).toStrictEqual(await plainLines(file));
  expect(await lineCountOf(scanTranscriptLines, file)).toBe(await lineCountOf(readLinesPlainly, file));
  // Messages, context tokens per request (usage) and compactions.
  expect(await readTranscript(file)).toStrictEqual(await transcriptFrom(readLinesPlainly(file, { forEntries: true })));
  expect(await readTranscriptTail(file)).toStrictEqual(await tailFromPlainEntries(file));
}

describe('the byte scanner reads what the plain reader reads', () => {
  const files = jsonlFiles(fixtures);

  it('finds the fixtures', () => {
    expect(files.length).toBeGreaterThanOrEqual(9);
  });

  it.each(files.map((file) => [path.relative(fixtures, file), file]))('%s', async (_name, file) => {
    await expectSameAsPlain(file);
    const entries = await plainEntries(file);
    expect(entries.length).toBeGreaterThan(0);
  });

  const progress = (fields: string) =>
    `{"parentUuid":null,"isSidechain":false,${fields}"type":"progress","data":{"type":"hook_progress"},"timestamp":"2026-01-01T00:00:00.000Z"}`;
  const assistant = (id: string, text: string, usage: Record<string, number> = { input_tokens: 3, cache_read_input_tokens: 100 }) =>
    JSON.stringify({
      type: 'assistant',
      uuid: `u-${id}`,
      message: { id, model: 'claude-opus-4-6', role: 'assistant', content: [{ type: 'text', text }], usage },
    });
  const toolResult = (output: string, tail = ',"sourceToolAssistantUUID":"a1"') =>
    `{"parentUuid":"p","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"out"}]},"uuid":"u1","toolUseResult":${JSON.stringify({ stdout: output })}${tail}}`;
  const boundary = JSON.stringify({
    type: 'system',
    subtype: 'compact_boundary',
    uuid: 'b1',
    compactMetadata: { trigger: 'auto', preTokens: 900, postTokens: 40 },
  });
  const user = (text: string) => JSON.stringify({ type: 'user', message: { role: 'user', content: text } });

  const cases: Array<[string, string | Buffer]> = [
    [
      'CRLF line ends',
      [user('a'), progress('"n":1,'), assistant('m1', 'b'), toolResult('x'), '{"type":"queue-operation","operation":"enqueue"}'].join(
        '\r\n',
      ) + '\r\n',
    ],
    [
      'blank and whitespace lines, trailing ones included',
      ['', user('a'), '   ', '\t', progress(''), '', assistant('m1', 'b'), '', ''].join('\n'),
    ],
    [
      'non-ASCII text in every kind of line',
      [user('café 中文 🎉'), progress('"note":"zwölf €",'), assistant('m1', 'äöü😀'), toolResult('ñ\u2028x')].join('\n') + '\n',
    ],
    [
      'bytes that are not UTF-8',
      Buffer.concat([Buffer.from(progress('"bad":"') + '\xff\xfe",', 'latin1'), Buffer.from('\n' + user('ok') + '\n')]),
    ],
    ['a byte-order mark on the first line', '\uFEFF' + [progress(''), user('a')].join('\n')],
    ['a truncated last line (a session being written)', [user('a'), assistant('m1', 'b'), assistant('m2', 'c').slice(0, 50)].join('\n')],
    ['a truncated last progress line', [user('a'), progress('').slice(0, 60)].join('\n')],
    ['a truncated last tool result', [user('a'), toolResult('y').slice(0, -20)].join('\n')],
    [
      'lines without a type key, and not objects',
      ['{"n":1}', '{"silly":"this"}', '[1,2]', 'null', '"assistant"', '42', 'not json', user('a')].join('\n') + '\n',
    ],
    [
      'type keys nested, in strings or after arrays',
      [
        '{"meta":{"type":"progress"},"type":"user","message":{"role":"user","content":"x"}}',
        '{"tags":["a"],"type":"progress","data":{}}',
        '{"note":"\\"type\\":\\"progress\\"","type":"assistant","message":{"role":"assistant","content":"y"}}',
        '{"type":"progressive"}',
        '{"type":"progress\\"","data":{}}',
      ].join('\n'),
    ],
    [
      'tool results with odd toolUseResult values',
      [
        toolResult('} ] " \\'),
        toolResult('UUUU', ',"sourceToolAssistantUUID":"UUUU","x":"U"'),
        toolResult('z', ''),
        '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"c"}]},"toolUseResult":{"inner":{"toolUseResult":1}},"id":"z"}',
      ].join('\n'),
    ],
    [
      'compactions and usage that does not measure a context',
      [
        assistant('m1', 'a'),
        boundary,
        user('summary'),
        assistant('m2', 'b', { input_tokens: 0 }),
        JSON.stringify({
          type: 'assistant',
          isSidechain: true,
          message: { id: 'm3', role: 'assistant', content: 'side', usage: { input_tokens: 5 } },
        }),
      ].join('\n'),
    ],
    [
      'huge lines across read chunks',
      [
        progress(`"pad":"${'中'.repeat(500_000)}",`),
        toolResult('x'.repeat(1_500_000)),
        assistant('m1', 'é'.repeat(700_000)),
        user('end'),
      ].join('\n') + '\n',
    ],
  ];

  it.each(cases)('%s', async (name, text) => {
    const file = path.join(scratch, `${name.replace(/\W+/g, '-')}.jsonl`);
    writeFileSync(file, text);
    await expectSameAsPlain(file);
  });

  it('differs in one documented way: a progress, snapshot or queue line broken in its middle is typed by its head, not reported', async () => {
    const file = path.join(scratch, 'broken-middle.jsonl');
    writeFileSync(file, progress('"x":,,') + '\n');
    expect(await scannedEntries(file)).toStrictEqual([{ type: 'other', line: 1, value: { type: 'progress' } }]);
    expect(await plainEntries(file)).toMatchObject([{ type: 'malformed', line: 1 }]);
  });
});
