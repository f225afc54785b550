// What every host adapter is written on, so an adapter is a map from its host's events to
// lifecycle points: emit only when a hook listens, fail open with a label, core's one
// deadline, and a logger whose lines keep their level.
import { withDeadline } from './deadline.js';
import type { Engine, EmitOptions } from './engine.js';
import { isThenable } from './engine/hook-runner.js';
import type { Logger } from './logger.js';
import type { MergedOutcome } from './outcome.js';
import type { PointInput, PointName } from './points.js';

export { DEFAULT_HOOK_TIMEOUT_MS, deadlineBefore, deadlineSignal, withDeadline, withDeadlineSignal } from './deadline.js';
export type { DeadlineCause, DeadlineOptions } from './deadline.js';
export { createLevelLogger } from './logger.js';
export type { LogEntry } from './logger.js';

/**
 * Whether a host should emit `point`: some hook listens on it, or it is `session:start` (the
 * engine records it as the last session, which plugin commands without a session id apply to).
 * For a host that builds its payload in steps of its own; {@link emitIfListening} asks it too.
 */
export function isListening(engine: Pick<Engine, 'has'>, point: PointName): boolean {
  return engine.has(point) || point === 'session:start';
}

/**
 * Emits `point` when some hook listens on it, and resolves undefined without building the
 * payload otherwise. `session:start` is always emitted: the engine records it as the last
 * session, which plugin commands run without a session id apply to.
 *
 * `payload` may be a function (sync or async), called only when the point is emitted, for a
 * payload that costs something to build (a converted request history, a state read).
 * Throws what `engine.emit` or the payload function throws; wrap it in {@link failOpen}.
 */
export async function emitIfListening<P extends PointName>(
  engine: Pick<Engine, 'has' | 'emit'>,
  point: P,
  payload: PointInput<P> | (() => PointInput<P> | Promise<PointInput<P>>),
  options?: EmitOptions,
): Promise<MergedOutcome<P> | undefined> {
  if (!isListening(engine, point)) return undefined;
  const input = typeof payload === 'function' ? await payload() : payload;
  return engine.emit(point, input, options);
}

/**
 * Runs `fn` and gives back what it returns; when it throws (or its promise rejects), logs
 * `<label> failed: <message>` at level error and gives undefined, so a hookwise problem never
 * breaks the host. With `details`, the log line carries them and the error's stack (an editor's
 * output channel); without, it stays one line (a hook process's stderr).
 */
export function failOpen<T>(
  label: string,
  fn: () => Promise<T>,
  logger: Pick<Logger, 'error'>,
  details?: Record<string, unknown>,
): Promise<T | undefined>;
export function failOpen<T>(label: string, fn: () => T, logger: Pick<Logger, 'error'>, details?: Record<string, unknown>): T | undefined;
export function failOpen<T>(
  label: string,
  fn: () => T | Promise<T>,
  logger: Pick<Logger, 'error'>,
  details?: Record<string, unknown>,
): T | Promise<T | undefined> | undefined {
  const report = (error: unknown): undefined => {
    const message = errorMessage(error);
    const stack = error instanceof Error ? error.stack : undefined;
    logger.error(`${label} failed: ${message}`, details === undefined ? undefined : { ...details, ...(stack ? { stack } : {}) });
    return undefined;
  };
  try {
    const result = fn();
    return isThenable(result) ? Promise.resolve(result).then((value) => value, report) : result;
  } catch (error) {
    return report(error);
  }
}

/** What a log line or a host's message says of a thrown value: an Error's message, anything else as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The fields whose value is not undefined, for a payload built from what a host may or may not
 * know: a point's optional fields are absent rather than undefined, so the event log and the
 * hooks see only what the host knew.
 */
export function definedFields<T extends Record<string, unknown>>(fields: T): T {
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) result[key] = value;
  return result as T;
}

/**
 * Runs `fn` and keeps the process alive for at most `ms` while it runs: core's deadline in its
 * keep-alive variant, for a host that exits once its event loop is empty. `fn` is not stopped at
 * `ms`; past it, the wait goes on without holding the process.
 */
export function keepingAlive<T>(ms: number, fn: () => Promise<T>): Promise<T> {
  const running = fn();
  return withDeadline(running, ms, () => running, { keepAlive: true }) as Promise<T>;
}
