import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { fromAnthropicMessages, toAnthropicMessages } from './anthropic.js';
import { toOpenAIMessages } from './openai.js';
import { openAIToolOrderProblems } from './test-support.js';
import {
  compactBoundaryOf,
  contextUsageOf,
  iterateTranscript,
  parseTranscriptText,
  readTranscript,
  readTranscriptEntries,
  transcriptEntriesOf,
  transcriptFromText,
  type TranscriptLine,
} from './transcript.js';
import { validateToolPairing } from './validate.js';

const fixtures = fileURLToPath(new URL('../../../../fixtures/claude-code-transcripts/', import.meta.url));
const bigSession = path.join(fixtures, 'marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');
const edgeCases = path.join(fixtures, 'daaain-claude-code-log/edge_cases.jsonl');

function jsonlFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const full = path.join(directory, name);
    if (statSync(full).isDirectory()) return jsonlFiles(full);
    return name.endsWith('.jsonl') ? [full] : [];
  });
}

/** The streamed lines as plain objects: a line of a type no entry reads has its value parsed when asked (here). */
async function collect(file: string): Promise<TranscriptLine[]> {
  const lines: TranscriptLine[] = [];
  for await (const line of iterateTranscript(file)) lines.push('error' in line ? line : { line: line.line, value: line.value });
  return lines;
}

const scratch = mkdtempSync(path.join(tmpdir(), 'hookwise-transcript-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('every transcript fixture', () => {
  const files = jsonlFiles(fixtures);

  it('finds the fixtures', () => {
    expect(files.length).toBeGreaterThanOrEqual(8);
  });

  it.each(files.map((file) => [path.relative(fixtures, file), file]))(
    '%s: reads without throwing, streaming equals in-memory',
    async (_name, file) => {
      const text = readFileSync(file, 'utf8');
      expect(await collect(file)).toStrictEqual(parseTranscriptText(text));
      const transcript = await readTranscript(file);
      expect(transcript).toStrictEqual(transcriptFromText(text));
      expect(transcript.lineCount).toBe(text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length);
      for (const message of transcript.messages) {
        expect(message.providerMetadata?.['claudeCode']).toMatchObject({ line: expect.any(Number) });
        // Transcript messages are Anthropic request messages: converting back and forth changes nothing.
        const anthropic = toAnthropicMessages([message]).messages;
        expect(toAnthropicMessages(fromAnthropicMessages(anthropic)).messages).toStrictEqual(anthropic);
      }
    },
  );
});

