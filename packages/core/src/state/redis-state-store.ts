// Session state in Redis, for an app served by several instances: one conversation's requests
// land on any of them, and all must see the same prunes, counts and active commands.
import { randomBytes } from 'node:crypto';
import type { Redis as RedisClient, RedisOptions } from 'ioredis';
import { HookwiseError, StateCorruptError } from '../errors.js';
import { createLogger, type Logger } from '../logger.js';
import { assertSafeName } from './safe-name.js';
import { assertSafeNamespace, serialise, type FlushableStateStore } from './file-state-store.js';

/** A week: a conversation left alone that long starts afresh. */
export const DEFAULT_STATE_TTL_SECONDS = 7 * 24 * 60 * 60;

export interface RedisStateStoreOptions {
  /** `redis://[user:password@]host:port/db` (or `rediss://`). */
  url: string;
  /** What keys are prefixed with (`hookwise:<project>:<session>:<namespace>`): instances of one app share it. */
  project: string;
  ttlSeconds?: number;
  logger?: Logger;
  /** Called once when Redis becomes unreachable (and once more when it is back, with undefined). */
  onOutage?: (error: HookwiseError | undefined) => void;
  /** Called for a value under hookwise's key that is not hookwise's (set aside, treated as absent). */
  onCorrupt?: (error: StateCorruptError) => void;
  /** How long a command may wait for a connection before it fails (default 1,000 ms). */
  connectTimeoutMs?: number;
  /**
   * How long a command may wait for its answer (default 2,000 ms): a stalled Redis keeps the
   * connection open and answers nothing, and must fail the hook open, not hold it to its deadline.
   */
  commandTimeoutMs?: number;
}

export interface RedisStateStore extends FlushableStateStore {
  /** Closes the connection (a hook process must not be kept alive by it). */
  close(): Promise<void>;
}

// Compare-and-set on the version field: the update commits only if nobody committed since it
// read, on any machine. A key of another type (not hookwise's) answers WRONGTYPE.
const COMMIT = `
local version = redis.call('HGET', KEYS[1], 'v')
if (version or '0') ~= ARGV[1] then return 0 end
if ARGV[3] == '' then redis.call('DEL', KEYS[1]) return 1 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'data', ARGV[3])
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[4]))
return 1`;

/**
 * A {@link FlushableStateStore} on Redis. `update` is atomic across processes and machines by
 * optimistic concurrency: read value and version, apply `fn`, commit only if the version is
 * unchanged (a Lua script), else run `fn` again on the newer value. No update is lost and no
 * lock is left behind by a crashed instance.
 *
 * Faults: commands fail at once while Redis is unreachable (no offline queue), with a
 * HookwiseError `HW_STATE_UNAVAILABLE`, so the engine fails the hook open within its deadline;
 * the outage is reported once (logger, `onOutage`) and the client reconnects in the background.
 * A value under hookwise's key that is not its own (another type, or JSON that does not parse)
 * is renamed aside to `<key>:corrupt:<time>`, reported, and read as absent.
 *
 * ioredis is imported on first use, so a process that never touches state pays nothing for it.
 */
