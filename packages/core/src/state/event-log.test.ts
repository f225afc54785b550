import { appendFile, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryLogger } from '../logger.js';
import { buildStateModulesForChildren, runChild, type ChildBuild } from './__fixtures__/build-for-children.js';
import { createEventLog, createMemoryEventLog, formatEventLine, MAX_EVENT_LINE_BYTES } from './event-log.js';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'hookwise-events-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const fixedClock = () => new Date('2025-01-02T03:04:05.678Z');

async function linesOf(file: string): Promise<string[]> {
  return (await readFile(file, 'utf8')).split('\n').filter((line) => line !== '');
}

describe('createEventLog', () => {
  it('creates parent folders and appends one JSON line per record, time first', async () => {
    const logPath = path.join(directory, 'deep', 'er', 'events.jsonl');
    const log = createEventLog({ path: logPath, clock: fixedClock });
    await log.append({ type: 'prune:applied', removed: 3 });
    await log.append({ type: 'hook:error', time: 'caller time is replaced', detail: { nested: true } });
    const lines = await linesOf(logPath);
    expect(lines).toEqual([
      '{"time":"2025-01-02T03:04:05.678Z","type":"prune:applied","removed":3}',
      '{"time":"2025-01-02T03:04:05.678Z","type":"hook:error","detail":{"nested":true}}',
    ]);
    expect(await log.readAll()).toEqual(lines.map((line) => JSON.parse(line)));
    expect(log.path).toBe(logPath);
  });

  it('readAll skips malformed lines and records without type or time', async () => {
    const logPath = path.join(directory, 'events.jsonl');
    const log = createEventLog({ path: logPath, clock: fixedClock });
    await log.append({ type: 'first' });
    await appendFile(logPath, '{"time":"x","type":"cut sho\nnot json at all\n[1,2]\n{"type":"no time"}\n\n');
    await log.append({ type: 'second' });
    expect((await log.readAll()).map((record) => record.type)).toEqual(['first', 'second']);
  });

  it('writes values JSON cannot hold without throwing', async () => {
    const logPath = path.join(directory, 'events.jsonl');
    const log = createEventLog({ path: logPath, clock: fixedClock });
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic.self = cyclic;
    const shared = { reused: true };
    await log.append({ type: 'odd', big: 12n, cyclic, pair: [shared, shared], error: new Error('bad'), when: new Date(0) });
    const [record] = await log.readAll();
    expect(record).toMatchObject({
      type: 'odd',
      big: '12',
      cyclic: { name: 'loop', self: '[Circular]' },
      pair: [{ reused: true }, { reused: true }],
      error: { name: 'Error', message: 'bad' },
      when: '1970-01-01T00:00:00.000Z',
    });
  });

  it('truncates big string fields so a line stays whole and under 64 KiB', async () => {
    const logPath = path.join(directory, 'events.jsonl');
    const log = createEventLog({ path: logPath, clock: fixedClock });
    await log.append({ type: 'big', transcript: 'é'.repeat(200_000), small: 'kept' });
    await log.append({ type: 'many', items: Array.from({ length: 50_000 }, (_, index) => index) });
    const lines = await linesOf(logPath);
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(Buffer.byteLength(`${line}\n`)).toBeLessThanOrEqual(MAX_EVENT_LINE_BYTES);
    const [big, many] = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(big).toMatchObject({ type: 'big', small: 'kept', truncated: true });
    expect(String(big?.transcript)).toMatch(/^é+…\[\d+ more characters\]$/);
    expect(many).toMatchObject({ type: 'many', truncated: true });
    expect(many?.originalBytes).toBeGreaterThan(MAX_EVENT_LINE_BYTES);
  });

  it('rotates at maxBytes, keeps maxFiles rotated files, and readAll reads them oldest first', async () => {
    const logPath = path.join(directory, 'events.jsonl');
    const log = createEventLog({ path: logPath, maxBytes: 1000, maxFiles: 3, clock: fixedClock });
    for (let sequence = 0; sequence < 200; sequence++) await log.append({ type: 'tick', sequence, padding: 'p'.repeat(40) });
    expect((await readdir(directory)).sort()).toEqual(['events.jsonl', 'events.jsonl.1', 'events.jsonl.2', 'events.jsonl.3']);
    for (const suffix of ['.1', '.2', '.3']) expect((await stat(logPath + suffix)).size).toBeGreaterThanOrEqual(1000);

    const everything = (await log.readAll({ includeRotated: true })).map((record) => record.sequence as number);
    const current = (await log.readAll()).map((record) => record.sequence as number);
    // Oldest first and contiguous up to the last record: nothing missing inside the kept window.
    const first = everything[0] as number;
    expect(everything).toEqual(Array.from({ length: 200 - first }, (_, index) => first + index));
    expect(first).toBeGreaterThan(0); // older files were dropped
    expect(current.at(-1)).toBe(199);
    expect(current.length).toBeLessThan(everything.length);
  });

  it('with maxFiles 0 starts over without keeping rotated files', async () => {
    const logPath = path.join(directory, 'events.jsonl');
    const log = createEventLog({ path: logPath, maxBytes: 200, maxFiles: 0 });
    for (let sequence = 0; sequence < 20; sequence++) await log.append({ type: 'tick', sequence });
    expect(await readdir(directory)).toEqual(['events.jsonl']);
    expect((await log.readAll({ includeRotated: true })).at(-1)?.sequence).toBe(19);
  });

  it('reports (does not throw) when rotation cannot happen', async () => {
    const logPath = path.join(directory, 'events.jsonl');
    const logger = createMemoryLogger();
    const log = createEventLog({ path: logPath, maxBytes: 10, maxFiles: 1, logger });
    await log.append({ type: 'one' });
    // A directory where the rotated file should go makes the rename fail.
    await (await import('node:fs/promises')).mkdir(`${logPath}.1/blocker`, { recursive: true });
    await log.append({ type: 'two' });
    expect((await log.readAll()).map((record) => record.type)).toEqual(['one', 'two']);
    expect(logger.lines.some((line) => line.includes('rotation failed'))).toBe(true);
  });
});