describe('readTranscript on the big session', async () => {
  const transcript = await readTranscript(bigSession);

  it('counts lines and finds the one manual compaction', () => {
    expect(transcript.lineCount).toBe(2385);
    expect(transcript.malformed).toStrictEqual([]);
    expect(transcript.compactions).toHaveLength(1);
    expect(transcript.compactions[0]).toMatchObject({ line: 1481, trigger: 'manual', preTokens: 142431 });
  });

  it('flags the compact summary that follows the boundary', () => {
    const summaries = transcript.messages.filter((message) => message.compactSummary);
    expect(summaries).toHaveLength(1);
    const summary = summaries[0]!;
    expect(summary.role).toBe('user');
    expect(summary.id).toBe('94000b8f-fa9f-4b7b-8d81-cdc73aa8a085');
    expect(summary.providerMetadata?.['claudeCode']).toMatchObject({ line: 1482, uuid: summary.id, timestamp: expect.any(String) });
    expect(transcript.messages.indexOf(summary)).toBe(transcript.compactions[0]!.messageIndex);
  });

  it('reports context size per API message', () => {
    const entry = transcript.usage.find((usage) => usage.line === 1464);
    expect(entry).toMatchObject({ messageId: 'msg_017X5XYYbrfUdtixdX5iCVba', contextTokens: 141369, isSidechain: false });
    const ids = transcript.usage.map((usage) => usage.messageId);
    expect(new Set(ids).size).toBe(ids.length);
    // 408 assistant lines in the file are 217 API responses.
    expect(transcript.usage).toHaveLength(217);
  });

  it('joins one streamed response (call, result, call, result…) back into one assistant turn and one result turn', () => {
    const index = transcript.messages.findIndex(
      (message) =>
        message.providerMetadata?.['claudeCode'] &&
        (message.providerMetadata['claudeCode'] as { messageId?: string }).messageId === 'msg_01Cwyj7RLJaazm8DnifKx5Pw',
    );
    const assistant = transcript.messages[index]!;
    const results = transcript.messages[index + 1]!;
    const callIds = assistant.parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolCallId] : []));
    expect(callIds.length).toBeGreaterThanOrEqual(6);
    expect(results.role).toBe('user');
    expect(results.parts.map((part) => (part.type === 'tool-result' ? part.toolCallId : part.type))).toStrictEqual(callIds);
    expect(results.parts.every((part) => part.type === 'tool-result' && part.toolName !== undefined)).toBe(true);
  });

  it('pairs tool calls and results, across and after the compaction, and converts to a valid OpenAI payload', () => {
    // In this session the compaction ran at a turn end, so pairing holds across it too.
    expect(validateToolPairing(transcript.messages)).toStrictEqual({ ok: true, problems: [] });
    const latestSummary = transcript.messages.findLastIndex((message) => message.compactSummary);
    const afterCompaction = transcript.messages.slice(latestSummary);
    expect(validateToolPairing(afterCompaction)).toStrictEqual({ ok: true, problems: [] });
    expect(openAIToolOrderProblems(toOpenAIMessages(afterCompaction))).toStrictEqual([]);
  });
});

describe('readTranscript on edge cases', () => {
  it('reports malformed lines and keeps going', async () => {
    const transcript = await readTranscript(edgeCases);
    expect(transcript.lineCount).toBe(19);
    expect(transcript.malformed.map((entry) => entry.line)).toStrictEqual([10, 11, 13, 15, 16, 18]);
    expect(transcript.malformed.find((entry) => entry.line === 11)?.reason).toMatch(/message is not an object/);
    // The summary record and the `{"silly": "this"}` record without a type.
    expect(transcript.skippedLines).toBe(2);
    const error = transcript.messages.flatMap((message) => message.parts).find((part) => part.type === 'tool-result');
    expect(error).toMatchObject({ toolCallId: 'tool_edge_001', isError: true, toolName: expect.any(String) });
  });

  it('leaves sidechain lines out of messages but keeps their usage', async () => {
    const transcript = await readTranscript(
      path.join(fixtures, 'marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-acompact-946d2b.jsonl'),
    );
    expect(transcript.messages).toStrictEqual([]);
    expect(transcript.usage).toHaveLength(1);
    expect(transcript.usage[0]!.isSidechain).toBe(true);
  });

  it('numbers lines through blanks, CRLF, a missing final newline and chunk boundaries', async () => {
    // 3-byte characters with a 6-byte prefix put the 1 MiB chunk boundary inside a character.
    const long = JSON.stringify({ t: '中'.repeat(400_000) });
    const text = `{"a":1}\r\n\n   \n${long}\nnot json\n[]\n{"b":2}`;
    const file = path.join(scratch, 'mixed.jsonl');
    writeFileSync(file, text);
    const lines = await collect(file);
    expect(lines.map((line) => line.line)).toStrictEqual([1, 4, 5, 6, 7]);
    expect(lines[0]).toStrictEqual({ line: 1, value: { a: 1 } });
    expect(lines[1]).toStrictEqual({ line: 4, value: JSON.parse(long) });
    expect(lines[2]).toMatchObject({ line: 5, error: expect.stringMatching(/invalid JSON/), text: 'not json' });
    expect(lines[3]).toMatchObject({ line: 6, error: expect.stringMatching(/not a JSON object/) });
    expect(lines).toStrictEqual(parseTranscriptText(text));
    expect((await readTranscript(file)).lineCount).toBe(7);
  });

  it('throws an Error naming the path when the file cannot be opened', async () => {
    const missing = path.join(scratch, 'missing.jsonl');
    await expect(readTranscript(missing)).rejects.toThrow(missing);
  });

  it('keeps a result turn apart from a different response and never joins across a compaction', () => {
    const line = (value: unknown) => JSON.stringify(value);
    const transcript = transcriptFromText(
      [
        line({ type: 'user', uuid: 'u1', message: { role: 'user', content: 'go' } }),
        line({
          type: 'assistant',
          uuid: 'a1',
          message: { id: 'm1', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: {} }] },
        }),
        line({ type: 'user', uuid: 'r1', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }] } }),
        line({ type: 'system', subtype: 'compact_boundary', compactMetadata: { trigger: 'auto', preTokens: 10, postTokens: 2 } }),
        line({ type: 'user', uuid: 's1', isCompactSummary: true, message: { role: 'user', content: 'summary' } }),
        line({ type: 'assistant', uuid: 'a2', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'again' }] } }),
        line({
          type: 'assistant',
          uuid: 'a3',
          isSidechain: true,
          message: { id: 'm9', role: 'assistant', content: 'side', usage: { input_tokens: 1 } },
        }),
      ].join('\n'),
    );
    expect(transcript.messages.map((message) => message.id)).toStrictEqual(['u1', 'a1', 'r1', 's1', 'a2']);
    expect(transcript.messages[2]!.parts[0]).toMatchObject({ type: 'tool-result', toolName: 'Read' });
    expect(transcript.compactions).toStrictEqual([{ line: 4, trigger: 'auto', preTokens: 10, postTokens: 2, messageIndex: 3 }]);
    expect(transcript.messages[3]!.compactSummary).toBe(true);
    expect(transcript.usage).toStrictEqual([
      {
        line: 7,
        messageId: 'm9',
        uuid: 'a3',
        inputTokens: 1,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        contextTokens: 1,
        isSidechain: true,
      },
    ]);
  });
});

