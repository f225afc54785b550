import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createLogger, type Logger } from '../logger.js';
import { acquireFileLock } from './lock.js';
import { checkDirectoryChain, ioError, readFileInside, UnsafePathError } from './safe-fs.js';
import type { EventLog, EventRecord } from './types.js';

/**
 * Append-only JSONL event log shared by concurrent hook processes.
 *
 * Appends take no lock. Each line is written by one `write()` call on a descriptor opened with
 * `O_APPEND`: the kernel moves to the end of the file and writes in one step, and on local file
 * systems (Linux ext4/xfs/btrfs, APFS, NTFS) a single write to a regular file is not interleaved
 * with other writers' writes, so concurrent processes produce whole lines. POSIX only promises
 * this for pipes up to PIPE_BUF, not for files, and not at all on NFS; a short write (disk full,
 * a signal) could in principle split a line. We accept that residual risk instead of locking
 * every append, because a per-append lock costs several syscalls per line, makes every hook wait
 * on every other, and a process killed while holding it would stall logging until it goes stale.
 * `readAll` skips malformed lines, so a rare split line costs that line, not the log. A line
 * left without its newline (a writer killed mid-line, a full disk) is never glued to the next
 * record: an append that finds the file not ending in a newline starts its line with one.
 *
 * Links: the log file and every folder from `root` down to it must be real: a symbolic link
 * (or a log file with a second hard link, which an append would write into) is refused with
 * an `UnsafePathError` naming it, and nothing is appended (see safe-fs.ts).
 * Lines are kept under {@link MAX_EVENT_LINE_BYTES} (big string fields are truncated) so each
 * one stays a small, single write.
 *
 * Rotation is the one step that needs coordination, so only it takes a lock: when the file has
 * reached `maxBytes` before an append, the appender locks, re-checks the size (another process
 * may have rotated meanwhile — re-checking is what prevents rotating twice), and renames
 * `path.(n-1)` → `path.n` … `path` → `path.1`, dropping what falls beyond `maxFiles`. A writer
 * that opened the file just before the rename writes into the renamed file — same inode — so its
 * line is kept, in `path.1`. If the lock is busy, the appender skips rotating and appends; the
 * file is briefly over the cap, and the next append rotates it.
 */
export interface EventLogOptions {
  /** The JSONL file. Parent folders are created on first append. */
  path: string;
  /** Rotate when the file has reached this many bytes. Default 5 MiB. */
  maxBytes?: number;
  /** Rotated files kept (`path.1` newest … `path.<maxFiles>` oldest). Default 3. */
  maxFiles?: number;
  /** Source of the `time` stamp. Default `() => new Date()`. */
  clock?: () => Date;
  /** Reports rotation trouble (never thrown: logging must not break a hook). Default: warnings to stderr. */
  logger?: Logger;
  /**
   * The folder below which no link is followed. Default: the path up to its last `.hookwise`
   * segment when it has one (`<project>/.hookwise/logs/events.jsonl` → `<project>/.hookwise`),
   * else the log's own folder.
   */
  root?: string;
}

export const DEFAULT_EVENT_LOG_MAX_BYTES = 5 * 1024 * 1024;
export const DEFAULT_EVENT_LOG_MAX_FILES = 3;
/** Longest line (including the newline) an append writes; bigger records have their long strings truncated. */
export const MAX_EVENT_LINE_BYTES = 64 * 1024;

// Rotation holds the lock for a few renames only; the short stale time means a rotator killed
// mid-rotation delays the next rotation (not any append) by at most this long.
const ROTATION_LOCK_STALE_MS = 5_000;

