import { lstatSync, renameSync, rmSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { HookwiseError, StateCorruptError } from '../errors.js';
import { createLogger, type Logger } from '../logger.js';
import { acquireFileLock } from './lock.js';
import {
  ChainChecks,
  ioError,
  isMissingFolderError,
  readFileNoFollow,
  sweepTempFiles,
  UnsafePathError,
  writeFileAtomicChecked,
} from './safe-fs.js';
import { cloneJsonTree, jsonCopy } from './json-copy.js';
import { assertSafeName } from './safe-name.js';
import type { SessionState, StateStore } from './types.js';

/**
 * File-backed {@link StateStore}.
 *
 * Layout: `<directory>/state/<sessionId>/<namespace>.json`, one JSON document per namespace.
 *
 * Names: the session id must pass {@link assertSafeName}. The namespace may also contain `/`
 * between safe segments and one leading `@`, so npm plugin names such as `@scope/name` work.
 * To keep each namespace a single file on every OS, names are then mapped *injectively* to a file
 * name: `/` becomes `+` and `:` becomes `=` (`:` is not allowed in Windows file names). Neither
 * `+` nor `=` is accepted in input, so two namespaces can never share a file — unlike a `__`
 * mapping, where `a/b` and `a__b` would collide. `@scope/name` is stored as `@scope+name.json`.
 * Case-insensitive file systems (macOS, Windows) still fold `Foo` and `foo` together.
 *
 * Links: nothing below `directory` is followed if it is a symbolic link — `directory` itself,
 * `state/`, the session folder, the file, its lock. Such a read or write is refused with an
 * `UnsafePathError` (code `HW_UNSAFE_PATH`) naming the link, and the link is left alone (see
 * safe-fs.ts for why refusing rather than replacing). A session folder's chain is checked once
 * per burst of work (safe-fs.ts' ChainChecks: reused for 250 ms, checked and created again when
 * a use finds the folder gone); the file itself is opened with `O_NOFOLLOW` at every read, and
 * an update replaces only what its locked read has just opened that way.
 *
 * Concurrency: Claude Code runs each hook as its own process, concurrently. `update` takes a
 * cross-process lock (`<file>.lock`, see lock.ts: a holder that died is detected at once by its
 * pid and start time, so a killed process costs the next call nothing noticeable), reads,
 * applies the function, writes a temp file that is renamed over the target, and releases.
 * Before the rename it checks the lock is still its own; if not, the update is retried from
 * the read, so it is never lost to contention. Waiting has no limit by default
 * (`retries.maxWaitMs`): the host's deadline is the bound, and a host should await
 * {@link FlushableStateStore.flush} before it exits.
 * The temp file is fsynced only with `durable: true`: a killed process cannot tear a renamed
 * file either way, and an fsync costs milliseconds on every hook call. `read` needs no lock.
 * Temp files of writers that died are removed under the lock (pid no longer running) after a
 * stale lock was taken over, and on a random one in 32 writes.
 *
 * Corruption: a document that does not parse is renamed to `<name>.corrupt-<timestamp>-<pid>.json`,
 * reported (logger warning + `onCorrupt`), and treated as absent. Nothing here throws for a
 * corrupt file.
 */
export interface FileStateStoreOptions {
  /** The project's `.hookwise` directory; state goes below `<directory>/state/`. Links from here down are refused. */
  directory: string;
  /** Receives corruption warnings and lock trouble. Default: warnings to stderr (never stdout, which Claude Code reads). */
  logger?: Logger;
  /** A lock held by another host, or by a live local process for this long, is taken over. Default 60 000. */
  lockStaleMs?: number;
  /** How long `update`/`clear` keep trying for a busy lock, and the randomized backoff between attempts. */
  retries?: LockRetryOptions;
  /** Called with the error after a corrupt file was moved aside (in addition to the logger warning). */
  onCorrupt?: (error: StateCorruptError) => void;
  /** fsync each write before the rename, to survive a power loss. Default false (see above). */
  durable?: boolean;
}

export interface LockRetryOptions {
  /**
   * Give up (HookwiseError `HW_STATE_LOCK`) after waiting this long. Default: no limit — a wait
   * only goes on while live holders come and go (a dead one is taken over at once, a live one
   * after `lockStaleMs`), and the host bounds the whole call (`hookwise run` has its deadline).
   */
  maxWaitMs?: number;
  /** Smallest pause between attempts. Default 2. */
  minDelayMs?: number;
  /**
   * Largest pause between attempts. Default 500: the pause grows from `minDelayMs` as a wait goes
   * on, so a long queue of waiters polls rarely; with hundreds of them polling every few
   * milliseconds, the holder itself waited for CPU and the queue drained four times slower.
   */
  maxDelayMs?: number;
}

/** A store whose pending writes can be awaited: a host process awaits them before it exits, so no update started by a hook is cut off. */
export interface FlushableStateStore extends StateStore {
  /** Resolves once every update and clear started so far has finished (successfully or not). */
  flush(): Promise<void>;
  /** How many updates and clears are still running. */
  pending(): number;
  /** Whether an update or clear is waiting for another process to release a state lock (time a hook's deadline does not count). */
  waitingForLock(): boolean;
}

const DEFAULT_LOCK_STALE_MS = 60_000;
/** On average, one locked write in this many sweeps dead writers' temp files even when no stale lock was taken over. */
const SWEEP_EVERY = 32;
const DEFAULT_MAX_WAIT_MS = Number.POSITIVE_INFINITY;

export function createFileStateStore(options: FileStateStoreOptions): FlushableStateStore {
  const root = path.resolve(options.directory);
  const stateRoot = path.join(root, 'state');
  const logger = options.logger ?? createLogger({ level: 'warn' });
  const lockOptions = {
    staleMs: Math.max(1, options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS),
    maxWaitMs: Math.max(0, options.retries?.maxWaitMs ?? DEFAULT_MAX_WAIT_MS),
    minDelayMs: Math.max(1, options.retries?.minDelayMs ?? 2),
    maxDelayMs: 0,
  };
  lockOptions.maxDelayMs = Math.max(lockOptions.minDelayMs, options.retries?.maxDelayMs ?? 500);
  const inFlight = new Set<Promise<unknown>>();
  let lockWaits = 0;

  // Validated names are single path components (no `/`, `.` or `..` left after toFileName), so
  // joining them with the separator is what path.join would return, without its normalising pass.
  const sessionDirectory = (sessionId: string): string => `${stateRoot}${path.sep}${toFileName(assertSafeName(sessionId, 'session id'))}`;
  const namespaceFile = (sessionId: string, namespace: string): string =>
    `${sessionDirectory(sessionId)}${path.sep}${toFileName(assertSafeNamespace(namespace))}.json`;
  // Each session folder's chain is checked once per burst of work (see ChainChecks for why that is safe).
  const chains = new ChainChecks(root);

  function track<R>(work: Promise<R>): Promise<R> {
    inFlight.add(work);
    const done = () => inFlight.delete(work);
    work.then(done, done);
    return work;
  }

  /**
   * Reads and parses `file`, whose folder chain the caller has checked; a corrupt file reads as
   * `{ corrupt: true }`. Links and non-regular files throw.
   */
  function readDocument<T>(file: string): { corrupt: false; value: T | undefined } | { corrupt: true; parseError: unknown } {
    const text = readFileNoFollow(file);
    if (text === undefined) return { corrupt: false, value: undefined };
    try {
      return { corrupt: false, value: JSON.parse(text) as T };
    } catch (parseError) {
      return { corrupt: true, parseError };
    }
  }

  /** Must be called while holding the file's lock, so it can only move aside the file it judged corrupt. */
  function quarantine(file: string, parseError: unknown): void {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const movedTo = `${file.slice(0, -'.json'.length)}.corrupt-${stamp}-${process.pid}.json`;
    let destination: string | undefined = movedTo;
    try {
      renameSync(file, movedTo);
    } catch (renameError) {
      // Could not move it (permissions?): remove it so the store keeps working; the warning
      // still reports the loss.
      destination = undefined;
      rmSync(file, { force: true });
      logger.debug('could not move corrupt state file aside', { file, error: renameError });
    }
    const error = new StateCorruptError(file, destination, parseError);
    logger.warn(error.message, { file, movedTo: destination });
    try {
      options.onCorrupt?.(error);
    } catch (callbackError) {
      logger.warn('onCorrupt callback threw', { error: callbackError });
    }
  }

  function readUnderLock<T>(file: string): T | undefined {
    const first = readDocument<T>(file);
    if (!first.corrupt) return first.value;
    quarantine(file, first.parseError);
    return undefined;
  }

  /**
   * Runs `body` under the file's lock. `body` gets a `commit` guard to call right before it
   * changes the file: it throws {@link LockLost} when the lock was taken over meanwhile, and
   * the whole body is then run again under a fresh lock.
   */
  async function withLock<R>(file: string, body: (commit: () => void) => Promise<R>): Promise<R> {
    const directory = path.dirname(file);
    chains.check(directory, true);
    for (let attempt = 0; ; attempt++) {
      let lock;
      lockWaits++;
      try {
        lock = await acquireFileLock(file, lockOptions);
      } catch (error) {
        // The folder was checked a moment ago; a concurrent clear(sessionId) may have removed it since.
        if (!isMissingFolderError(error)) throw error;
        chains.forget(directory);
        chains.check(directory, true);
        lock = await acquireFileLock(file, lockOptions);
      } finally {
        lockWaits--;
      }
      try {
        // Under the lock nobody else writes this file, so a temp file of it is a dead writer's.
        // A writer killed mid-write leaves its lock too, so the sweep (a readdir) runs when a
        // stale lock was taken over; a waiter killed before it got the lock leaves only its
        // lock-tmp file, which the occasional sweep removes (1 write in SWEEP_EVERY, at random:
        // not on every write, which costs each hook call a readdir).
        if (lock.tookOverStale || Math.random() * SWEEP_EVERY < 1) sweepTempFiles(path.dirname(file), path.basename(file));
        return await body(() => {
          if (!lock.stillHeld()) throw new LockLost();
        });
      } catch (error) {
        if (error instanceof LockLost && attempt < 20) {
          logger.debug('state lock was taken over before the write; retrying the update', { file });
          continue;
        }
        if (error instanceof LockLost)
          throw new HookwiseError(`lost the lock on ${file} 20 times in a row; the update was not applied`, { code: 'HW_STATE_LOCK' });
        throw error;
      } finally {
        lock.release();
      }
    }
  }

  /** The temp file and rename of an update; a session folder removed since it was checked (a concurrent clear(sessionId)) is created again. */
  function writeUnderLock(file: string, text: string, commit: () => void): void {
    const write = () => writeFileAtomicChecked(file, text, { fsync: options.durable === true, beforeRename: commit });
    try {
      write();
    } catch (error) {
      if (!isMissingFolderError(error)) throw error;
      const directory = path.dirname(file);
      chains.forget(directory);
      chains.check(directory, true);
      write();
    }
  }

  return {
    async read<T = unknown>(sessionId: string, namespace: string): Promise<T | undefined> {
      const file = namespaceFile(sessionId, namespace);
      if (!chains.check(path.dirname(file), false)) return undefined;
      const result = readDocument<T>(file);
      if (!result.corrupt) return result.value;
      // Only move it aside under the lock: without it, an updater could have replaced the
      // corrupt file with a good one between our read and our rename, and we would hide that.
      return track(withLock(file, async () => readUnderLock<T>(file)));
    },

    update<T = unknown>(sessionId: string, namespace: string, fn: (current: T | undefined) => T | Promise<T>): Promise<T> {
      return track(
        (async () => {
          const file = namespaceFile(sessionId, namespace);
          return withLock(file, async (commit) => {
            const current = readUnderLock<T>(file);
            const next = await fn(current);
            // Returning undefined means "no value": remove the file rather than write `undefined`,
            // which is not JSON.
            const text = next === undefined ? undefined : serialise(next, file);
            if (text === undefined) {
              commit();
              removeFile(file);
            } else {
              // What is at `file` was checked by the read above, under this lock (O_NOFOLLOW, a
              // regular file or nothing), and the folder chain by withLock.
              writeUnderLock(file, text, commit);
            }
            return next;
          });
        })(),
      );
    },

    clear(sessionId: string, namespace?: string): Promise<void> {
      return track(
        (async () => {
          if (namespace === undefined) {
            // Whole session: no per-namespace locks; an update racing this may recreate its own
            // file, which is the same outcome as that update running just after the clear.
            const directory = sessionDirectory(sessionId);
            if (!chains.check(directory, false)) return;
            chains.forget(directory);
            try {
              rmSync(directory, { recursive: true, force: true }); // rm never follows links inside
            } catch (error) {
              throw ioError('remove', directory, error);
            }
            return;
          }
          const file = namespaceFile(sessionId, namespace);
          // Nothing to clear: skip the lock, which would also create an empty session folder.
          if (!chains.check(path.dirname(file), false) || !existsNoFollow(file)) return;
          // Under the lock so a concurrent update cannot write back the value it read before the clear.
          await withLock(file, async (commit) => {
            commit();
            removeFile(file);
          });
        })(),
      );
    },

    async flush(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    pending: () => inFlight.size,
    waitingForLock: () => lockWaits > 0,
  };
}

class LockLost extends Error {}

function removeFile(file: string): void {
  try {
    const stats = lstatSync(file);
    if (stats.isSymbolicLink()) throw new UnsafePathError(file, 'it is a symbolic link');
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw HookwiseError.isInstance(error) ? error : ioError('remove', file, error);
  }
}

function existsNoFollow(file: string): boolean {
  try {
    return lstatSync(file, { throwIfNoEntry: false }) !== undefined;
  } catch {
    return false;
  }
}

/**
 * Binds a store to one session and a default namespace (a plugin's name), validating both up
 * front so a bad session id fails at setup rather than at the first write.
 */
export function createSessionState(store: StateStore, sessionId: string, defaultNamespace: string): SessionState {
  assertSafeName(sessionId, 'session id');
  assertSafeNamespace(defaultNamespace);
  return {
    sessionId,
    read: <T = unknown>(namespace?: string) => store.read<T>(sessionId, namespace ?? defaultNamespace),
    update: <T = unknown>(fn: (current: T | undefined) => T | Promise<T>, namespace?: string) =>
      store.update<T>(sessionId, namespace ?? defaultNamespace, fn),
    clear: (namespace?: string) => store.clear(sessionId, namespace ?? defaultNamespace),
  };
}

/**
 * In-memory {@link StateStore} for tests and in-process hosts (a replay runs one per report).
 * Updates to one key run one after another, in call order (the in-process equivalent of the
 * file lock). Callers see exactly what the file store would give them (no shared references, no
 * `undefined` properties, dates as strings): each value is kept as a private tree equal to its
 * JSON round trip, copied on the way in and on every read (see json-copy.ts; a copy is several
 * times cheaper than the parse a stored text would need). Names are validated like the file
 * store's, so tests catch unsafe names too; a pair of names that passed is remembered.
 */
export function createMemoryStateStore(): StateStore {
  const values = new Map<string, unknown>();
  /**
   * The keys an update is running on, each with the updates waiting for it, in call order (the
   * in-process lock). An uncontended update (nearly all: a replay's hooks run one at a time)
   * makes no promise of its own: a promise chain per update cost more than its copies.
   */
  const busy = new Map<string, Array<() => void>>();
  const keys = createKeyMemo();
  const keyOf = keys.keyOf;

  const acquire = (key: string): Promise<void> | undefined => {
    const waiting = busy.get(key);
    if (waiting === undefined) {
      busy.set(key, []);
      return undefined;
    }
    return new Promise((resolve) => waiting.push(resolve));
  };
  // Hands the key to the next waiting update (it stays busy) or frees it.
  const release = (key: string): void => {
    const next = busy.get(key)?.shift();
    if (next !== undefined) next();
    else busy.delete(key);
  };

  return {
    async read<T = unknown>(sessionId: string, namespace: string): Promise<T | undefined> {
      return cloneJsonTree(values.get(keyOf(sessionId, namespace)) as T | undefined);
    },
    async update<T = unknown>(sessionId: string, namespace: string, fn: (current: T | undefined) => T | Promise<T>): Promise<T> {
      const key = keyOf(sessionId, namespace); // inside an async function, so a bad name rejects rather than throws
      const wait = acquire(key);
      // The value is read after the caller's synchronous code, as a queued update reads it.
      await wait;
      try {
        const next = await fn(cloneJsonTree(values.get(key) as T | undefined));
        if (next === undefined) values.delete(key);
        else
          values.set(
            key,
            jsonCopy(next, (value) => JSON.parse(serialise(value, key))),
          );
        return next;
      } finally {
        release(key);
      }
    },
    async clear(sessionId: string, namespace?: string): Promise<void> {
      if (namespace !== undefined) {
        const key = keyOf(sessionId, namespace);
        await acquire(key);
        values.delete(key);
        release(key);
        return;
      }
      const prefix = `${keys.session(sessionId)}\u0000`;
      for (const key of [...values.keys()]) if (key.startsWith(prefix)) values.delete(key);
    },
  };
}

/** Remembered sessions (or a session's namespaces) are forgotten past this many: a long-lived host sees new ones forever. */
const KEY_MEMO_LIMIT = 1_000;

/**
 * The store's key of each (session id, namespace) pair, made once: the names are checked then
 * (the checks are pure, so a pair that passed once passes again), and every later read or
 * update of the pair finds the same key string, whose hash V8 keeps, instead of building and
 * hashing a new one.
 */
function createKeyMemo(): { keyOf(sessionId: string, namespace: string): string; session(sessionId: string): string } {
  const bySession = new Map<string, Map<string, string>>();
  return {
    keyOf(sessionId, namespace) {
      const known = bySession.get(sessionId)?.get(namespace);
      if (known !== undefined) return known;
      const key = `${assertSafeName(sessionId, 'session id')}\u0000${assertSafeNamespace(namespace)}`;
      let byNamespace = bySession.get(sessionId);
      if (byNamespace === undefined) {
        if (bySession.size >= KEY_MEMO_LIMIT) bySession.clear();
        byNamespace = new Map();
        bySession.set(sessionId, byNamespace);
      } else if (byNamespace.size >= KEY_MEMO_LIMIT) byNamespace.clear();
      byNamespace.set(namespace, key);
      return key;
    },
    session: (sessionId) => (bySession.has(sessionId) ? sessionId : assertSafeName(sessionId, 'session id')),
  };
}

/** Namespace rule: safe segments separated by `/`, optionally one leading `@` (npm scope). */
export function assertSafeNamespace(namespace: unknown): string {
  if (typeof namespace === 'string' && namespace.startsWith('@')) {
    assertSafeName(namespace.slice(1), 'state namespace (after its leading "@")', { allowSlash: true, maxLength: 127 });
    return namespace;
  }
  return assertSafeName(namespace, 'state namespace', { allowSlash: true });
}

/** Injective mapping from a validated name to one file-name component (see the module comment). */
function toFileName(validatedName: string): string {
  return validatedName.replaceAll('/', '+').replaceAll(':', '=');
}

export function serialise(value: unknown, where: string): string {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`${typeof value} is not JSON`);
    return text;
  } catch (error) {
    throw new HookwiseError(`state value for ${where} is not JSON-serialisable`, { code: 'HW_STATE_VALUE', cause: error });
  }
}
