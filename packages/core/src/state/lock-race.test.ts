import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it, vi } from 'vitest';
import { acquireFileLock } from './lock.js';
import * as safeFs from './safe-fs.js';

// What happens between a waiter's read of the lock and its look at the holder's pid, put at
// that exact moment: the holder it read releases and exits, and another process takes the lock.
const between = vi.hoisted(() => ({ deadPid: -1, act: undefined as (() => void) | undefined }));
vi.mock('./safe-fs.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./safe-fs.js')>();
  return {
    ...actual,
    isProcessAlive: (pid: number) => {
      if (pid === between.deadPid && between.act) {
        const act = between.act;
        between.act = undefined;
        act();
      }
      return actual.isProcessAlive(pid);
    },
  };
});

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'hookwise-lock-race-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

const machine = () => {
  try {
    return readFileSync('/proc/sys/kernel/hostname', 'latin1').trim() || hostname();
  } catch {
    return hostname();
  }
};

it('a holder that released and exited after the waiter read it: the new holder is not taken over (a lost count in a burst)', async () => {
  const file = path.join(directory, 'state.json');
  const lockPath = `${file}.lock`;
  // The first holder: a process that has exited by the time the waiter checks on it.
  between.deadPid = spawnSync(process.execPath, ['-e', '0']).pid!;
  writeFileSync(lockPath, `token-of-first\n${between.deadPid}\n\n${machine()}\n`);
  const liveRecord = `token-of-second\n${process.pid}\n${safeFs.processStartTime(process.pid) ?? ''}\n${machine()}\n`;
  between.act = () => {
    unlinkSync(lockPath); // the first holder's release
    writeFileSync(lockPath, liveRecord); // a live process takes the lock
  };

  const waiter = acquireFileLock(file, { maxWaitMs: 30_000, staleMs: 60_000, minDelayMs: 2, maxDelayMs: 5 });
  await new Promise((resolve) => setTimeout(resolve, 100));
  // The second holder still holds what it took: nobody moved it aside meanwhile.
  expect(readFileSync(lockPath, 'utf8')).toBe(liveRecord);
  expect(between.act).toBeUndefined();
  unlinkSync(lockPath); // the second holder's release
  const taken = await waiter;
  // Moving a live lock aside, even for a moment, lets a third process in beside its holder.
  expect(taken.tookOverStale).toBe(false);
  taken.release();
});
