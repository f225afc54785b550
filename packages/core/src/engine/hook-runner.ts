import type { DependencyContainer } from 'tsyringe';
import type { Clock } from '../clock.js';
import { withDeadline } from '../deadline.js';
import { HookTimeoutError } from '../errors.js';
import type { HookContext } from '../hooks.js';
import type { Logger } from '../logger.js';
import type { HookFailure, Measurements } from '../outcome.js';
import type { PointName } from '../points.js';
import type { EventLog, SessionState } from '../state/types.js';
import type { TokenCounter } from '../token-counter.js';
import type { RecordEntry, Recorder } from './recorder.js';
import type { PluginScope, PreparedHook } from './scopes.js';

/** What every hook call of an engine shares. */
export type SharedContext = Pick<HookContext, 'projectDir' | 'logger' | 'eventLog' | 'tokenCounter' | 'clock' | 'ephemeral' | 'dryRun'>;

/** The context of one hook call. Its AbortController is made only when the hook reads `signal`. */
class RunContext implements HookContext {
  readonly point: PointName;
  readonly sessionId: string;
  readonly projectDir: string;
  readonly host: string;
  readonly logger: Logger;
  readonly eventLog: EventLog;
  readonly tokenCounter: TokenCounter;
  readonly clock: Clock;
  readonly ephemeral: boolean;
  readonly dryRun: boolean;
  readonly pluginName: string;
  readonly hookName: string;
  readonly options: unknown;
  readonly state: SessionState;
  readonly projectState: SessionState;
  declare readonly container?: DependencyContainer;
  private controller: AbortController | undefined;
  private aborted = false;
  private measured: Readonly<Measurements> | undefined;

  constructor(
    shared: SharedContext,
    hook: PreparedHook,
    private readonly scope: PluginScope,
    sessionId: string,
    host: string,
    private readonly recorder: Recorder,
    private readonly merged: Measurements,
  ) {
    this.point = hook.point;
    this.sessionId = sessionId;
    this.projectDir = shared.projectDir;
    this.host = host;
    this.logger = shared.logger;
    this.eventLog = shared.eventLog;
    this.tokenCounter = shared.tokenCounter;
    this.clock = shared.clock;
    this.ephemeral = shared.ephemeral;
    this.dryRun = shared.dryRun;
    this.pluginName = hook.pluginName;
    this.hookName = hook.hookName;
    this.options = hook.plugin.options;
    this.state = scope.state;
    this.projectState = scope.projectState;
    // Only where DI is loaded: without it, asking for a container could only throw.
    if (scope.hasContainer) Object.defineProperty(this, 'container', { get: () => scope.container, enumerable: true });
  }

  /** A copy as it stood when this hook started: a hook cannot change what others measured. */
  get measurements(): Readonly<Measurements> {
    return (this.measured ??= Object.freeze({ ...this.merged }));
  }

  /** A property, not a method: plugins pass `context.record` around on its own. */
  readonly record = (entry: RecordEntry): Promise<void> => this.recorder(this.pluginName, this.sessionId, entry);

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    if (this.aborted && !this.controller.signal.aborted) this.controller.abort();
    return this.controller.signal;
  }

  abort(): void {
    this.aborted = true;
    this.controller?.abort();
  }
}

/** Whether a hook that was told to stop rejected with an abort: it did as asked. */
function isAbort(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

export interface HookRunnerOptions {
  shared: SharedContext;
  recorder: Recorder;
  clock: Clock;
  hookTimeoutMs: number;
  /** See `EngineOptions.runSync`. */
  runSync: (<T>(call: () => T, timeoutMs: number) => T) | undefined;
  /** Whether the state store is waiting for another process's lock: that time is not the hook's (see DeadlineOptions.holdWhile). */
  waitingForLock?: (() => boolean) | undefined;
  /** Told when a hook that ran past its deadline fails later (its failure is no longer the call's). */
  onLateFailure?: ((hook: PreparedHook, error: unknown, sessionId: string) => void) | undefined;
}

/** Calls one hook; what it returns (a value, or a promise bounded by the hook's deadline). */
export type HookRunner = (
  hook: PreparedHook,
  scope: PluginScope,
  payload: { sessionId: string; host: string },
  measurements: Measurements,
  signal: AbortSignal | undefined,
  startedAt: number,
) => unknown;

/**
 * Runs one hook call. A hook that returns synchronously gets no timer (nothing could interrupt
 * it; only `runSync` can stop a synchronous loop). A promise is bounded by the hook's deadline
 * and by the host's signal: past either, the hook's signal aborts and the call rejects with a
 * HookTimeoutError (timed from the emit's start when the host's signal ended it).
 */
export function createHookRunner({
  shared,
  recorder,
  clock,
  hookTimeoutMs,
  runSync,
  waitingForLock,
  onLateFailure,
}: HookRunnerOptions): HookRunner {
  return (hook, scope, payload, measurements, signal, startedAt) => {
    if (scope.setupError !== undefined) throw scope.setupError;
    const context = new RunContext(shared, hook, scope, payload.sessionId, payload.host, recorder, measurements);
    const result = runSync ? runSync(() => hook.call(scope, payload, context), hookTimeoutMs) : hook.call(scope, payload, context);
    if (!isThenable(result)) return result;
    return withDeadline(
      result,
      hookTimeoutMs,
      (cause) => {
        context.abort();
        // The engine goes on without the hook, but the hook still runs: a failure it meets later
        // (a state update refused, a write that fails) would otherwise be lost without a word.
        // Its own abort (it stopped as asked) is no news.
        if (onLateFailure)
          Promise.resolve(result).then(
            undefined,
            (error: unknown) => void (isAbort(error) || onLateFailure(hook, error, payload.sessionId)),
          );
        const timeoutMs = cause === 'timeout' ? hookTimeoutMs : Math.max(0, clock.now() - startedAt);
        throw new HookTimeoutError({ pluginName: hook.pluginName, hookName: hook.hookName, timeoutMs });
      },
      { signal, holdWhile: waitingForLock },
    );
  };
}

/** A hook call's error as the failure the engine reports: a deadline is a `timeout`, anything else an `error`. */
export function failureOf(hook: PreparedHook, error: unknown): HookFailure {
  return {
    pluginName: hook.pluginName,
    hookName: hook.hookName,
    kind: HookTimeoutError.isInstance(error) && error.code === 'HW_HOOK_TIMEOUT' ? 'timeout' : 'error',
    message: error instanceof Error ? error.message : String(error),
    ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
  };
}
