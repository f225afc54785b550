import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireFileLock } from './lock.js';

let directory: string;
beforeEach(() => {
  directory = mkdtempSync(path.join(tmpdir(), 'hookwise-lock-'));
});
afterEach(() => rmSync(directory, { recursive: true, force: true }));

const options = (staleMs: number) => ({ maxWaitMs: 0, staleMs, minDelayMs: 1, maxDelayMs: 1 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('file lock: a slow holder keeps its lock', () => {
  it('a live holder that holds past staleMs is still busy to others (the burst built three bundles when it was not)', async () => {
    const file = path.join(directory, 'run-bundle.json');
    const slow = await acquireFileLock(file, options(150));
    // The holder works (its event loop runs) for several times staleMs, as a build under load does.
    await sleep(600);
    await expect(acquireFileLock(file, options(150))).rejects.toMatchObject({ code: 'HW_STATE_LOCK' });
    expect(slow.stillHeld()).toBe(true);
    slow.release();
    const next = await acquireFileLock(file, options(150));
    expect(next.tookOverStale).toBe(false);
    next.release();
  });

  it('a lock nobody touches for staleMs is taken over (a holder on another host, or one that stopped)', async () => {
    const file = path.join(directory, 'state.json');
    // A holder record of another machine whose last sign of life was a minute ago.
    writeFileSync(`${file}.lock`, 'token-of-elsewhere\n4242\n\nanother-host\n');
    const minuteAgo = Date.now() / 1000 - 60;
    utimesSync(`${file}.lock`, minuteAgo, minuteAgo);
    const taken = await acquireFileLock(file, options(1_000));
    expect(taken.tookOverStale).toBe(true);
    taken.release();
  });

  it('a released lock is no longer touched: the heartbeat stops with the release', async () => {
    const file = path.join(directory, 'other.json');
    const first = await acquireFileLock(file, options(30));
    first.release();
    const second = await acquireFileLock(file, options(30));
    await sleep(100);
    expect(second.stillHeld()).toBe(true);
    expect(first.stillHeld()).toBe(false);
    second.release();
  });
});