describe('createMemoryEventLog', () => {
  it('formats like the file log', async () => {
    const log = createMemoryEventLog({ clock: fixedClock });
    await log.append({ type: 'a', value: 1 });
    expect(log.lines).toEqual([formatEventLine({ type: 'a', value: 1 }, fixedClock())]);
    expect(await log.readAll()).toEqual([{ time: '2025-01-02T03:04:05.678Z', type: 'a', value: 1 }]);
  });

  it('logs a record as it was when appended, stamped then, in one growing lines array', async () => {
    let now = Date.parse('2025-01-02T03:04:05.678Z');
    const log = createMemoryEventLog({ clock: () => new Date(now) });
    const record = { type: 'a', list: [1], nested: { n: 1 } };
    await log.append(record);
    const lines = log.lines;
    record.list.push(2);
    record.nested.n = 2;
    now += 1_000;
    await log.append({ type: 'b', huge: 'x'.repeat(100_000) });
    expect(log.lines).toBe(lines);
    expect(lines).toEqual([
      formatEventLine({ type: 'a', list: [1], nested: { n: 1 } }, new Date('2025-01-02T03:04:05.678Z')),
      formatEventLine({ type: 'b', huge: 'x'.repeat(100_000) }, new Date('2025-01-02T03:04:06.678Z')),
    ]);
    expect(lines[1]).toContain('"truncated":true');
    expect((await log.readAll()).map((entry) => [entry.type, entry.time])).toEqual([
      ['a', '2025-01-02T03:04:05.678Z'],
      ['b', '2025-01-02T03:04:06.678Z'],
    ]);
  });
});

describe('event log: many processes', () => {
  let build: ChildBuild;
  const writers = 20;
  const linesPerWriter = 50;

  beforeAll(async () => {
    build = await buildStateModulesForChildren();
  });

  afterAll(async () => {
    await build?.cleanup();
  });

  async function runWriters(logPath: string, maxBytes: number, maxFiles: number): Promise<void> {
    const results = await Promise.all(
      Array.from({ length: writers }, (_, writer) =>
        // Padding makes lines a few KiB, so writes are not trivially tiny.
        runChild(build, { mode: 'append-events', path: logPath, maxBytes, maxFiles, writer, lines: linesPerWriter, paddingBytes: 3000 }),
      ),
    );
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
  }

  /** Every line parses, and each (writer, sequence) pair appears exactly once. */
  function expectAllLinesOnce(lines: string[]): void {
    const seen = new Map<string, number>();
    for (const line of lines) {
      const record = JSON.parse(line) as { type: string; writer: number; sequence: number; padding: string };
      expect(record.type).toBe('test:line');
      expect(record.padding).toHaveLength(3000);
      const key = `${record.writer}:${record.sequence}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect(lines).toHaveLength(writers * linesPerWriter);
    expect(seen.size).toBe(writers * linesPerWriter);
  }

  it('20 processes × 50 appends: all 1000 lines present and whole', async () => {
    const logPath = path.join(directory, 'events.jsonl');
    await runWriters(logPath, 1024 * 1024 * 1024, 3);
    expectAllLinesOnce(await linesOf(logPath));
  });

  it('rotating under concurrency loses no line and never rotates twice', async () => {
    const logPath = path.join(directory, 'events.jsonl');
    const maxBytes = 64 * 1024;
    // ~3 MB in total at 64 KiB per file: ~45 rotations, all kept, so every line must be somewhere.
    const maxFiles = 200;
    await runWriters(logPath, maxBytes, maxFiles);

    const files = await readdir(directory);
    const rotated = files.filter((name) => /^events\.jsonl\.\d+$/.test(name));
    expect(rotated.length).toBeGreaterThan(10);
    expect(rotated.length).toBeLessThanOrEqual(maxFiles);
    // Rotated files are numbered without gaps.
    expect(rotated.map((name) => Number(name.split('.').at(-1))).sort((a, b) => a - b)).toEqual(
      Array.from({ length: rotated.length }, (_, index) => index + 1),
    );
    // A file is only rotated once it reached maxBytes (checked again under the lock); a double
    // rotation would leave a small rotated file behind.
    for (const name of rotated) expect((await stat(path.join(directory, name))).size).toBeGreaterThanOrEqual(maxBytes);

    const lines: string[] = [];
    for (const name of [...rotated, 'events.jsonl']) lines.push(...(await linesOf(path.join(directory, name))));
    expectAllLinesOnce(lines);
    const log = createEventLog({ path: logPath, maxFiles });
    expect(await log.readAll({ includeRotated: true })).toHaveLength(writers * linesPerWriter);
  });
});