describe('lines of a type no entry reads', () => {
  const progress = (fields: string, data = '{"type":"hook_progress","hookEvent":"PostToolUse"}') =>
    `{"parentUuid":null,"isSidechain":false,"cwd":"/p",${fields}"type":"progress","data":${data},"timestamp":"2026-01-01T00:00:00.000Z"}`;
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

  it('types progress, snapshot and queue lines as other, their value parsed when read', async () => {
    const lines = [
      progress('"version":"2.1.39","n":12.5,"ok":true,"none":null,'),
      '{"type":"file-history-snapshot","messageId":"m1","snapshot":{"trackedFileBackups":{}}}',
      '{"type":"queue-operation","operation":"enqueue","content":"x"}\r',
      '{"type":"user","message":{"role":"user","content":"hi"}}',
    ];
    const entries = await entriesOf(write('unread.jsonl', lines));
    expect(entries.map((entry) => entry.type)).toStrictEqual(['other', 'other', 'other', 'message']);
    expect(entries.slice(0, 3).map((entry) => (entry.type === 'other' ? entry.value : undefined))).toStrictEqual(
      lines.slice(0, 3).map((line) => JSON.parse(line)),
    );
    // Written out (JSON), such an entry reads as one with its value in place.
    expect(JSON.parse(JSON.stringify(entries[0]))).toStrictEqual({ type: 'other', line: 1, value: JSON.parse(lines[0]!) });
    expect((await readTranscript(path.join(scratch, 'unread.jsonl'))).skippedLines).toBe(3);
  });

  it('gives the value of a line that is not ASCII as its UTF-8 text, invalid bytes as U+FFFD like a decoded line', async () => {
    const file = path.join(scratch, 'unread-utf8.jsonl');
    const lines = [progress('"note":"café 中文 🎉 \\u00e9",'), progress('"bad":"\xff\xfe",')];
    // The second line's two bytes are not UTF-8: written as bytes, not as characters.
    writeFileSync(file, Buffer.concat([Buffer.from(lines[0]! + '\r\n'), Buffer.from(lines[1]!, 'latin1'), Buffer.from('\n')]));
    const entries = await entriesOf(file);
    expect(entries.map((entry) => entry.type)).toStrictEqual(['other', 'other']);
    expect(entries[0]!.type === 'other' && entries[0]!.value['note']).toBe('café 中文 🎉 é');
    expect(entries[1]!.type === 'other' && entries[1]!.value['bad']).toBe('\uFFFD\uFFFD');
    expect(await collect(file)).toStrictEqual(parseTranscriptText(readFileSync(file, 'utf8')));
  });

  it('keeps the bytes of each such line, adjacent or not, whatever comes between', async () => {
    const lines = [
      progress('"n":1,'),
      progress('"n":2,'),
      '',
      progress('"n":3,') + '\r',
      '{"type":"queue-operation","operation":"dequeue"}',
      '{"type":"user","message":{"role":"user","content":"between"}}',
      '{"type":"file-history-snapshot","snapshot":{"n":4}}\r',
      '   ',
      progress('"n":5,'),
    ];
    const entries = await entriesOf(write('unread-runs.jsonl', lines));
    const expected = lines.flatMap((line, index) =>
      line.trim() === '' || line.includes('"user"') ? [] : [{ line: index + 1, value: JSON.parse(line) as unknown }],
    );
    expect(entries.flatMap((entry) => (entry.type === 'other' ? [{ line: entry.line, value: entry.value }] : []))).toStrictEqual(expected);
  });

  it('parses a line whose type it cannot be sure of without parsing, and reports a broken one', async () => {
    const lines = [
      // The word in a nested value, or in a string, is not the line's type.
      '{"type":"user","message":{"role":"user","content":[{"type":"text","text":"{\\"type\\":\\"progress\\"}"}]}}',
      '{"parentUuid":null,"data":{"type":"progress"},"type":"assistant","message":{"role":"assistant","content":"ok"}}',
      // A nested value before the type: parsed, still a progress line.
      '{"meta":{"a":1},"type":"progress","data":{}}',
      // Cut short: no closing brace, so it is parsed and reported.
      progress('').slice(0, 120),
      // An escaped quote inside an earlier value does not end that value.
      '{"cwd":"/a\\"b","type":"progress","data":{}}',
    ];
    const entries = await entriesOf(write('unsure.jsonl', lines));
    expect(entries.map((entry) => entry.type)).toStrictEqual(['message', 'message', 'other', 'malformed', 'other']);
    expect(entries[4]!.type === 'other' && entries[4]!.value).toStrictEqual({ cwd: '/a"b', type: 'progress', data: {} });
  });

  it('stops cleanly when the consumer stops early (the next chunk is already being read)', async () => {
    let batches = 0;
    for await (const batch of readTranscriptEntries(bigSession)) {
      expect(batch.length).toBeGreaterThan(0);
      if (++batches === 1) break;
    }
    expect(batches).toBe(1);
  });

  it('keeps each line whole while its read buffers are filled again, by later chunks, later reads and a read at the same time', async () => {
    // Over 3 MiB each, so every read takes turns between two 1 MiB buffers and gives them back
    // for the next read; lines of varied length cross every chunk boundary.
    const linesOf = (tag: string) =>
      Array.from({ length: 6_000 }, (_, index) =>
        index % 7 === 3
          ? JSON.stringify({ type: 'user', message: { role: 'user', content: `${tag} prompt ${index} ${'p'.repeat(index % 900)}` } })
          : progress(`"n":${index},"tag":"${tag}","pad":"${'x'.repeat((index * 37) % 1_100)}",`),
      );
    const first = linesOf('first');
    const second = linesOf('second');
    const expected = (lines: string[]) => lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const valuesOf = (entries: Awaited<ReturnType<typeof entriesOf>>) =>
      entries.map((entry) =>
        entry.type === 'other'
          ? entry.value
          : entry.type === 'message'
            ? { type: entry.role, message: { role: entry.role, content: entry.content } }
            : entry,
      );
    const firstFile = write('reuse-first.jsonl', first);
    const secondFile = write('reuse-second.jsonl', second);
    expect(statSync(firstFile).size).toBeGreaterThan(3 << 20);
    // Values read only after the whole file (and the other file, at the same time) was read.
    const [a, b] = await Promise.all([entriesOf(firstFile), entriesOf(secondFile)]);
    const again = await entriesOf(secondFile);
    expect(valuesOf(a)).toStrictEqual(expected(first));
    expect(valuesOf(b)).toStrictEqual(expected(second));
    expect(valuesOf(again)).toStrictEqual(expected(second));
    expect(await collect(firstFile)).toStrictEqual(parseTranscriptText(first.join('\n') + '\n'));
  });

  it('reads the same entries with blocking calls when asked, without giving the event loop a turn', async () => {
    const asynchronous = await entriesOf(bigSession);
    let turned = false;
    setImmediate(() => (turned = true));
    const synchronous = [];
    for await (const batch of readTranscriptEntries(bigSession, { synchronous: true })) synchronous.push(...batch);
    // Every await was on a settled promise: no I/O callback, so no turn of the event loop.
    expect(turned).toBe(false);
    expect(synchronous).toStrictEqual(asynchronous);
    await new Promise((resolve) => setImmediate(resolve));
    expect(turned).toBe(true);
  });

  it('gives a line broken in the middle its type when its value is read', async () => {
    const [entry] = await entriesOf(write('broken.jsonl', [progress('', '{"type":"hook_progress",,}')]));
    expect(entry).toMatchObject({ type: 'other', line: 1 });
    expect(entry!.type === 'other' && entry!.value).toStrictEqual({ type: 'progress' });
  });
});

