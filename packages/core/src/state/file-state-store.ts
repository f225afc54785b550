import { mkdir, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { loadLockfile } from './lazy-deps.js';
import { loadWriteFileAtomic } from './lazy-deps.js';
import { HookwiseError, StateCorruptError } from '../errors.js';
import { createLogger, type Logger } from '../logger.js';
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
 * Concurrency: Claude Code runs each hook as its own process, concurrently. `update` takes a
 * cross-process lock (proper-lockfile: an atomic `mkdir` of `<file>.lock`, refreshed while held
 * and considered stale after `lockStaleMs`, so a process killed while holding it blocks others
 * for at most that long), reads, applies the function, writes to a temp file that is renamed
 * over the target (write-file-atomic), and releases. The temp file is fsynced only with
 * `durable: true`: a killed process cannot tear a renamed file either way (the page cache
 * outlives it), and an fsync costs several milliseconds on every hook call; it only matters
 * for a power loss. Because the rename is atomic, `read`
 * needs no lock: it sees either the old or the new document, never a torn one.
 *
 * Corruption: a document that does not parse is renamed to `<name>.corrupt-<timestamp>-<pid>.json`,
 * reported (logger warning + `onCorrupt`), and treated as absent. Nothing here throws for a
 * corrupt file.
 */
export interface FileStateStoreOptions {
  /** The project's `.hookwise` directory; state goes below `<directory>/state/`. */
  directory: string;
  /** Receives corruption warnings and lock trouble. Default: warnings to stderr (never stdout, which Claude Code reads). */
  logger?: Logger;
  /** A lock whose holder has not refreshed it for this long is taken over (min 2000, proper-lockfile's floor). Default 10 000. */
  lockStaleMs?: number;
  /** How long `update`/`clear` keep trying for a busy lock, and the randomized backoff between attempts. */
  retries?: LockRetryOptions;
  /** Called with the error after a corrupt file was moved aside (in addition to the logger warning). */
  onCorrupt?: (error: StateCorruptError) => void;
  /** fsync each write before the rename, to survive a power loss. Default false (see above). */
  durable?: boolean;
}

export interface LockRetryOptions {
  /** Give up (HookwiseError `HW_STATE_LOCK`) after waiting this long. Default `lockStaleMs * 2 + 10 000`, enough to outlast a crashed holder. */
  maxWaitMs?: number;
  /** Smallest pause between attempts. Default 5. */
  minDelayMs?: number;
  /** Largest pause between attempts. Default 250. */
  maxDelayMs?: number;
}

const DEFAULT_LOCK_STALE_MS = 10_000;
// proper-lockfile silently raises anything lower to this floor; using the same value keeps our
// default wait computation honest.
const PROPER_LOCKFILE_MIN_STALE_MS = 2_000;

export function createFileStateStore(options: FileStateStoreOptions): StateStore {
  const stateRoot = path.resolve(options.directory, 'state');
  const logger = options.logger ?? createLogger({ level: 'warn' });
  const lockStaleMs = Math.max(options.lockStaleMs ?? DEFAULT_LOCK_STALE_MS, PROPER_LOCKFILE_MIN_STALE_MS);
  const maxWaitMs = options.retries?.maxWaitMs ?? lockStaleMs * 2 + 10_000;
  const minDelayMs = Math.max(1, options.retries?.minDelayMs ?? 5);
  const maxDelayMs = Math.max(minDelayMs, options.retries?.maxDelayMs ?? 250);

  const sessionDirectory = (sessionId: string): string =>
    path.join(stateRoot, toFileName(assertSafeName(sessionId, 'session id')));
  const namespaceFile = (sessionId: string, namespace: string): string =>
    path.join(sessionDirectory(sessionId), `${toFileName(assertSafeNamespace(namespace))}.json`);

  /** Reads and parses `file`; a corrupt file is moved aside and reported, and reads as absent. */
  async function readDocument<T>(file: string): Promise<{ corrupt: false; value: T | undefined } | { corrupt: true; parseError: unknown }> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      if (isErrorCode(error, 'ENOENT') || isErrorCode(error, 'ENOTDIR')) return { corrupt: false, value: undefined };
      throw new HookwiseError(`cannot read state file ${file}`, { code: 'HW_STATE_IO', cause: error });
    }
    try {
      return { corrupt: false, value: JSON.parse(text) as T };
    } catch (parseError) {
      return { corrupt: true, parseError };
    }
  }

  /** Must be called while holding the file's lock, so it can only move aside the file it judged corrupt. */
  async function quarantine(file: string, parseError: unknown): Promise<void> {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    const movedTo = `${file.slice(0, -'.json'.length)}.corrupt-${stamp}-${process.pid}.json`;
    let destination: string | undefined = movedTo;
    try {
      await rename(file, movedTo);
    } catch (renameError) {
      // Could not move it (permissions?): remove it so the store keeps working; the warning
      // still reports the loss.
      destination = undefined;
      await rm(file, { force: true }).catch(() => {});
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

  /** Parse result of the locked re-read, or the value after moving a corrupt file aside. */
  async function readUnderLock<T>(file: string): Promise<T | undefined> {
    const first = await readDocument<T>(file);
    if (!first.corrupt) return first.value;
    await quarantine(file, first.parseError);
    return undefined;
  }

  async function withLock<R>(file: string, body: (assertStillHeld: () => void) => Promise<R>): Promise<R> {
    await mkdir(path.dirname(file), { recursive: true });
    let compromisedBy: Error | undefined;
    const release = await acquireLock(file, (error) => {
      // proper-lockfile's default handler throws from a timer, which would crash the hook
      // process. Remember it instead; the body checks before writing.
      compromisedBy = error;
      logger.warn('state lock was compromised (held longer than lockStaleMs, or removed by another process)', { file, error });
    });
    try {
      return await body(() => {
        if (compromisedBy) {
          throw new HookwiseError(`lost the lock on ${file} before writing; the update was not applied`, {
            code: 'HW_STATE_LOCK',
            cause: compromisedBy,
          });
        }
      });
    } finally {
      await release().catch((error: unknown) => {
        // ERELEASED after a compromise is expected; anything else is worth a debug line only,
        // because the lock will go stale and be taken over anyway.
        logger.debug('releasing state lock failed', { file, error });
      });
    }
  }

  async function acquireLock(file: string, onCompromised: (error: Error) => void): Promise<() => Promise<void>> {
    const deadline = Date.now() + maxWaitMs;
    for (let attempt = 0; ; attempt++) {
      try {
        // retries: 0 — we run the retry loop ourselves so it is bounded by time (a crashed
        // holder needs up to lockStaleMs) rather than by a count.
        return await (await loadLockfile()).lock(file, { stale: lockStaleMs, realpath: false, retries: 0, onCompromised });
      } catch (error) {
        if (!isErrorCode(error, 'ELOCKED')) {
          throw new HookwiseError(`cannot lock state file ${file}`, { code: 'HW_STATE_LOCK', cause: error });
        }
        if (Date.now() >= deadline) {
          throw new HookwiseError(`state file ${file} stayed locked for more than ${maxWaitMs} ms`, { code: 'HW_STATE_LOCK', cause: error });
        }
        await sleep(backoffDelay(attempt, minDelayMs, maxDelayMs));
      }
    }
  }

  return {
    async read<T = unknown>(sessionId: string, namespace: string): Promise<T | undefined> {
      const file = namespaceFile(sessionId, namespace);
      const result = await readDocument<T>(file);
      if (!result.corrupt) return result.value;
      // Only move it aside under the lock: without it, an updater could have replaced the
      // corrupt file with a good one between our read and our rename, and we would hide that.
      return withLock(file, () => readUnderLock<T>(file));
    },

    async update<T = unknown>(sessionId: string, namespace: string, fn: (current: T | undefined) => T | Promise<T>): Promise<T> {
      const file = namespaceFile(sessionId, namespace);
      return withLock(file, async (assertStillHeld) => {
        const current = await readUnderLock<T>(file);
        const next = await fn(current);
        // Returning undefined means "no value": remove the file rather than write `undefined`,
        // which is not JSON.
        const text = next === undefined ? undefined : serialise(next, file);
        assertStillHeld();
        await mkdir(path.dirname(file), { recursive: true }); // a concurrent clear(sessionId) may have removed it
        if (text === undefined) {
          await rm(file, { force: true });
        } else {
          await (await loadWriteFileAtomic())(file, text, { encoding: 'utf8', fsync: options.durable === true });
        }
        return next;
      });
    },

    async clear(sessionId: string, namespace?: string): Promise<void> {
      if (namespace === undefined) {
        // Whole session: no per-namespace locks; an update racing this may recreate its own file,
        // which is the same outcome as that update running just after the clear.
        await rm(sessionDirectory(sessionId), { recursive: true, force: true });
        return;
      }
      const file = namespaceFile(sessionId, namespace);
      // Nothing to clear: skip the lock, which would also create an empty session folder.
      if (!(await exists(file))) return;
      // Under the lock so a concurrent update cannot write back the value it read before the clear.
      await withLock(file, async () => {
        await unlink(file).catch((error: unknown) => {
          if (!isErrorCode(error, 'ENOENT')) throw error;
        });
      });
    },
  };
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
 * In-memory {@link StateStore} for tests and in-process hosts. Updates to one key run one after
 * another on a promise chain (the in-process equivalent of the file lock). Values are copied
 * through JSON on the way in and out, so callers see exactly what the file store would give
 * them (no shared references, no `undefined` properties, dates as strings). Names are validated
 * like the file store's, so tests catch unsafe names too.
 */
export function createMemoryStateStore(): StateStore {
  const values = new Map<string, string>();
  const chains = new Map<string, Promise<unknown>>();
  const keyOf = (sessionId: string, namespace: string): string =>
    `${assertSafeName(sessionId, 'session id')}\u0000${assertSafeNamespace(namespace)}`;

  function serialised<R>(key: string, task: () => Promise<R>): Promise<R> {
    const previous = chains.get(key) ?? Promise.resolve();
    const result = previous.then(task, task);
    const tail = result.catch(() => {});
    chains.set(key, tail);
    // Forget the chain once idle so a long-lived host does not keep one promise per key forever.
    void tail.then(() => {
      if (chains.get(key) === tail) chains.delete(key);
    });
    return result;
  }

  return {
    async read<T = unknown>(sessionId: string, namespace: string): Promise<T | undefined> {
      const text = values.get(keyOf(sessionId, namespace));
      return text === undefined ? undefined : (JSON.parse(text) as T);
    },
    async update<T = unknown>(sessionId: string, namespace: string, fn: (current: T | undefined) => T | Promise<T>): Promise<T> {
      const key = keyOf(sessionId, namespace); // inside an async function, so a bad name rejects rather than throws
      return serialised(key, async () => {
        const text = values.get(key);
        const next = await fn(text === undefined ? undefined : (JSON.parse(text) as T));
        if (next === undefined) values.delete(key);
        else values.set(key, serialise(next, key));
        return next;
      });
    },
    async clear(sessionId: string, namespace?: string): Promise<void> {
      if (namespace !== undefined) {
        const key = keyOf(sessionId, namespace);
        await serialised(key, async () => {
          values.delete(key);
        });
        return;
      }
      const prefix = `${assertSafeName(sessionId, 'session id')}\u0000`;
      for (const key of [...values.keys()]) if (key.startsWith(prefix)) values.delete(key);
    },
  };
}

/** Namespace rule: safe segments separated by `/`, optionally one leading `@` (npm scope). */
function assertSafeNamespace(namespace: unknown): string {
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

function serialise(value: unknown, where: string): string {
  try {
    const text = JSON.stringify(value);
    if (text === undefined) throw new TypeError(`${typeof value} is not JSON`);
    return text;
  } catch (error) {
    throw new HookwiseError(`state value for ${where} is not JSON-serialisable`, { code: 'HW_STATE_VALUE', cause: error });
  }
}

/** "Full jitter" exponential backoff: random spread keeps 50 waiting processes from retrying in lockstep. */
function backoffDelay(attempt: number, minDelayMs: number, maxDelayMs: number): number {
  const ceiling = Math.min(maxDelayMs, minDelayMs * 2 ** Math.min(attempt, 16));
  return minDelayMs + Math.random() * (ceiling - minDelayMs);
}

async function exists(file: string): Promise<boolean> {
  try {
    await stat(file);
    return true;
  } catch (error) {
    if (isErrorCode(error, 'ENOENT') || isErrorCode(error, 'ENOTDIR')) return false;
    throw error;
  }
}

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}

function isErrorCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === code;
}
