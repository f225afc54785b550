import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StateCorruptError, UnsafeNameError } from '../errors.js';
import { createMemoryLogger } from '../logger.js';
import { buildStateModulesForChildren, childScript, runChild, type ChildBuild } from './__fixtures__/build-for-children.js';
import { hostileNames, sharedBehaviour } from './__fixtures__/store-contract.js';
import { createFileStateStore, createMemoryStateStore } from './file-state-store.js';
import { acquireFileLock } from './lock.js';
import type { StateStore } from './types.js';

let directory: string;

beforeEach(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'hookwise-state-'));
});

afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

sharedBehaviour('file store', () => createFileStateStore({ directory, logger: createMemoryLogger() }));
sharedBehaviour('memory store', () => createMemoryStateStore());

describe('file store: waiting for a lock', () => {
  it('says it is waiting while another holder has the lock, and stops saying so once it has it', async () => {
    const store = createFileStateStore({ directory });
    await store.update('session-1', 'counter', () => 0);
    // Held as another live process would hold it.
    const held = await acquireFileLock(path.join(directory, 'state', 'session-1', 'counter.json'), {
      maxWaitMs: 0,
      staleMs: 60_000,
      minDelayMs: 1,
      maxDelayMs: 1,
    });
    expect(store.waitingForLock()).toBe(false);
    const update = store.update<number>('session-1', 'counter', (current) => (current ?? 0) + 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(store.waitingForLock()).toBe(true);
    held.release();
    expect(await update).toBe(1);
    expect(store.waitingForLock()).toBe(false);
  });
});

describe('file store: layout and hostile input', () => {
  it('stores <directory>/state/<sessionId>/<namespace>.json, mapping "/" to "+" and ":" to "="', async () => {
    const store = createFileStateStore({ directory });
    await store.update('session-1', 'plain', () => ({ a: 1 }));
    await store.update('session-1', '@scope/name', () => 2);
    await store.update('session-1', 'tool:bash', () => 3);
    const files = (await readdir(path.join(directory, 'state', 'session-1'))).sort();
    expect(files).toEqual(['@scope+name.json', 'plain.json', 'tool=bash.json']);
    expect(JSON.parse(await readFile(path.join(directory, 'state', 'session-1', 'plain.json'), 'utf8'))).toEqual({ a: 1 });
  });

  it('creates nothing outside the state folder for hostile names', async () => {
    const store = createFileStateStore({ directory: path.join(directory, 'project', '.hookwise') });
    for (const hostile of hostileNames) {
      await store.update(hostile, 'ns', () => 1).catch(() => {});
      // 'a/b' is a valid (plugin-scoped) namespace, so it would rightly create a file.
      if (hostile !== 'a/b') await store.update('s', hostile, () => 1).catch(() => {});
    }
    expect(await readdir(directory)).toEqual([]);
  });

  it('clearing a namespace that was never written creates nothing', async () => {
    const store = createFileStateStore({ directory });
    await store.clear('session-1', 'plugin');
    expect(await readdir(directory)).toEqual([]);
  });

  it('refuses values that are not JSON', async () => {
    const store = createFileStateStore({ directory });
    await expect(store.update('s', 'ns', () => 10n as unknown as number)).rejects.toMatchObject({ code: 'HW_STATE_VALUE' });
    expect(await store.update('s', 'ns', () => 1)).toBe(1);
  });
});

describe('file store: corrupt files', () => {
  async function writeGarbage(): Promise<string> {
    const sessionDirectory = path.join(directory, 'state', 'session-1');
    await mkdir(sessionDirectory, { recursive: true });
    const file = path.join(sessionDirectory, 'plugin.json');
    await writeFile(file, '{"count": 4, trailing garbage');
    return file;
  }

  async function corruptCopies(): Promise<string[]> {
    return (await readdir(path.join(directory, 'state', 'session-1'))).filter((name) => name.startsWith('plugin.corrupt-'));
  }

  it.each(['read', 'update'] as const)('%s moves a corrupt file aside, warns, reports it, and carries on from empty', async (operation) => {
    const file = await writeGarbage();
    const logger = createMemoryLogger();
    const reported: StateCorruptError[] = [];
    const store = createFileStateStore({ directory, logger, onCorrupt: (error) => reported.push(error) });

    if (operation === 'read') {
      expect(await store.read('session-1', 'plugin')).toBeUndefined();
    } else {
      let seen: unknown = 'not called';
      expect(await store.update<{ count: number }>('session-1', 'plugin', (current) => ((seen = current), { count: 1 }))).toEqual({
        count: 1,
      });
      expect(seen).toBeUndefined();
      expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ count: 1 });
    }

    const moved = await corruptCopies();
    expect(moved).toHaveLength(1);
    expect(moved[0]).toMatch(/^plugin\.corrupt-.+\.json$/);
    expect(await readFile(path.join(directory, 'state', 'session-1', moved[0] as string), 'utf8')).toBe('{"count": 4, trailing garbage');
    expect(logger.lines.some((line) => line.includes('warn') && line.includes('corrupt state file'))).toBe(true);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toBeInstanceOf(StateCorruptError);
    expect(reported[0]?.movedTo).toBe(path.join(directory, 'state', 'session-1', moved[0] as string));
    expect(reported[0]?.cause).toBeInstanceOf(SyntaxError);

    // Carries on normally afterwards, without reporting again.
    expect(await store.update<{ count: number }>('session-1', 'plugin', (current) => ({ count: (current?.count ?? 0) + 1 }))).toEqual({
      count: operation === 'read' ? 1 : 2,
    });
    expect(reported).toHaveLength(1);
  });

  it('treats an empty file as corrupt too, and survives a throwing onCorrupt', async () => {
    const file = await writeGarbage();
    await writeFile(file, '');
    const store = createFileStateStore({
      directory,
      logger: createMemoryLogger(),
      onCorrupt: () => {
        throw new Error('callback bug');
      },
    });
    expect(await store.read('session-1', 'plugin')).toBeUndefined();
    expect(await corruptCopies()).toHaveLength(1);
  });
});