describe("a tool result line's toolUseResult (Claude Code's UI copy of the output)", () => {
  const result = (tail: string, toolUseResult = '{"stdout":"a } ] \\" b","file":{"content":"x"}}') =>
    `{"parentUuid":"p","isSidechain":false,"type":"user","message":{"role":"user","content":[{"tool_use_id":"t1","type":"tool_result","content":"out"}]},"uuid":"u1","timestamp":"2026-01-01T00:00:00.000Z","toolUseResult":${toolUseResult}${tail}}`;
  const entriesOfLines = async (name: string, lines: string[]) => {
    const file = path.join(scratch, name);
    writeFileSync(file, lines.join('\n') + '\n');
    const entries = [];
    for await (const batch of readTranscriptEntries(file)) entries.push(...batch);
    return entries;
  };

  it("still reports a line broken outside it, with the whole line's error", async () => {
    const broken = result(',"sourceToolAssistantUUID":"a1"').replace('"role":"user",', '"role":"user",,');
    const [entry] = await entriesOfLines('tool-use-result-broken.jsonl', [broken]);
    let expected = '';
    try {
      JSON.parse(broken);
    } catch (error) {
      expected = `invalid JSON: ${(error as Error).message}`;
    }
    expect(entry).toStrictEqual({ type: 'malformed', line: 1, reason: expected });
  });

  it('is kept by iterateTranscript, whose lines are whole values', async () => {
    const line = result(',"sourceToolAssistantUUID":"a1"');
    writeFileSync(path.join(scratch, 'kept.jsonl'), line + '\n');
    expect(await collect(path.join(scratch, 'kept.jsonl'))).toStrictEqual([{ line: 1, value: JSON.parse(line) }]);
  });
});