export function createRedisStateStore(options: RedisStateStoreOptions): RedisStateStore {
  const logger = options.logger ?? createLogger({ level: 'warn' });
  const ttl = String(options.ttlSeconds ?? DEFAULT_STATE_TTL_SECONDS);
  // A package name, scope included (`@acme/support-bot`), is the usual project name.
  const project = assertSafeNamespace(options.project);
  const where = redactedUrl(options.url);
  const inFlight = new Set<Promise<unknown>>();
  const local = new Map<string, Promise<unknown>>();
  let client: Promise<RedisClient> | undefined;
  let down = false;

  const keyOf = (sessionId: string, namespace?: string) =>
    `hookwise:${part(project)}:${part(assertSafeName(sessionId, 'session id'))}${namespace === undefined ? '' : `:${part(assertSafeNamespace(namespace))}`}`;

  const connect = (): Promise<RedisClient> =>
    (client ??= (async () => {
      const { Redis } = await import('ioredis');
      const redisOptions: RedisOptions = {
        lazyConnect: true,
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        connectTimeout: options.connectTimeoutMs ?? 1_000,
        // A slow Redis fails the command rather than holding the hook past its deadline.
        commandTimeout: options.commandTimeoutMs ?? 2_000,
        retryStrategy: (times) => Math.min(100 * times, 2_000),
        reconnectOnError: () => false,
      };
      const redis = new Redis(options.url, redisOptions);
      // ioredis emits every failed reconnect: the store reports an outage once, itself.
      redis.on('error', () => undefined);
      redis.defineCommand('hookwiseCommit', { numberOfKeys: 1, lua: COMMIT });
      return redis;
    })());

  async function run<T>(work: (redis: RedisClient & { hookwiseCommit(...args: string[]): Promise<number> }) => Promise<T>): Promise<T> {
    let redis: RedisClient;
    try {
      redis = await connect();
      if (redis.status === 'wait' || redis.status === 'end') await redis.connect();
      // During an outage every command fails at once; the client reconnects in the background.
      else if (redis.status !== 'ready') {
        if (down) throw new Error(`connection ${redis.status}`);
        await waitReady(redis, options.connectTimeoutMs ?? 1_000);
      }
    } catch (error) {
      throw unavailable(error);
    }
    try {
      const result = await work(redis as never);
      if (down) {
        down = false;
        logger.warn(`state store ${where} is reachable again: session state goes on`);
        options.onOutage?.(undefined);
      }
      return result;
    } catch (error) {
      if (HookwiseError.isInstance(error) || error instanceof StateCorruptError || isWrongType(error)) throw error;
      throw unavailable(error);
    }
  }

  function unavailable(cause: unknown): HookwiseError {
    const error = new HookwiseError(
      `state store ${where} is unreachable (${(cause as Error)?.message ?? String(cause)}); this hook goes on without session state`,
      {
        code: 'HW_STATE_UNAVAILABLE',
        cause,
      },
    );
    if (!down) {
      down = true;
      logger.error(error.message);
      try {
        options.onOutage?.(error);
      } catch (callbackError) {
        logger.warn('onOutage callback threw', { error: callbackError });
      }
    }
    return error;
  }

  /** Moves a value that is not hookwise's aside and reports it; the key then reads as absent. */
  async function setAside(redis: RedisClient, key: string, reason: unknown): Promise<void> {
    const destination = `${key}:corrupt:${Date.now()}`;
    await redis.rename(key, destination).catch(() => undefined);
    const error = new StateCorruptError(key, destination, reason);
    logger.warn(error.message);
    try {
      options.onCorrupt?.(error);
    } catch (callbackError) {
      logger.warn('onCorrupt callback threw', { error: callbackError });
    }
  }

  /** The stored value and its version; a foreign value is set aside first. */
  async function load(redis: RedisClient, key: string): Promise<{ version: string; value: unknown }> {
    let fields: Record<string, string>;
    try {
      fields = await redis.hgetall(key);
    } catch (error) {
      if (!isWrongType(error)) throw error;
      await setAside(redis, key, error);
      return { version: '0', value: undefined };
    }
    const { v: version, data, ...other } = fields;
    if (version === undefined && data === undefined && Object.keys(other).length === 0) return { version: '0', value: undefined };
    if (version === undefined || data === undefined || Object.keys(other).length > 0) {
      await setAside(redis, key, new Error('a hash that is not {v, data}'));
      return { version: '0', value: undefined };
    }
    try {
      return { version, value: JSON.parse(data) };
    } catch (error) {
      await setAside(redis, key, error);
      return { version: '0', value: undefined };
    }
  }

  function track<R>(work: Promise<R>): Promise<R> {
    inFlight.add(work);
    const done = () => inFlight.delete(work);
    work.then(done, done);
    return work;
  }

  return {
    async read<T>(sessionId: string, namespace: string): Promise<T | undefined> {
      const key = keyOf(sessionId, namespace);
      return run(async (redis) => (await load(redis, key)).value as T | undefined);
    },

    update<T>(sessionId: string, namespace: string, fn: (current: T | undefined) => T | Promise<T>): Promise<T> {
      let key: string;
      try {
        key = keyOf(sessionId, namespace);
      } catch (error) {
        return Promise.reject(error);
      }
      // Updates of one key in this process run one after another (fewer retries); across
      // processes the version check decides.
      const previous = local.get(key) ?? Promise.resolve();
      const next = previous.then(
        () => commitLoop(key, fn),
        () => commitLoop(key, fn),
      );
      local.set(key, next);
      void next.finally(() => local.get(key) === next && local.delete(key)).catch(() => undefined);
      return track(next);
    },

    async clear(sessionId: string, namespace?: string): Promise<void> {
      const key = keyOf(sessionId, namespace);
      await track(
        run(async (redis) => {
          if (namespace !== undefined) return void (await redis.del(key));
          // The session's keys: SCAN, never KEYS, so a large database is not blocked.
          let cursor = '0';
          do {
            const [nextCursor, keys] = await redis.scan(cursor, 'MATCH', `${escapeGlob(key)}:*`, 'COUNT', 200);
            cursor = nextCursor;
            if (keys.length > 0) await redis.del(...keys);
          } while (cursor !== '0');
        }),
      );
    },

    async flush(): Promise<void> {
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },

    pending: () => inFlight.size,

    // Versions, not locks: nothing ever waits for another process.
    waitingForLock: () => false,

    async close(): Promise<void> {
      const pending = client;
      client = undefined;
      if (!pending) return;
      const redis = await pending.catch(() => undefined);
      if (!redis) return;
      await redis.quit().catch(() => redis.disconnect());
    },
  };

  async function commitLoop<T>(key: string, fn: (current: T | undefined) => T | Promise<T>): Promise<T> {
    for (;;) {
      const { version, value } = await run((redis) => load(redis, key));
      const result = await fn(value as T | undefined);
      const text = result === undefined ? '' : serialise(result, key);
      const committed = await run((redis) => redis.hookwiseCommit(key, version, nextVersion(version), text, ttl));
      if (committed === 1) return result === undefined ? result : (JSON.parse(text) as T);
    }
  }
}