describe('file store: many processes', () => {
  let build: ChildBuild;

  beforeAll(async () => {
    build = await buildStateModulesForChildren();
  });

  afterAll(async () => {
    await build?.cleanup();
  });

  it('50 concurrent processes × 5 increments lose no update', async () => {
    const processes = 50;
    const times = 5;
    const results = await Promise.all(
      Array.from({ length: processes }, () =>
        runChild(build, { mode: 'increment', directory, sessionId: 'session-1', namespace: 'counter', times, lockStaleMs: 5000 }),
      ),
    );
    for (const result of results) expect(result, result.stderr).toMatchObject({ code: 0 });
    const store = createFileStateStore({ directory });
    expect(await store.read('session-1', 'counter')).toEqual({ count: processes * times });
    // Every update saw a distinct predecessor: the returned counts are exactly 1..250.
    const seen = results.flatMap((result) => JSON.parse(result.stdout) as number[]).sort((a, b) => a - b);
    expect(seen).toEqual(Array.from({ length: processes * times }, (_, index) => index + 1));
  });

  it('SIGKILL in the middle of big writes never leaves a torn file, and a stale lock is recovered', async () => {
    const sessionDirectory = path.join(directory, 'state', 'session-1');
    const file = path.join(sessionDirectory, 'big.json');
    const payloadBytes = 2 * 1024 * 1024;
    const task = { mode: 'write-forever', directory, sessionId: 'session-1', namespace: 'big', payloadBytes, lockStaleMs: 2000 };
    type BigDocument = { counter: number; payload: string; tail: string };
    const isWhole = (document: BigDocument) => document.tail === 'end' && document.payload.length === payloadBytes;

    // A reader polling without a lock while the writer runs: with atomic renames it only ever
    // sees whole documents (a plain overwrite shows it truncated files).
    let reading = true;
    let readsSeen = 0;
    const tornReads: string[] = [];
    const reader = (async () => {
      while (reading) {
        let text: string;
        try {
          text = await readFile(file, 'utf8');
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 1));
          continue; // not created yet
        }
        readsSeen++;
        try {
          if (!isWhole(JSON.parse(text) as BigDocument)) tornReads.push(`incomplete document of ${text.length} characters`);
        } catch {
          tornReads.push(`unparsable text of ${text.length} characters`);
        }
      }
    })();

    let lastCounter = 0;
    for (let round = 0; round < 5; round++) {
      // Each new writer first has to get past the lock the previous one may have died holding.
      const child = spawn(process.execPath, [childScript, build.directory, JSON.stringify(task)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, signal) => resolve(signal)));
      await new Promise<void>((resolve, reject) => {
        let ticks = 0;
        let killScheduled = false;
        const killAfter = 2 + Math.floor(Math.random() * 4);
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          ticks += chunk.split('\n').filter((line) => line.startsWith('tick')).length;
          if (ticks < killAfter || killScheduled) return;
          killScheduled = true;
          // A random pause past the last tick lands the kill somewhere inside a later update
          // (locked, reading, writing the temp file, renaming).
          setTimeout(() => {
            child.kill('SIGKILL');
            resolve();
          }, Math.random() * 20);
        });
        child.on('close', (code) => {
          if (code !== null) reject(new Error(`writer exited with ${code} before being killed: ${stderr}`));
        });
      });
      expect(await exited).toBe('SIGKILL');

      // Not torn: the file parses and is complete, and no committed update was lost.
      const document = JSON.parse(await readFile(file, 'utf8')) as BigDocument;
      expect(isWhole(document)).toBe(true);
      expect(document.counter).toBeGreaterThanOrEqual(lastCounter);
      lastCounter = document.counter;
    }
    reading = false;
    await reader;
    expect(readsSeen).toBeGreaterThan(0);
    expect(tornReads).toEqual([]);
    expect((await readdir(sessionDirectory)).filter((name) => name.includes('.corrupt-'))).toEqual([]);

    // The store keeps working in this process too, even if the last writer died holding the lock.
    const store = createFileStateStore({ directory, lockStaleMs: 2000, logger: createMemoryLogger() });
    const next = await store.update<{ counter: number }>('session-1', 'big', (current) => ({ counter: (current?.counter ?? 0) + 1 }));
    expect(next.counter).toBe(lastCounter + 1);
  });
});