export function createEventLog(options: EventLogOptions): EventLog {
  const logPath = path.resolve(options.path);
  const maxBytes = Math.max(1, options.maxBytes ?? DEFAULT_EVENT_LOG_MAX_BYTES);
  const maxFiles = Math.max(0, Math.floor(options.maxFiles ?? DEFAULT_EVENT_LOG_MAX_FILES));
  const clock = options.clock ?? (() => new Date());
  const logger = options.logger ?? createLogger({ level: 'warn' });
  const root = options.root !== undefined ? path.resolve(options.root) : defaultRoot(logPath);

  function currentSize(): number | undefined {
    try {
      const stats = lstatSync(logPath);
      if (stats.isSymbolicLink()) throw new UnsafePathError(logPath, 'it is a symbolic link');
      return stats.size;
    } catch (error) {
      if (isErrorCode(error, 'ENOENT')) return undefined;
      throw error;
    }
  }

  async function rotateIfNeeded(): Promise<void> {
    const sizeBefore = currentSize();
    if (sizeBefore === undefined || sizeBefore < maxBytes) return;
    let lock;
    try {
      // A short wait: the holder only renames a handful of files. Giving up is safe (see above).
      lock = await acquireFileLock(logPath, { maxWaitMs: 200, staleMs: ROTATION_LOCK_STALE_MS, minDelayMs: 5, maxDelayMs: 50 });
    } catch (error) {
      logger.debug('could not lock event log for rotation', { path: logPath, error });
      return;
    }
    try {
      // Re-check under the lock: whoever held it before us may have rotated already.
      const sizeNow = currentSize();
      if (sizeNow !== undefined && sizeNow >= maxBytes) shiftFiles();
    } catch (error) {
      logger.warn('event log rotation failed', { path: logPath, error });
    } finally {
      lock.release();
    }
  }

  // rm and rename act on directory entries: a rotated name that is a link is moved or removed, never followed.
  function shiftFiles(): void {
    if (maxFiles === 0) {
      rmSync(logPath, { force: true });
      return;
    }
    rmSync(rotatedPath(logPath, maxFiles), { force: true });
    for (let index = maxFiles - 1; index >= 1; index--) {
      renameIfExists(rotatedPath(logPath, index), rotatedPath(logPath, index + 1));
    }
    renameIfExists(logPath, rotatedPath(logPath, 1));
  }

  function appendWholeLine(line: string): void {
    checkDirectoryChain(root, path.dirname(logPath), true);
    let fd: number;
    try {
      fd = openSync(
        logPath,
        constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
        0o666,
      );
    } catch (error) {
      if (isErrorCode(error, 'ELOOP') || isErrorCode(error, 'EMLINK')) throw new UnsafePathError(logPath, 'it is a symbolic link');
      throw ioError('append to', logPath, error);
    }
    try {
      const stats = fstatSync(fd);
      if (!stats.isFile()) throw new UnsafePathError(logPath, 'it is not a regular file');
      if (stats.nlink > 1)
        throw new UnsafePathError(logPath, `it has ${stats.nlink} hard links, so an append would also change another file`);
      let text = line;
      if (stats.size > 0) {
        const last = Buffer.alloc(1);
        if (readSync(fd, last, 0, 1, stats.size - 1) === 1 && last[0] !== 0x0a) text = `\n${line}`; // end the torn line first
      }
      const bytes = Buffer.from(text, 'utf8');
      // One write() for the whole line. The loop only matters for a short write, which a
      // local file system does not do for 64 KiB short of disk-full; continuing is better than
      // dropping the rest.
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    } catch (error) {
      throw UnsafePathError.isInstance(error) ? error : ioError('append to', logPath, error);
    } finally {
      closeSync(fd);
    }
  }

  return {
    path: logPath,
    async append(record: EventRecord): Promise<void> {
      const line = formatEventLine(record, clock());
      await rotateIfNeeded();
      appendWholeLine(line);
    },
    async readAll(readOptions: { includeRotated?: boolean } = {}): Promise<Array<EventRecord & { time: string }>> {
      const files: string[] = [];
      if (readOptions.includeRotated) for (let index = maxFiles; index >= 1; index--) files.push(rotatedPath(logPath, index));
      files.push(logPath);
      const records: Array<EventRecord & { time: string }> = [];
      for (const file of files) {
        const text = readFileInside(root, file);
        if (text !== undefined) records.push(...parseEventLines(text));
      }
      return records;
    },
  };
}

/**
 * In-memory {@link EventLog} for tests and replays; records go through the same formatting as
 * the file log. A record is copied when it is appended (what it holds then is what its line
 * says) and written out as its line when the log is read (`lines`, `readAll`): a replay appends
 * hundreds of records nobody reads. `lines` is the same array every time, complete when read.
 */
export function createMemoryEventLog(options: { clock?: () => Date } = {}): EventLog & { readonly lines: string[] } {
  const clock = options.clock ?? (() => new Date());
  const lines: string[] = [];
  let pending: Array<Record<string, unknown>> = [];
  const written = (): string[] => {
    if (pending.length > 0) {
      for (const entry of pending) lines.push(entryLine(entry));
      pending = [];
    }
    return lines;
  };
  return {
    path: ':memory:',
    get lines() {
      return written();
    },
    async append(record: EventRecord): Promise<void> {
      pending.push(eventEntry(record, clock()));
    },
    async readAll(): Promise<Array<EventRecord & { time: string }>> {
      return parseEventLines(written().join(''));
    },
  };
}

/**
 * One JSONL line (with trailing newline) for `record`: `time` first (it replaces a `time` the
 * record may carry, so the stamp is always the log's own), then the record's fields. Values JSON
 * cannot hold are made safe (BigInt as string, Errors as name/message/stack, cycles marked)
 * because a log call must never throw on the data it is given. Lines over
 * {@link MAX_EVENT_LINE_BYTES} get long strings truncated and `truncated: true`.
 */