describe('typed entries and the one context-tokens rule', () => {
  const line = (value: unknown) => JSON.stringify(value);
  const assistant = (id: string, usage: Record<string, number>, extra: Record<string, unknown> = {}) =>
    line({
      type: 'assistant',
      uuid: `u-${id}`,
      message: { id, model: 'claude-opus-4-6', role: 'assistant', content: [{ type: 'text', text: id }], usage },
      ...extra,
    });

  // Used to disagree: core kept every usage line, so the context read 0 after an API error.
  it('skips synthetic, API-error and all-zero usage lines: the context stays what the last real request measured', () => {
    const transcript = transcriptFromText(
      [
        assistant('m1', { input_tokens: 10, cache_read_input_tokens: 1_000, cache_creation_input_tokens: 5 }),
        assistant('m2', { input_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, { isApiErrorMessage: true }),
        assistant('m3', { input_tokens: 0, output_tokens: 0 }),
        line({
          type: 'assistant',
          message: {
            id: 'm4',
            model: '<synthetic>',
            role: 'assistant',
            content: [{ type: 'text', text: 'No response requested.' }],
            usage: { input_tokens: 7 },
          },
        }),
      ].join('\n'),
    );
    expect(transcript.usage.map((usage) => [usage.messageId, usage.contextTokens])).toStrictEqual([['m1', 1_015]]);
    // The lines are still messages of the history.
    expect(transcript.messages).toHaveLength(4);
  });

  // Used to disagree: core read compact boundaries in camelCase only.
  it('reads compact boundaries in both spellings', () => {
    const camel = transcriptFromText(
      line({ type: 'system', subtype: 'compact_boundary', compactMetadata: { trigger: 'auto', preTokens: 10, postTokens: 2 } }),
    );
    const snake = transcriptFromText(
      line({ type: 'system', subtype: 'compact_boundary', compact_metadata: { trigger: 'auto', pre_tokens: 10, post_tokens: 2 } }),
    );
    expect(snake.compactions).toStrictEqual(camel.compactions);
    expect(snake.compactions[0]).toMatchObject({ trigger: 'auto', preTokens: 10, postTokens: 2 });
  });

  it('gives an assistant line its usage entry, then its message entry', () => {
    const [parsed] = parseTranscriptText(assistant('m1', { input_tokens: 3 }, { timestamp: '2026-01-01T00:00:00Z' }));
    expect(transcriptEntriesOf(parsed!)).toStrictEqual([
      {
        type: 'usage',
        line: 1,
        messageId: 'm1',
        model: 'claude-opus-4-6',
        uuid: 'u-m1',
        timestamp: '2026-01-01T00:00:00Z',
        inputTokens: 3,
        cacheReadInputTokens: 0,
        cacheCreationInputTokens: 0,
        contextTokens: 3,
        isSidechain: false,
      },
      {
        type: 'message',
        line: 1,
        role: 'assistant',
        content: [{ type: 'text', text: 'm1' }],
        messageId: 'm1',
        model: 'claude-opus-4-6',
        uuid: 'u-m1',
        timestamp: '2026-01-01T00:00:00Z',
        isSidechain: false,
      },
    ]);
    expect(contextUsageOf(JSON.parse(assistant('m2', { input_tokens: 0 }, { isSidechain: true })))).toBeUndefined();
    expect(contextUsageOf(JSON.parse(assistant('m2', { input_tokens: 4 }, { isSidechain: true })))).toMatchObject({
      contextTokens: 4,
      isSidechain: true,
    });
  });

  it('types every line of a file, streaming', async () => {
    const counts: Record<string, number> = {};
    for await (const batch of readTranscriptEntries(bigSession))
      for (const entry of batch) counts[entry.type] = (counts[entry.type] ?? 0) + 1;
    expect(counts['compact-boundary']).toBe(1);
    expect(counts['malformed']).toBeUndefined();
    expect(counts['message']).toBeGreaterThan(600);
    expect(counts['usage']).toBeGreaterThanOrEqual((await readTranscript(bigSession)).usage.length);
    expect(compactBoundaryOf({ type: 'user' })).toBeUndefined();
  });
});
