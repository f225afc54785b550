import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createEventLog } from './event-log.js';
import { createFileStateStore } from './file-state-store.js';
import { acquireFileLock } from './lock.js';

// Reproductions of issue 15 at the level of the store and the log: each failed on the
// previous implementation (write-file-atomic wrote through links, readFile/append followed
// them, a `mkdir`ed lock cost up to 10 s, a torn line swallowed the next record).
let root: string;
let hookwiseDir: string;
let outside: string;
const quiet = {
  debug() {},
  info() {},
  warn() {},
  error() {},
  child() {
    return quiet;
  },
} as never;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-hardening-')));
  hookwiseDir = path.join(root, 'project', '.hookwise');
  outside = path.join(root, 'outside');
  mkdirSync(hookwiseDir, { recursive: true });
  mkdirSync(outside);
});
afterEach(() => {
  try {
    chmodSync(hookwiseDir, 0o755);
  } catch {
    // removed by the test
  }
  rmSync(root, { recursive: true, force: true });
});

describe('links inside .hookwise are refused, never followed', () => {
  it('a state file linked to an outside file is neither read nor overwritten', async () => {
    const target = path.join(outside, 'target.json');
    writeFileSync(target, '{"secret":1}');
    mkdirSync(path.join(hookwiseDir, 'state', 's1'), { recursive: true });
    symlinkSync(target, path.join(hookwiseDir, 'state', 's1', 'ns.json'));
    const store = createFileStateStore({ directory: hookwiseDir, logger: quiet });
    await expect(store.read('s1', 'ns')).rejects.toThrow(/symbolic link.*target\.json/);
    await expect(store.update('s1', 'ns', () => ({ overwritten: true }))).rejects.toMatchObject({ code: 'HW_UNSAFE_PATH' });
    expect(readFileSync(target, 'utf8')).toBe('{"secret":1}');
  });

  it('a linked session folder puts nothing outside', async () => {
    mkdirSync(path.join(hookwiseDir, 'state'));
    symlinkSync(outside, path.join(hookwiseDir, 'state', 's1'));
    const store = createFileStateStore({ directory: hookwiseDir, logger: quiet });
    await expect(store.update('s1', 'ns', () => 1)).rejects.toThrow(/refused .*s1: it is a symbolic link/);
    await expect(store.clear('s1')).rejects.toMatchObject({ code: 'HW_UNSAFE_PATH' });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('.hookwise itself linked elsewhere puts no state there', async () => {
    const linked = path.join(root, 'project2', '.hookwise');
    mkdirSync(path.dirname(linked));
    symlinkSync(outside, linked);
    const store = createFileStateStore({ directory: linked, logger: quiet });
    await expect(store.update('s1', 'ns', () => 1)).rejects.toMatchObject({ code: 'HW_UNSAFE_PATH' });
    const log = createEventLog({ path: path.join(linked, 'logs', 'events.jsonl'), logger: quiet });
    await expect(log.append({ type: 'x' })).rejects.toMatchObject({ code: 'HW_UNSAFE_PATH' });
    expect(readdirSync(outside)).toEqual([]);
  });

  it('events.jsonl linked (symbolic or hard) to an outside file gets no line', async () => {
    const target = path.join(outside, 'log.txt');
    writeFileSync(target, 'keep\n');
    mkdirSync(path.join(hookwiseDir, 'logs'));
    symlinkSync(target, path.join(hookwiseDir, 'logs', 'events.jsonl'));
    await expect(
      createEventLog({ path: path.join(hookwiseDir, 'logs', 'events.jsonl'), logger: quiet }).append({ type: 'x' }),
    ).rejects.toMatchObject({ code: 'HW_UNSAFE_PATH' });
    linkSync(target, path.join(hookwiseDir, 'logs', 'hard.jsonl'));
    await expect(
      createEventLog({ path: path.join(hookwiseDir, 'logs', 'hard.jsonl'), logger: quiet }).append({ type: 'x' }),
    ).rejects.toThrow(/2 hard links/);
    expect(readFileSync(target, 'utf8')).toBe('keep\n');
  });

  it('a FIFO in place of a state file is refused without blocking', async () => {
    mkdirSync(path.join(hookwiseDir, 'state', 's1'), { recursive: true });
    expect(spawnSync('mkfifo', [path.join(hookwiseDir, 'state', 's1', 'ns.json')]).status).toBe(0);
    const store = createFileStateStore({ directory: hookwiseDir, logger: quiet });
    await expect(store.read('s1', 'ns')).rejects.toThrow(/is a FIFO|it is a FIFO/);
  });
});

describe('locks left behind', () => {
  it('a lock made by `mkdir <file>.lock` is taken over at once', async () => {
    const store = createFileStateStore({ directory: hookwiseDir, logger: quiet });
    await store.update('s1', 'ns', () => 1);
    mkdirSync(path.join(hookwiseDir, 'state', 's1', 'ns.json.lock'));
    const started = Date.now();
    expect(await store.update<number>('s1', 'ns', (value) => (value ?? 0) + 1)).toBe(2);
    // Not a timing assertion on the machine's speed: the old lock waited for 10 s of staleness.
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('a lock a live process took long ago is not taken over by age: a slow holder is waited for', async () => {
    // What the first burst of a fresh install met on a loaded machine: a bundle build that held
    // its lock past staleMs, taken over and built again, three times.
    const file = path.join(hookwiseDir, 'state', 's1', 'slow.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const slow = await acquireFileLock(file, { maxWaitMs: 0, staleMs: 50, minDelayMs: 1, maxDelayMs: 1 });
    const longAgo = (Date.now() - 10 * 60_000) / 1000;
    utimesSync(slow.path, longAgo, longAgo);
    await expect(acquireFileLock(file, { maxWaitMs: 20, staleMs: 50, minDelayMs: 1, maxDelayMs: 5 })).rejects.toMatchObject({
      code: 'HW_STATE_LOCK',
    });
    expect(slow.stillHeld()).toBe(true);
    slow.release();
    (await acquireFileLock(file, { maxWaitMs: 0, staleMs: 50, minDelayMs: 1, maxDelayMs: 1 })).release();
  });

  it('a lock of a killed process (pid gone) is taken over at once, and its temp files are swept', async () => {
    const store = createFileStateStore({ directory: hookwiseDir, logger: quiet });
    await store.update('s1', 'ns', () => 1);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const deadPid = Number(dead.stdout);
    const sessionDir = path.join(hookwiseDir, 'state', 's1');
    writeFileSync(path.join(sessionDir, 'ns.json.lock'), `token\n${deadPid}\n1\n${os.hostname()}\n`);
    writeFileSync(path.join(sessionDir, `ns.json.${deadPid}.abc123.tmp`), '{"half');
    expect(await store.update<number>('s1', 'ns', (value) => (value ?? 0) + 1)).toBe(2);
    expect(readdirSync(sessionDir).sort()).toEqual(['ns.json']);
  });

  it('flush() waits for updates still running', async () => {
    const store = createFileStateStore({ directory: hookwiseDir, logger: quiet });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    void store.update('s1', 'ns', async () => {
      await gate;
      return 'late';
    });
    expect(store.pending()).toBe(1);
    setTimeout(release, 20);
    await store.flush();
    expect(await store.read('s1', 'ns')).toBe('late');
  });
});

describe('the state store checks a folder chain once per burst of work, and re-checks its lock before each commit', () => {
  const sessionDir = () => path.join(hookwiseDir, 'state', 's1');
  const lockFile = () => path.join(sessionDir(), 'ns.json.lock');
  const tokenOf = (lock: string) => readFileSync(lock, 'utf8').split('\n')[0]!;

  it('a session folder removed by another process since it was checked is created again', async () => {
    const store = createFileStateStore({ directory: hookwiseDir, logger: quiet });
    await store.update('s1', 'ns', () => 1);
    rmSync(sessionDir(), { recursive: true }); // another process's clear('s1')
    expect(await store.read('s1', 'ns')).toBeUndefined();
    expect(await store.update<number>('s1', 'ns', (value) => (value ?? 0) + 1)).toBe(1);
    expect(await store.read('s1', 'ns')).toBe(1);
  });

  it('a session folder removed while an update holds its lock: the update runs again and is not lost', async () => {
    const store = createFileStateStore({ directory: hookwiseDir, logger: quiet });
    await store.update('s1', 'ns', () => 1);
    let calls = 0;
    const result = await store.update<number>('s1', 'ns', (value) => {
      calls++;
      if (calls === 1) rmSync(sessionDir(), { recursive: true }); // the lock goes with it
      return (value ?? 0) + 10;
    });
    expect(calls).toBe(2);
    expect(result).toBe(10);
    expect(await store.read('s1', 'ns')).toBe(10);
    expect(readdirSync(sessionDir())).toEqual(['ns.json']);
  });

  it('a lock another live process took over before the commit: the update waits for it, runs again, and never removes its lock', async () => {
    const store = createFileStateStore({ directory: hookwiseDir, logger: quiet });
    await store.update('s1', 'ns', () => 1);
    const other = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.ppid))'], { encoding: 'utf8' }); // a live pid: this test's own process
    const livePid = Number(other.stdout);
    let calls = 0;
    let othersLockSeenAtRelease: string | undefined;
    const result = await store.update<number>('s1', 'ns', async (value) => {
      calls++;
      if (calls === 1) {
        // What breakStale in another process can do: move our lock away and have a third
        // process's lock take its place. Ours is gone; theirs names a live holder.
        const ours = tokenOf(lockFile());
        rmSync(lockFile());
        writeFileSync(lockFile(), `other-token\n${livePid}\n\n${os.hostname()}\n`);
        expect(tokenOf(lockFile())).not.toBe(ours);
        setTimeout(() => {
          othersLockSeenAtRelease = tokenOf(lockFile());
          rmSync(lockFile()); // the other holder is done
        }, 100);
      }
      return (value ?? 0) + 1;
    });
    expect(calls).toBe(2);
    expect(result).toBe(2);
    expect(await store.read('s1', 'ns')).toBe(2);
    expect(othersLockSeenAtRelease).toBe('other-token'); // our first attempt did not unlink it
  });

  it.each([
    [
      'a symbolic link to a copy of our own record',
      (lock: string) => {
        const copy = path.join(outside, 'copied-lock');
        writeFileSync(copy, readFileSync(lock));
        rmSync(lock);
        symlinkSync(copy, lock);
      },
    ],
    [
      'a folder',
      (lock: string) => {
        rmSync(lock);
        mkdirSync(lock);
      },
    ],
  ])('a lock replaced by %s before the commit is not ours: the update runs again', async (_what, replace) => {
    const store = createFileStateStore({ directory: hookwiseDir, logger: quiet });
    let calls = 0;
    const result = await store.update<number>('s1', 'ns', (value) => {
      calls++;
      if (calls === 1) replace(lockFile());
      return (value ?? 0) + 1;
    });
    expect(calls).toBe(2);
    expect(result).toBe(1);
    expect(await store.read('s1', 'ns')).toBe(1);
    expect(existsSync(lockFile())).toBe(false);
  });
});

describe('event log', () => {
  it('a torn last line does not swallow the next record', async () => {
    const file = path.join(hookwiseDir, 'logs', 'events.jsonl');
    mkdirSync(path.dirname(file));
    writeFileSync(file, '{"time":"2026-01-01T00:00:00.000Z","type":"whole"}\n{"time":"2026-01-01T00:00:00.000Z","type":"to');
    const log = createEventLog({ path: file, logger: quiet });
    await log.append({ type: 'after' });
    expect((await log.readAll()).map((record) => record.type)).toEqual(['whole', 'after']);
  });
});

describe('messages', () => {
  it('a file where a folder should be names the real cause', async () => {
    writeFileSync(path.join(hookwiseDir, 'state'), '');
    const store = createFileStateStore({ directory: hookwiseDir, logger: quiet });
    const error = await store.update('s1', 'ns', () => 1).catch((caught: Error) => caught);
    expect(String((error as Error).message)).toMatch(/state: it is not a regular file, expected a folder|expected a folder/);
    expect(String((error as Error).message)).not.toMatch(/ENOENT|mkdir/);
    expect(existsSync(path.join(hookwiseDir, 'state'))).toBe(true);
  });
});

describe('transcripts', () => {
  it('the transcript readers refuse a FIFO without blocking', async () => {
    const { readTranscript } = await import('../messages/transcript.js');
    const { readTranscriptTail } = await import('../messages/transcript-tail.js');
    const fifo = path.join(root, 'transcript.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    await expect(readTranscript(fifo)).rejects.toThrow(/is a FIFO, not a regular file/);
    await expect(readTranscriptTail(fifo)).rejects.toThrow(/is a FIFO, not a regular file/);
  });

  it('with synchronous reads (a hook process) the readers give the same answers, and still refuse a FIFO without blocking', async () => {
    const { readTranscript } = await import('../messages/transcript.js');
    const { readTranscriptTail } = await import('../messages/transcript-tail.js');
    const { openRegularFile, readRegularFile, useSynchronousReads } = await import('./safe-fs.js');
    const file = path.join(root, 'transcript.jsonl');
    const lines = Array.from({ length: 40 }, (_, index) =>
      JSON.stringify({
        type: 'assistant',
        uuid: `u${index}`,
        message: {
          id: `m${index}`,
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: `reply ${index} ${'x'.repeat(index * 50)}` }],
          usage: { input_tokens: 10 + index, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0, output_tokens: 5 },
        },
      }),
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    const fifo = path.join(root, 'sync.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const answers = async () => ({
      tail: await readTranscriptTail(file, { chunkSize: 97 }),
      whole: await readTranscript(file),
      text: await readRegularFile(file),
      middle: await (async () => {
        const handle = await openRegularFile(file);
        try {
          const buffer = Buffer.alloc(16);
          const { bytesRead } = await handle.read(buffer, 0, 16, 5);
          return { size: (await handle.stat()).size, bytes: buffer.subarray(0, bytesRead).toString('latin1') };
        } finally {
          await handle.close();
        }
      })(),
    });
    const asynchronous = await answers();
    useSynchronousReads();
    try {
      expect(await answers()).toEqual(asynchronous);
      await expect(readTranscriptTail(fifo)).rejects.toThrow(/is a FIFO, not a regular file/);
      await expect(readRegularFile(path.join(root, 'missing.jsonl'))).rejects.toMatchObject({ code: 'ENOENT' });
      await expect(readRegularFile(root)).rejects.toMatchObject({ code: 'EISDIR' });
    } finally {
      useSynchronousReads(false);
    }
    expect(asynchronous.tail.usage?.contextTokens).toBe(1049);
  });
});

describe('checkDirectoryChain (the folder chain every read and write checks)', () => {
  it('gives the same answers for normal paths (string operations) and any other spelling (path.resolve), links refused in both', async () => {
    const { checkDirectoryChain, UnsafePathError } = await import('./safe-fs.js');
    const deep = path.join(hookwiseDir, 'state', 's1');
    expect(checkDirectoryChain(hookwiseDir, deep, false)).toBe(false);
    expect(checkDirectoryChain(hookwiseDir, deep, true)).toBe(true);
    expect(existsSync(deep)).toBe(true);
    for (const spelling of [deep, `${deep}/`, `${hookwiseDir}/./state//s1`, `${hookwiseDir}/state/x/../s1`]) {
      expect(checkDirectoryChain(`${hookwiseDir}/`, spelling, false)).toBe(true);
      expect(checkDirectoryChain(hookwiseDir, spelling, false)).toBe(true);
    }
    expect(checkDirectoryChain(hookwiseDir, hookwiseDir, false)).toBe(true);
    for (const outsider of [`${hookwiseDir}-sibling/state`, `${hookwiseDir}/../outside`, outside, path.dirname(hookwiseDir)]) {
      expect(() => checkDirectoryChain(hookwiseDir, outsider, true)).toThrow(/is outside/);
    }
    symlinkSync(outside, path.join(hookwiseDir, 'state', 'linked'));
    for (const spelling of [path.join(hookwiseDir, 'state', 'linked', 'deeper'), `${hookwiseDir}/state/./linked/deeper/`]) {
      let caught: unknown;
      try {
        checkDirectoryChain(hookwiseDir, spelling, true);
      } catch (error) {
        caught = error;
      }
      expect(UnsafePathError.isInstance(caught)).toBe(true);
      expect((caught as Error).message).toContain(`refused ${path.join(hookwiseDir, 'state', 'linked')}: it is a symbolic link`);
    }
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('processStartTime', () => {
  it('reads field 22 of /proc/<pid>/stat, after a command name with spaces and parentheses', async () => {
    const { processStartTime } = await import('./safe-fs.js');
    const fromText = (pid: number) => {
      const text = readFileSync(`/proc/${pid}/stat`, 'latin1');
      return text.slice(text.lastIndexOf(')') + 2).split(' ')[19];
    };
    if (!existsSync('/proc/self/stat')) return expect(processStartTime(process.pid)).toBeUndefined();
    expect(processStartTime(process.pid)).toMatch(/^\d+$/);
    expect(processStartTime(process.pid)).toBe(fromText(process.pid));
    const oddName = path.join(root, 'a b) (c');
    writeFileSync(oddName, '#!/bin/sh\nsleep 5\n', { mode: 0o755 });
    const child = spawn(oddName, [], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(readFileSync(`/proc/${child.pid}/stat`, 'latin1')).toContain('(a b) (c)');
      expect(processStartTime(child.pid!)).toBe(fromText(child.pid!));
    } finally {
      child.kill('SIGKILL');
    }
    expect(processStartTime(999_999_999)).toBeUndefined();
  });
});