export function formatEventLine(record: EventRecord, now: Date): string {
  return entryLine(eventEntry(record, now));
}

/** The line's content: a plain copy of the record, shared with nothing, stamped with `now`. */
function eventEntry(record: EventRecord, now: Date): Record<string, unknown> {
  const entry: Record<string, unknown> = { time: now.toISOString() };
  for (const [key, value] of Object.entries(record)) {
    if (key !== 'time') entry[key] = toPlain(value, [], 0);
  }
  if (typeof entry.type !== 'string') entry.type = String(entry.type);
  return entry;
}

/** The JSONL line of an {@link eventEntry}, cut down to {@link MAX_EVENT_LINE_BYTES}. */
function entryLine(entry: Record<string, unknown>): string {
  const full = `${JSON.stringify(entry)}\n`;
  if (Buffer.byteLength(full, 'utf8') <= MAX_EVENT_LINE_BYTES) return full;
  for (const stringLimit of [8192, 1024, 256, 64]) {
    const shortened = truncateStrings(entry, stringLimit) as Record<string, unknown>;
    shortened.truncated = true;
    const line = `${JSON.stringify(shortened)}\n`;
    if (Buffer.byteLength(line, 'utf8') <= MAX_EVENT_LINE_BYTES) return line;
  }
  // Too big even with short strings (huge arrays, thousands of keys): keep the fact, not the data.
  return `${JSON.stringify({
    time: entry.time,
    type: truncateString(String(entry.type), 256),
    truncated: true,
    originalBytes: Buffer.byteLength(full, 'utf8'),
  })}\n`;
}

function parseEventLines(text: string): Array<EventRecord & { time: string }> {
  const records: Array<EventRecord & { time: string }> = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      continue; // malformed (e.g. a line cut short by a crash): skip it, keep the rest
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) continue;
    const candidate = parsed as Record<string, unknown>;
    if (typeof candidate.type !== 'string' || typeof candidate.time !== 'string') continue;
    records.push(candidate as EventRecord & { time: string });
  }
  return records;
}

const MAX_DEPTH = 32;

/** A JSON-safe copy of `value`. `ancestors` holds the objects on the current path, so only real cycles are marked (a repeated, non-cyclic reference is copied). */
function toPlain(value: unknown, ancestors: object[], depth: number): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value; // JSON.stringify drops functions/symbols/undefined as usual
  if (ancestors.includes(value)) return '[Circular]';
  if (depth >= MAX_DEPTH) return '[Too deep]';
  const nextAncestors = [...ancestors, value];
  if (value instanceof Error) {
    const plain: Record<string, unknown> = { name: value.name, message: value.message };
    if (value.stack !== undefined) plain.stack = value.stack;
    const code = (value as { code?: unknown }).code;
    if (code !== undefined) plain.code = toPlain(code, nextAncestors, depth + 1);
    if (value.cause !== undefined) plain.cause = toPlain(value.cause, nextAncestors, depth + 1);
    return plain;
  }
  const withToJson = value as { toJSON?: unknown };
  if (typeof withToJson.toJSON === 'function') {
    try {
      return toPlain((withToJson.toJSON as () => unknown).call(value), nextAncestors, depth + 1);
    } catch {
      return '[Unserialisable]';
    }
  }
  if (Array.isArray(value)) return value.map((item) => toPlain(item, nextAncestors, depth + 1));
  const plain: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) plain[key] = toPlain(inner, nextAncestors, depth + 1);
  return plain;
}

function truncateStrings(value: unknown, limit: number): unknown {
  if (typeof value === 'string') return truncateString(value, limit);
  if (Array.isArray(value)) return value.map((item) => truncateStrings(item, limit));
  if (typeof value === 'object' && value !== null) {
    const copy: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(value)) copy[key] = truncateStrings(inner, limit);
    return copy;
  }
  return value;
}

function truncateString(value: string, limit: number): string {
  return value.length <= limit ? value : `${value.slice(0, limit)}…[${value.length - limit} more characters]`;
}

function rotatedPath(logPath: string, index: number): string {
  return `${logPath}.${index}`;
}

function renameIfExists(from: string, to: string): void {
  try {
    renameSync(from, to);
  } catch (error) {
    if (!isErrorCode(error, 'ENOENT')) throw error;
  }
}

function defaultRoot(logPath: string): string {
  const segments = logPath.split(path.sep);
  const at = segments.lastIndexOf('.hookwise');
  return at > 0 && at < segments.length - 1 ? segments.slice(0, at + 1).join(path.sep) || path.sep : path.dirname(logPath);
}

function isErrorCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
