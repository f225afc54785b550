import {
  closeSync,
  constants,
  linkSync,
  lstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { HookwiseError } from '../errors.js';
import { ioError, isProcessAlive, processStartTime, tempNameFor } from './safe-fs.js';

/**
 * A cross-process lock on one file: `<file>.lock`, a small regular file naming its holder
 * (a random token, pid, process start time and host name).
 *
 * Taking it: the holder record is written to a temp file first and then `link`ed to the lock
 * name, which fails with EEXIST when the lock exists. So a lock file is complete from the moment
 * it exists; there is no window in which a waiter sees an empty lock and has to guess.
 *
 * A dead holder is detected at once, not after a timeout: a lock whose pid is not running — or
 * runs a different process now (start time differs, Linux) — is taken over on the next attempt.
 * So a hook process killed with SIGKILL while holding the lock costs the next call one extra
 * `read` of the lock, not seconds. Anything at the lock name that is not such a record (a folder,
 * e.g. a left-over proper-lockfile lock or a planted `mkdir`; a link; garbage) is moved aside at
 * once too: hookwise never created it this way, so nobody can be waiting on it. A holder on
 * another host (a shared network folder) cannot be checked, and counts as stale after `staleMs`.
 * A live local holder whose start time matches is never timed out by age: the hook process's
 * own deadline ends it. Only where the start time cannot be read (not Linux) does a live holder
 * count as stale after `staleMs`, since its pid may have been reused.
 *
 * Taking over goes through a second read (the holder judged dead may have released before it
 * exited, and someone else taken the lock), a `rename` of the stale lock to a unique name, then a
 * check that what was moved is the lock judged stale; if a live lock was moved by mistake (it was retaken in
 * between), it is linked back. The holder also re-checks its token right before it commits
 * ({@link HeldLock.stillHeld}), so a broken lock costs a retry, never a lost update.
 */
export interface FileLockOptions {
  /** Give up (HookwiseError `HW_STATE_LOCK`) after waiting this long for a live holder. */
  maxWaitMs: number;
  /** A lock of another host, or a live local holder whose start time cannot be read, counts as stale after this long. */
  staleMs: number;
  minDelayMs: number;
  maxDelayMs: number;
}

export interface HeldLock {
  readonly path: string;
  /** Whether the lock file is still this holder's (nobody judged it stale and took it). */
  stillHeld(): boolean;
  /** Whether taking it meant moving aside a stale lock (a dead holder's, or something foreign): a crash may have left temp files. */
  readonly tookOverStale: boolean;
  release(): void;
}

const held = new Set<{ path: string; token: string }>();
let exitHookInstalled = false;

/** Releases every lock this process holds; runs on `process.exit` (signals and deadlines end calls that way). */
export function releaseHeldLocks(): void {
  for (const entry of [...held]) releaseEntry(entry);
}

function releaseEntry(entry: { path: string; token: string }): void {
  held.delete(entry);
  try {
    if (holdsToken(entry.path, entry.token)) unlinkSync(entry.path);
  } catch {
    // gone already
  }
}

const tokenBuffer = Buffer.allocUnsafe(256);

/**
 * Whether the lock file at `lockPath` is a regular file whose record starts with `token`: what
 * {@link readHolder} would say about the token, in three system calls (open, read, close)
 * instead of five. The holder's checks before its commit and at release need only the token:
 * a link (`O_NOFOLLOW`), a folder (the read fails), a FIFO or a device (`O_NONBLOCK`, and no
 * such thing starts with a token of ours) are all "not ours".
 */
function holdsToken(lockPath: string, token: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return false;
  }
  try {
    const length = readSync(fd, tokenBuffer, 0, tokenBuffer.length, 0);
    if (length <= token.length || tokenBuffer[token.length] !== 0x0a) return false;
    for (let index = 0; index < token.length; index++) if (tokenBuffer[index] !== token.charCodeAt(index)) return false;
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}

interface Holder {
  token: string;
  pid: number;
  start: string;
  host: string;
  mtimeMs: number;
}

/** The lock's record; `'foreign'` when something else sits at the lock name; undefined when there is no lock. */
function readHolder(lockPath: string): Holder | 'foreign' | undefined {
  let stats;
  try {
    stats = lstatSync(lockPath);
  } catch {
    return undefined;
  }
  if (!stats.isFile()) return 'foreign';
  let text: string;
  try {
    const fd = openSync(lockPath, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
    try {
      text = readFileSync(fd, 'utf8');
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'foreign';
  }
  const [token, pid, start, host] = text.split('\n');
  if (!token || !pid || !/^\d+$/.test(pid) || host === undefined) return 'foreign';
  return { token, pid: Number(pid), start: start ?? '', host, mtimeMs: stats.mtimeMs };
}

let ownStart: string | undefined;
let ownHost: string | undefined;

/**
 * This machine's name, as `os.hostname()` gives it. On Linux it is the kernel's node name, read
 * from /proc (the same value gethostname returns): a hook call then never loads node:os, a
 * cost on every start (the run bundle loads built-ins like it on first use).
 */
function machineName(): string {
  if (process.platform === 'linux') {
    try {
      const name = readFileSync('/proc/sys/kernel/hostname', 'latin1').trim();
      if (name !== '') return name;
    } catch {
      // no /proc: ask Node
    }
  }
  return hostname();
}

function isStale(holder: Holder | 'foreign', staleMs: number): boolean {
  if (holder === 'foreign') return true;
  ownHost ??= machineName();
  const age = Date.now() - holder.mtimeMs;
  if (holder.host !== ownHost) return age > staleMs;
  if (!isProcessAlive(holder.pid)) return true;
  if (holder.start !== '') {
    const start = processStartTime(holder.pid);
    if (start !== undefined && start !== holder.start) return true; // the pid was reused
    // The very process that took it, still running: never stale by age. A slow holder (a bundle
    // build on a machine at load 300 takes minutes) taken over would do its work twice.
    if (start !== undefined) return false;
  }
  // Where a reused pid cannot be told apart, age decides.
  return age > staleMs;
}

function describe(holder: Holder | 'foreign'): string {
  return holder === 'foreign' ? 'foreign' : holder.token;
}

/** Moves a stale lock out of the way without ever removing a lock someone retook meanwhile. */
function breakStale(lockPath: string, judged: Holder | 'foreign'): void {
  const grave = tempNameFor(lockPath, 'stale-tmp');
  try {
    renameSync(lockPath, grave);
  } catch {
    return; // someone else broke it first
  }
  const moved = readHolder(grave);
  if (moved !== undefined && describe(moved) !== describe(judged) && moved !== 'foreign') {
    // We moved a live lock that was retaken after our check: put it back.
    try {
      linkSync(grave, lockPath);
    } catch {
      // Retaken again: that holder's stillHeld() check fails and it retries.
    }
  }
  try {
    rmSync(grave, { recursive: true, force: true });
  } catch {
    // the sweeper removes it later
  }
}

export async function acquireFileLock(file: string, options: FileLockOptions): Promise<HeldLock> {
  const lockPath = `${file}.lock`;
  const token = Math.random().toString(36).slice(2) + Date.now().toString(36);
  ownStart ??= processStartTime(process.pid) ?? '';
  ownHost ??= machineName();
  const record = `${token}\n${process.pid}\n${ownStart}\n${ownHost}\n`;
  const temporary = tempNameFor(lockPath, 'lock-tmp');
  let fd: number | undefined;
  try {
    fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0), 0o644);
    writeSync(fd, record);
  } catch (error) {
    try {
      unlinkSync(temporary);
    } catch {
      // never created
    }
    throw ioError('create a lock for', file, error);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  const deadline = Date.now() + options.maxWaitMs;
  // The lock's age (its mtime) is the temp file's: keep it fresh while waiting, or a lock taken
  // after a long wait would look old to others at once.
  let touchedAt = Date.now();
  let tookOverStale = false;
  try {
    for (let attempt = 0; ; attempt++) {
      if (Date.now() - touchedAt > 500) {
        touchedAt = Date.now();
        utimesSync(temporary, touchedAt / 1000, touchedAt / 1000);
      }
      try {
        linkSync(temporary, lockPath);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('lock', file, error);
      }
      const holder = readHolder(lockPath);
      if (holder === undefined) continue; // released between our link and our read
      if (isStale(holder, options.staleMs)) {
        // The holder read a moment ago may have released and exited since, and a live process
        // taken the lock: break only what is still there. Moving a live lock aside, even for the
        // moment before it is linked back, lets a third process in beside its holder.
        const again = readHolder(lockPath);
        if (again === undefined || describe(again) !== describe(holder)) continue;
        breakStale(lockPath, holder);
        tookOverStale = true;
        continue;
      }
      if (Date.now() >= deadline) {
        throw new HookwiseError(
          `${file} stayed locked by process ${holder === 'foreign' ? '?' : holder.pid} for more than ${options.maxWaitMs} ms`,
          { code: 'HW_STATE_LOCK' },
        );
      }
      await sleep(backoffDelay(attempt, options.minDelayMs, options.maxDelayMs));
    }
  } finally {
    try {
      unlinkSync(temporary);
    } catch {
      // already gone
    }
  }
  const entry = { path: lockPath, token };
  held.add(entry);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.on('exit', releaseHeldLocks);
  }
  return {
    path: lockPath,
    tookOverStale,
    stillHeld: () => holdsToken(lockPath, token),
    release: () => releaseEntry(entry),
  };
}

/** "Full jitter" exponential backoff: random spread keeps many waiting processes from retrying in lockstep. */
function backoffDelay(attempt: number, minDelayMs: number, maxDelayMs: number): number {
  const ceiling = Math.min(maxDelayMs, minDelayMs * 2 ** Math.min(attempt, 16));
  return minDelayMs + Math.random() * (ceiling - minDelayMs);
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
