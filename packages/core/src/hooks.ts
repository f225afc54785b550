import type { DependencyContainer } from 'tsyringe';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { RecordEntry } from './engine/recorder.js';
import type { Measurements, OutcomeOf } from './outcome.js';
import type { PointName, PointPayload } from './points.js';
import type { EventLog, SessionState } from './state/types.js';
import type { TokenCounter } from './token-counter.js';

export type HookOrder = 'pre' | 'post';

/** The services a plugin's hooks and commands work with, bound to one session. */
export interface PluginContext<Options = unknown> {
  sessionId: string;
  projectDir: string;
  host: string;
  options: Options;
  /** This session's state, namespaced to the plugin. */
  state: SessionState;
  /** State shared by every session of the project (session id `project`), namespaced to the plugin. */
  projectState: SessionState;
  logger: Logger;
  eventLog: EventLog;
  tokenCounter: TokenCounter;
  clock: Clock;
  /**
   * True when the engine must leave no files behind (a replay such as `hookwise report`, a dry
   * run): keep everything in `state` and `eventLog`, write no files of your own.
   */
  ephemeral: boolean;
  /**
   * True when the host only measures what hooks return and applies none of it (a replay such as
   * `hookwise report`): a hook may return what it would do without doing any of its side effects.
   */
  dryRun: boolean;
  /**
   * Appends `entry` to the event log with the plugin's name and the session id filled in.
   * Never throws: a failed write is logged (at warn the first time), so a hook needs no wrapper.
   */
  record(entry: RecordEntry): Promise<void>;
}

/** Everything a hook may use besides its payload. */
export interface HookContext<Options = unknown> extends PluginContext<Options> {
  point: PointName;
  pluginName: string;
  hookName: string;
  /**
   * The plugin's child container (of the session's container). Present only where dependency
   * injection is loaded (some module imported `@hookwise/core/di`, or the host gave the engine a
   * container); hooks written as plain functions use the services above instead.
   */
  container?: DependencyContainer;
  /** Aborted when the hook passes its deadline. */
  signal: AbortSignal;
  /** What the earlier hooks of this emit measured (their outcomes' `measurements`), read-only. */
  readonly measurements: Readonly<Measurements>;
}

type Awaitable<T> = T | Promise<T>;

export type HookFunction<P extends PointName, Options = unknown> = (
  payload: PointPayload<P>,
  context: HookContext<Options>,
) => Awaitable<OutcomeOf<P> | void | undefined>;

export interface HookEntry<P extends PointName, Options = unknown> {
  handler: HookFunction<P, Options>;
  /** Where this hook runs among the point's others: `pre` first, `post` last (default: its plugin's order, else config order). */
  order?: HookOrder;
  /** The name failures, timings and blocks report it by (default: the point). */
  name?: string;
}

/** One hook on a point: a function, or `{ handler, order?, name? }`. */
export type HookSpec<P extends PointName, Options = unknown> = HookFunction<P, Options> | HookEntry<P, Options>;

/**
 * Hooks by point, what `definePlugin({ on })` and `defineConfig({ on })` take:
 * `{ 'tool:after': fn }`; `{ 'compact:before': { handler, order: 'pre', name: 'keep-rules' } }` for
 * a hook with its own order or name; a list, `{ 'tool:after': [first, second] }`, for several
 * hooks on one point (they run in list order).
 */
export type HookMap<Options = unknown> = {
  [P in PointName]?: HookSpec<P, Options> | ReadonlyArray<HookSpec<P, Options>>;
};

/** How to write what `defineHook` and a config's `hooks` used to say; quoted by every error about them. */
export const ON_INSTEAD =
  "write the hooks under `on` instead: `on: { 'tool:after': fn }`, `{ handler: fn, order: 'post', name: 'my-hook' }` for an order or a name, a list for several hooks on one point";

/** What `defineHook(...)` made before it was removed (marked with a `Symbol.for` key, so any copy of core made it). */
export function isRemovedHookSet(value: unknown): value is { name?: unknown; on?: unknown } {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[Symbol.for('hookwise.HookSet')] === true;
}

/** Metadata `@On` leaves on a class; a `Symbol.for` key so two copies of core agree on it. */
const classHooksKey = Symbol.for('hookwise.classHooks');

export interface ClassHookMetadata {
  point: PointName;
  method: string;
  order?: HookOrder;
}

/**
 * Marks a method of an `@injectable()` class as a hook on `point`. The method is checked
 * against the point's payload and outcome types.
 */
export function On<P extends PointName>(point: P, options: { order?: HookOrder } = {}) {
  return function decorate<T extends HookFunction<P, any>>(
    target: object,
    propertyKey: string | symbol,
    descriptor: TypedPropertyDescriptor<T>,
  ): void {
    void descriptor;
    const constructor = (target as { constructor: Function }).constructor as unknown as Record<symbol, ClassHookMetadata[] | undefined>;
    // Copy instead of push: a subclass must not add hooks to its parent's list.
    const own = Object.prototype.hasOwnProperty.call(constructor, classHooksKey)
      ? constructor[classHooksKey]!
      : [...(constructor[classHooksKey] ?? [])];
    own.push({ point, method: String(propertyKey), ...(options.order ? { order: options.order } : {}) });
    Object.defineProperty(constructor, classHooksKey, { value: own, configurable: true, enumerable: false, writable: true });
  };
}

export type HookClass = new (...args: any[]) => object;

export function getClassHooks(target: Function): ClassHookMetadata[] {
  return ((target as unknown as Record<symbol, ClassHookMetadata[] | undefined>)[classHooksKey] ?? []).slice();
}

export function isHookClass(value: unknown): value is HookClass {
  return typeof value === 'function' && getClassHooks(value).length > 0;
}