function waitReady(redis: RedisClient, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => finish(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
    const onReady = () => finish();
    const onEnd = () => finish(new Error('connection closed'));
    function finish(error?: Error) {
      clearTimeout(timer);
      redis.off('ready', onReady);
      redis.off('end', onEnd);
      if (error) reject(error);
      else resolve();
    }
    redis.once('ready', onReady);
    redis.once('end', onEnd);
  });
}

// Safe names may hold ":", the key's separator: as "=" (which they never hold) the parts stay
// apart, so session "s1:ns" can neither read "s1"'s namespace "ns:c" nor be cleared with "s1".
const part = (validatedName: string) => validatedName.replaceAll(':', '=');

// A count and a random tag: a key cleared and written afresh while an update computed restarts
// its count, and only the tag tells the update that what it read is gone (no lost update).
const nextVersion = (version: string) => `${(Number.parseInt(version, 10) || 0) + 1}.${randomBytes(6).toString('base64url')}`;

const isWrongType = (error: unknown): boolean =>
  typeof (error as Error)?.message === 'string' && (error as Error).message.startsWith('WRONGTYPE');

const escapeGlob = (text: string) => text.replace(/[*?[\]\\]/g, (character) => `\\${character}`);

/** The URL without its password, for messages. */
function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'redis (an unparsable URL)';
  }
}
