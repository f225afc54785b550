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
  order?: HookOrder;
}

/**
 * Hooks by point: `{ 'tool:after': fn }`, or `{ 'compact:before': { handler, order: 'pre' } }`
 * for one hook whose order differs from its plugin's. What `definePlugin({ on })` and
 * `defineConfig({ on })` take.
 */
export type HookMap<Options = unknown> = { [P in PointName]?: HookFunction<P, Options> | HookEntry<P, Options> };

const hookSetMarker = Symbol.for('hookwise.HookSet');

/** A named set of hooks (`defineHook`): still accepted in `hooks`; new code writes `on` instead. */
export interface HookSet<Options = unknown> {
  readonly [hookSetMarker]: true;
  name: string;
  on: HookMap<Options>;
}

export function defineHook<Options = unknown>(definition: { name: string; on: HookMap<Options> }): HookSet<Options> {
  if (!definition || typeof definition.name !== 'string' || definition.name.length === 0) {
    throw new TypeError('defineHook needs a non-empty name');
  }
  return { [hookSetMarker]: true, name: definition.name, on: definition.on ?? {} };
}

export function isHookSet(value: unknown): value is HookSet {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[hookSetMarker] === true;
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
