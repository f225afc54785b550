/** A JSON-serialisable value kept in session state. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/**
 * Per-session state shared by every hook process of one session. Claude Code starts a new
 * process per hook and runs hooks concurrently, so `update` is atomic across processes:
 * no concurrent update is lost, and a reader never sees a torn file.
 */
export interface StateStore {
  /** Current value of `namespace` in the session, or undefined. */
  read<T = unknown>(sessionId: string, namespace: string): Promise<T | undefined>;
  /** Applies `fn` to the current value under a cross-process lock and writes the result atomically. Returns what was written. */
  update<T = unknown>(sessionId: string, namespace: string, fn: (current: T | undefined) => T | Promise<T>): Promise<T>;
  /** Removes the namespace's value (or the whole session when namespace is omitted). */
  clear(sessionId: string, namespace?: string): Promise<void>;
}

/** The state of one session, seen from one plugin: the namespace defaults to the plugin's name. */
export interface SessionState {
  readonly sessionId: string;
  read<T = unknown>(namespace?: string): Promise<T | undefined>;
  update<T = unknown>(fn: (current: T | undefined) => T | Promise<T>, namespace?: string): Promise<T>;
  clear(namespace?: string): Promise<void>;
}

export interface EventRecord {
  /** What happened, `noun:verb` or a plugin-specific name, e.g. `prune:applied`, `hook:error`. */
  type: string;
  [key: string]: unknown;
}

/** Append-only JSONL log, safe for concurrent writers, size-capped with rotation. */
export interface EventLog {
  readonly path: string;
  append(record: EventRecord): Promise<void>;
  /** Every record of the current file (and rotated ones, oldest first, when `includeRotated`). Malformed lines are skipped. */
  readAll(options?: { includeRotated?: boolean }): Promise<Array<EventRecord & { time: string }>>;
}
