import path from 'node:path';
import { Lifecycle, rootContainer, type DependencyContainer } from './di.js';
import { systemClock, type Clock } from './clock.js';
import type { HookwiseConfig } from './config.js';
import { HookTimeoutError, HookwiseError, PluginError } from './errors.js';
import { assertSafeName } from './state/safe-name.js';
import { getClassHooks, isHookSet, type HookClass, type HookContext, type HookFunction, type HookOrder, type HookSet } from './hooks.js';
import { createLogger, type Logger } from './logger.js';
import { addPreserved, joinText, type HookFailure, type MergedNotice, type MergedOutcome, type NoticeAction } from './outcome.js';
import type { PluginInstance, PluginMeta } from './plugin.js';
import { payloadParserOf, points, type PointInput, type PointName, type PointPayload } from './points.js';
import { parseWith, type SchemaLike } from './schema.js';
import { createEventLog } from './state/event-log.js';
import { createFileStateStore, createSessionState } from './state/file-state-store.js';
import type { EventLog, SessionState, StateStore } from './state/types.js';
import { createCharsTokenCounter, createJsonAwareTokenCounter, defaultTokenCounter, type TokenCounter } from './token-counter.js';
import { CLOCK, EVENT_LOG, HOST, LOGGER, PLUGIN_META, PLUGIN_OPTIONS, PROJECT_DIR, SESSION_ID, SESSION_STATE, STATE_STORE, TOKEN_COUNTER } from './tokens.js';

export const DEFAULT_HOOK_TIMEOUT_MS = 5_000;
/**
 * A `compact:after` with no `compact:before` before it, this soon after the last one, reports the
 * same compaction again (Claude Code reports one through SessionStart(compact) and PostCompact).
 */
const DUPLICATE_COMPACTION_WINDOW_MS = 2 * 60_000;
/** The session id of state shared by every session of a project. */
export const PROJECT_SCOPE = 'project';
const USER_HOOKS = 'config';
const CORE_NAMESPACE = 'hookwise-core';

export interface EngineOptions {
  config: HookwiseConfig;
  projectDir: string;
  /** Which binding runs the engine: `claude-code`, `vscode`, `agent-sdk`, `replay`… */
  host: string;
  stateStore?: StateStore;
  eventLog?: EventLog;
  logger?: Logger;
  tokenCounter?: TokenCounter;
  clock?: Clock;
  /** Per-hook deadline; overrides the config's `hookTimeoutMs`. */
  hookTimeoutMs?: number;
  /**
   * Runs the synchronous part of each hook call (until it returns or first awaits), given the
   * hook's deadline. No timer can fire while a hook loops synchronously, so only the host can
   * stop one: the CLI passes a runner that has V8 stop it at the deadline and throws a
   * HookwiseError with code `HW_HOOK_TIMEOUT` (reported as a `timeout`). Default: a plain call.
   */
  runSync?: <T>(call: () => T, timeoutMs: number) => T;
  /** Parent of the engine's container; defaults to tsyringe's root container. */
  container?: DependencyContainer;
  /**
   * The engine must leave no files behind (a replay, a dry run): give it in-memory state and
   * event log, and plugins see `context.ephemeral` and write no files of their own.
   */
  ephemeral?: boolean;
}

/** How a host names one `emit` call in the engine's failure log lines. */
export interface EmitOptions {
  /** Put before each failure line, e.g. `[Task#12]`. */
  label?: string;
  /** Added to each failure line's details, e.g. `{ taskId, intentId }`. */
  details?: Record<string, unknown>;
  /**
   * The host's own deadline (e.g. the Agent SDK's matcher timeout, shorter than the hooks'):
   * once it aborts, the running hook is abandoned and the rest are skipped, each reported as a
   * `timeout` failure, and what finished is returned.
   */
  signal?: AbortSignal;
}

export interface RegisteredHook {
  point: PointName;
  pluginName: string;
  hookName: string;
  order: HookOrder | undefined;
}

export interface Engine {
  readonly projectDir: string;
  readonly host: string;
  readonly plugins: readonly PluginMeta[];
  readonly services: { stateStore: StateStore; eventLog: EventLog; logger: Logger; tokenCounter: TokenCounter; clock: Clock };
  /**
   * Runs every hook of `point` in order and merges their outcomes. Never throws because a hook
   * failed: each failure is logged once (here), written to the event log and returned in `errors`.
   */
  emit<P extends PointName>(point: P, payload: PointInput<P>, options?: EmitOptions): Promise<MergedOutcome<P>>;
  /** The hooks of a point in the order they run (a debug dump). */
  hooksFor(point: PointName): RegisteredHook[];
  /** Whether any hook listens on `point` (lets hosts skip building expensive payloads). */
  has(point: PointName): boolean;
  /** The session's container (created on first use). */
  sessionContainer(sessionId: string): DependencyContainer;
  /** Commands the configured plugins offer. */
  commands(): Array<{ pluginName: string; name: string; description: string; usage?: string }>;
  /**
   * Runs a plugin command by name. Without a session id it applies to the last session that
   * started in this project. Throws a HookwiseError when the command is unknown or fails.
   */
  runCommand(name: string, args: string[], options?: { sessionId?: string }): Promise<string>;
  /** The id of the last session that started in this project, if any. */
  lastSessionId(): Promise<string | undefined>;
  dispose(): Promise<void>;
}

interface PreparedPlugin {
  instance: PluginInstance<any> | undefined;
  meta: PluginMeta;
  options: unknown;
}

interface PreparedHook extends RegisteredHook {
  plugin: PreparedPlugin;
  call: (scope: PluginScope, payload: unknown, context: HookContext) => unknown;
}

/**
 * A plugin's services for one session. Its container is made when first asked for: hooks
 * written with defineHook (every hook of the bundled plugins) never touch it, and each
 * container (tsyringe's child containers, registrations, disposal) costs a hook call start-up
 * time. A plugin with `@On` classes or a `register` function gets it at once, so a `register`
 * that throws still fails each of the plugin's hooks with its error.
 */
class PluginScope {
  readonly state: SessionState;
  readonly projectState: SessionState;
  setupError?: unknown;
  private made: DependencyContainer | undefined;

  constructor(
    private readonly session: SessionScope,
    private readonly plugin: PreparedPlugin,
    stateStore: StateStore,
    sessionId: string,
  ) {
    this.state = createSessionState(stateStore, sessionId, plugin.meta.name);
    this.projectState = createSessionState(stateStore, PROJECT_SCOPE, plugin.meta.name);
    const definition = plugin.instance?.definition;
    if (definition?.register !== undefined || definition?.hooks.some((entry) => typeof entry === 'function')) void this.container;
  }

  get container(): DependencyContainer {
    if (this.made) return this.made;
    const container = this.session.container.createChildContainer();
    this.made = container;
    const plugin = this.plugin;
    container.register(PLUGIN_OPTIONS, { useValue: plugin.options });
    container.register(PLUGIN_META, { useValue: plugin.meta });
    container.register(SESSION_STATE, { useValue: this.state });
    for (const entry of plugin.instance?.definition.hooks ?? []) {
      if (typeof entry === 'function') container.register(entry, { useClass: entry }, { lifecycle: Lifecycle.ContainerScoped });
    }
    try {
      plugin.instance?.definition.register?.(container, plugin.options);
    } catch (error) {
      this.setupError = error;
    }
    return container;
  }

  async dispose(): Promise<void> {
    await this.made?.dispose();
  }
}

/** A session's container (made on first use, see {@link PluginScope}) and its plugins' scopes. */
class SessionScope {
  readonly plugins = new Map<PreparedPlugin, PluginScope>();
  private made: DependencyContainer | undefined;

  constructor(
    private readonly parent: () => DependencyContainer,
    private readonly sessionId: string,
  ) {}

  get container(): DependencyContainer {
    if (this.made) return this.made;
    this.made = this.parent().createChildContainer();
    this.made.register(SESSION_ID, { useValue: this.sessionId });
    return this.made;
  }

  async dispose(): Promise<void> {
    for (const scope of this.plugins.values()) await scope.dispose();
    await this.made?.dispose();
  }
}

/** What every hook call of an engine shares (made once per engine, not per emit). */
type SharedContext = Pick<HookContext, 'projectDir' | 'logger' | 'eventLog' | 'tokenCounter' | 'clock' | 'ephemeral'>;

/**
 * The context of one hook call. A class with a prototype getter rather than an object literal:
 * V8 keeps it a fast object, and the AbortController is only made when a hook reads `signal`.
 */
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
  readonly pluginName: string;
  readonly hookName: string;
  readonly options: unknown;
  readonly state: SessionState;
  readonly projectState: SessionState;
  private controller: AbortController | undefined;
  private aborted = false;

  constructor(
    shared: SharedContext,
    hook: PreparedHook,
    private readonly scope: PluginScope,
    sessionId: string,
    host: string,
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
    this.pluginName = hook.pluginName;
    this.hookName = hook.hookName;
    this.options = hook.plugin.options;
    this.state = scope.state;
    this.projectState = scope.projectState;
  }

  get container(): DependencyContainer {
    return this.scope.container;
  }

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

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * A running async hook call, in its engine's {@link DeadlineQueue}, and what `emit` awaits for
 * it: a thenable that settles as the hook's promise does, or with a HookTimeoutError when the
 * queue finds it past its deadline (whichever comes first; the other is then ignored, as a
 * promise's resolving functions ignore a second call). A thenable rather than a promise of our
 * own: `await` hands it the resolving functions it makes anyway, so a call makes no executor,
 * no handlers and no second promise (some 200 bytes less per call; a replay makes some 2,000).
 * `emit` marks it settled once its await returns; no timer can fire before then (timers wait
 * for the microtasks).
 */
class HookDeadline {
  settled = false;
  next: HookDeadline | undefined;
  private reject: ((error: unknown) => void) | undefined;
  constructor(
    readonly at: number,
    readonly context: RunContext,
    readonly hook: PreparedHook,
    private readonly result: PromiseLike<unknown>,
  ) {}

  then(resolve: (value: unknown) => void, reject: (error: unknown) => void): void {
    this.reject = reject;
    this.result.then(resolve, reject);
  }

  /** Past its deadline: the hook's signal aborts and the await rejects. */
  expire(error: unknown): void {
    this.settled = true;
    this.context.abort();
    this.reject?.(error);
  }
}

/**
 * The deadlines of an engine's running async hook calls, on one timer. A timer per call
 * (`setTimeout` + `clearTimeout`) cost more than a replay's no-op hook, and every call of an
 * engine has the same timeout, so deadlines fall due in the order the calls started: a queue,
 * and one timer armed for its oldest call still running. A call that settles is only marked;
 * it leaves the queue when it reaches the front. When the timer fires, each call past its
 * deadline is aborted and rejected with a HookTimeoutError, as its own timer would have done
 * (never earlier than its deadline; at most a timer tick later). Real time, as `setTimeout`
 * measures it, not the engine's clock (a replay's clock follows the recorded session).
 */
// Monotonic milliseconds. Not `performance.now()`: the first touch of the `performance` global
// loads node:perf_hooks, about 1 ms of a hook process's start-up.
const monotonicMs = (): number => {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1e3 + nanoseconds / 1e6;
};

class DeadlineQueue {
  private head: HookDeadline | undefined;
  private tail: HookDeadline | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;

  /** Timeouts `setTimeout` takes as given (it fires at once past 2^31-1 ms). */
  static canTime(timeoutMs: number): boolean {
    return Number.isFinite(timeoutMs) && timeoutMs >= 1 && timeoutMs <= 0x7fffffff;
  }

  constructor(private readonly timeoutMs: number) {}

  add(context: RunContext, hook: PreparedHook, result: PromiseLike<unknown>): HookDeadline {
    while (this.head?.settled) this.head = this.head.next;
    if (this.head === undefined) this.tail = undefined;
    const deadline = new HookDeadline(monotonicMs() + this.timeoutMs, context, hook, result);
    if (this.tail) this.tail.next = deadline;
    else this.head = deadline;
    this.tail = deadline;
    if (this.timer === undefined) this.arm(this.timeoutMs);
    return deadline;
  }

  private arm(delayMs: number): void {
    this.timer = setTimeout(this.expire, Math.min(0x7fffffff, Math.max(1, Math.ceil(delayMs))));
    this.timer.unref?.();
  }

  /**
   * Disarms the timer when no call is running (the engine is disposed). Its timer would
   * otherwise hold the queue, and through the last call's context the engine's state and
   * plugins, for a whole timeout after the engine's last hook (a host that makes an engine per
   * task, or per report, kept each one for 5 s). A call still running keeps its deadline.
   */
  stop(): void {
    while (this.head?.settled) this.head = this.head.next;
    if (this.head !== undefined) return;
    this.tail = undefined;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly expire = (): void => {
    this.timer = undefined;
    const now = monotonicMs();
    while (this.head !== undefined && (this.head.settled || this.head.at <= now)) {
      const due = this.head;
      this.head = due.next;
      if (due.settled) continue;
      due.expire(new HookTimeoutError({ pluginName: due.hook.pluginName, hookName: due.hook.hookName, timeoutMs: this.timeoutMs }));
    }
    if (this.head === undefined) this.tail = undefined;
    else this.arm(this.head.at - now);
  };
}

const orderRank = (order: HookOrder | undefined) => (order === 'pre' ? 0 : order === 'post' ? 2 : 1);

/**
 * Builds an engine from a loaded config. Plugin options are validated here: an invalid option
 * throws a PluginError naming the plugin (hosts report it and step aside).
 */
export function createEngine(options: EngineOptions): Engine {
  const projectDir = path.resolve(options.projectDir);
  const config = options.config ?? {};
  const logger = options.logger ?? createLogger({ level: config.logLevel ?? 'warn' });
  const clock = options.clock ?? systemClock;
  const tokenCounter =
    options.tokenCounter ?? (config.tokenCounter === 'json-aware' ? createJsonAwareTokenCounter() : config.tokenCounter === 'chars' ? createCharsTokenCounter(4) : defaultTokenCounter);
  const stateDirectory = path.resolve(projectDir, config.stateDir ?? '.hookwise');
  const stateStore = options.stateStore ?? createFileStateStore({ directory: stateDirectory, logger });
  const eventLog =
    options.eventLog ??
    createEventLog({
      path: path.resolve(projectDir, config.eventLog?.path ?? path.join(stateDirectory, 'logs', 'events.jsonl')),
      ...(config.eventLog?.maxBytes !== undefined ? { maxBytes: config.eventLog.maxBytes } : {}),
      ...(config.eventLog?.maxFiles !== undefined ? { maxFiles: config.eventLog.maxFiles } : {}),
    });
  const hookTimeoutMs = options.hookTimeoutMs ?? config.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  const runSync = options.runSync;

  const ephemeral = options.ephemeral === true;
  const shared: SharedContext = { projectDir, logger, eventLog, tokenCounter, clock, ephemeral };
  /** What every payload carries unless the host says otherwise. */
  const defaults: Readonly<Record<string, unknown>> = Object.freeze({ projectDir, host: options.host });
  // Made with the first session container (see PluginScope).
  let engineContainer: DependencyContainer | undefined;
  const engineContainerOf = (): DependencyContainer => {
    if (engineContainer) return engineContainer;
    engineContainer = (options.container ?? rootContainer).createChildContainer();
    engineContainer.register(LOGGER, { useValue: logger });
    engineContainer.register(CLOCK, { useValue: clock });
    engineContainer.register(TOKEN_COUNTER, { useValue: tokenCounter });
    engineContainer.register(STATE_STORE, { useValue: stateStore });
    engineContainer.register(EVENT_LOG, { useValue: eventLog });
    engineContainer.register(PROJECT_DIR, { useValue: projectDir });
    engineContainer.register(HOST, { useValue: options.host });
    return engineContainer;
  };

  // Validate every plugin's options now, so a bad config fails when it is loaded.
  const plugins: PreparedPlugin[] = (config.plugins ?? []).map((instance) => ({ instance, meta: instance.meta, options: instance.resolveOptions() }));
  const userPlugin: PreparedPlugin = { instance: undefined, meta: { name: USER_HOOKS, version: '0.0.0' }, options: undefined };

  const hooks: PreparedHook[] = [];
  const addSet = (plugin: PreparedPlugin, set: HookSet<any>) => {
    for (const point of Object.keys(set.on) as PointName[]) {
      if (!(point in points)) throw new PluginError(`unknown lifecycle point "${point}" in hook "${set.name}"`, { pluginName: plugin.meta.name, hookName: set.name });
      const entry = set.on[point];
      const handler = (typeof entry === 'function' ? entry : entry?.handler) as HookFunction<PointName> | undefined;
      if (typeof handler !== 'function') throw new PluginError(`hook "${set.name}" on ${point} is not a function`, { pluginName: plugin.meta.name, hookName: set.name });
      const order = typeof entry === 'function' ? undefined : entry?.order;
      hooks.push({ point, pluginName: plugin.meta.name, hookName: set.name, order, plugin, call: (_scope, payload, context) => handler(payload as never, context) });
    }
  };
  const addClass = (plugin: PreparedPlugin, hookClass: HookClass) => {
    for (const metadata of getClassHooks(hookClass)) {
      if (!(metadata.point in points)) throw new PluginError(`unknown lifecycle point "${metadata.point}"`, { pluginName: plugin.meta.name, hookName: `${hookClass.name}.${metadata.method}` });
      hooks.push({
        point: metadata.point,
        pluginName: plugin.meta.name,
        hookName: `${hookClass.name}.${metadata.method}`,
        order: metadata.order,
        plugin,
        call: (scope, payload, context) => {
          const instance = scope.container.resolve(hookClass) as Record<string, (...args: unknown[]) => unknown>;
          return instance[metadata.method]!(payload, context);
        },
      });
    }
  };
  for (const plugin of plugins) {
    for (const entry of plugin.instance!.definition.hooks) {
      if (isHookSet(entry)) addSet(plugin, entry);
      else if (typeof entry === 'function') addClass(plugin, entry);
      else throw new PluginError('hooks must be @injectable classes with @On methods or defineHook(...) sets', { pluginName: plugin.meta.name });
    }
  }
  for (const set of config.hooks ?? []) {
    if (!isHookSet(set)) throw new PluginError('config hooks must be made with defineHook(...)', { pluginName: USER_HOOKS });
    addSet(userPlugin, set);
  }

  // Stable sort: 'pre', then config order, then 'post'.
  const byPoint = new Map<PointName, PreparedHook[]>();
  hooks
    .map((hook, index) => ({ hook, index }))
    .sort((left, right) => orderRank(left.hook.order) - orderRank(right.hook.order) || left.index - right.index)
    .forEach(({ hook }) => {
      const list = byPoint.get(hook.point) ?? [];
      list.push(hook);
      byPoint.set(hook.point, list);
    });

  const sessions = new Map<string, SessionScope>();
  const session = (sessionId: string): SessionScope => {
    let existing = sessions.get(sessionId);
    if (!existing) {
      existing = new SessionScope(engineContainerOf, sessionId);
      sessions.set(sessionId, existing);
    }
    return existing;
  };
  const pluginScope = (sessionId: string, plugin: PreparedPlugin): PluginScope => {
    const owner = session(sessionId);
    let scope = owner.plugins.get(plugin);
    if (!scope) {
      scope = new PluginScope(owner, plugin, stateStore, sessionId);
      owner.plugins.set(plugin, scope);
    }
    return scope;
  };

  async function lastSessionId(): Promise<string | undefined> {
    const record = await stateStore.read<{ lastSessionId?: string }>(PROJECT_SCOPE, CORE_NAMESPACE).catch(() => undefined);
    return record?.lastSessionId;
  }

  const report = async (failure: HookFailure, sessionId: string, point: PointName, emitOptions: EmitOptions | undefined) => {
    const label = emitOptions?.label ? `${emitOptions.label} ` : '';
    logger.warn(`${label}${failure.pluginName} › ${failure.hookName} on ${point} failed: ${failure.message} (skipped)`, {
      ...emitOptions?.details,
      // A host that names its calls (an editor's output channel) gets the kind and the stack too;
      // a plain call (a hook process's stderr) keeps to one line.
      ...(emitOptions?.label !== undefined || emitOptions?.details !== undefined ? { kind: failure.kind, ...(failure.stack ? { stack: failure.stack } : {}) } : {}),
    });
    try {
      await eventLog.append({ type: 'hook:error', sessionId, point, ...failure });
    } catch (error) {
      logger.error(`could not write the event log: ${(error as Error).message}`);
    }
  };

  /** What the engine keeps per session between `compact:before` and `compact:after`. */
  interface CompactionRecord {
    preserved?: string[];
    trigger?: 'manual' | 'auto';
    compactStartedAt?: string;
    /** A compact:before ran and its compact:after has not yet. */
    pending?: boolean;
    lastCompactAfterAt?: number;
  }

  /** Records a failure in the outcome and reports it (once, here). Not a closure per emit: a replay emits hundreds. */
  const fail = async (merged: MergedOutcome, failure: HookFailure, sessionId: string, emitOptions: EmitOptions | undefined): Promise<void> => {
    merged.errors.push(failure);
    await report(failure, sessionId, merged.point, emitOptions);
  };
  const invalid = (merged: MergedOutcome, hook: PreparedHook, message: string, sessionId: string, emitOptions: EmitOptions | undefined): Promise<void> =>
    fail(merged, { pluginName: hook.pluginName, hookName: hook.hookName, kind: 'invalid-outcome', message }, sessionId, emitOptions);

  /**
   * Turns a hook's `notice` (text or a Notice) into a merged notice. Actions must name a
   * command the same plugin declares (or the `compact` host action); others are dropped and
   * reported, so a host never runs a command the plugin does not offer.
   */
  const noticeOf = (hook: PreparedHook, raw: unknown, problems: string[]): MergedNotice | undefined => {
    const base = { pluginName: hook.pluginName, hookName: hook.hookName };
    if (typeof raw === 'string') return raw.trim() === '' ? undefined : { text: raw, ...base, actions: [] };
    if (typeof raw !== 'object' || raw === null || typeof (raw as { text?: unknown }).text !== 'string') {
      if (raw !== undefined) problems.push('notice must be a string or { text, kind?, actions? }');
      return undefined;
    }
    const { text, kind, actions } = raw as { text: string; kind?: unknown; actions?: unknown };
    if (text.trim() === '') return undefined;
    const declared = hook.plugin.instance?.definition.commands ?? [];
    const kept: NoticeAction[] = [];
    for (const action of Array.isArray(actions) ? actions : []) {
      const entry = action as { label?: unknown; command?: unknown; args?: unknown; hostAction?: unknown };
      if (typeof entry?.label !== 'string' || entry.label === '') problems.push('a notice action needs a label');
      else if (entry.hostAction === 'compact') kept.push({ label: entry.label, hostAction: 'compact' });
      else if (typeof entry.command === 'string' && declared.some((command) => command.name === entry.command)) {
        const args = Array.isArray(entry.args) ? entry.args.filter((arg): arg is string => typeof arg === 'string') : undefined;
        kept.push({ label: entry.label, command: entry.command, ...(args && args.length > 0 ? { args } : {}) });
      } else problems.push(`notice action "${entry.label}" names no command of ${hook.pluginName}`);
    }
    return { text, ...(typeof kind === 'string' && kind !== '' ? { kind } : {}), ...base, actions: kept };
  };

  /** One timer for the deadlines of every async hook call (see {@link DeadlineQueue}); the host's signal keeps a timer per call. */
  const deadlines = DeadlineQueue.canTime(hookTimeoutMs) ? new DeadlineQueue(hookTimeoutMs) : undefined;

  /**
   * Calls one hook. A hook that returns synchronously needs no deadline (nothing could
   * interrupt it anyway), so the deadline and the abort controller are only made for promises,
   * and the signal only when the hook asks for it: a no-op hook costs a few microseconds.
   */
  const runHook = (hook: PreparedHook, scope: PluginScope, payload: { sessionId: string; host: string }, signal: AbortSignal | undefined, startedAt: number): unknown => {
    if (scope.setupError !== undefined) throw scope.setupError;
    const context = new RunContext(shared, hook, scope, payload.sessionId, payload.host);
    const result = runSync ? runSync(() => hook.call(scope, payload, context), hookTimeoutMs) : hook.call(scope, payload, context);
    if (!isThenable(result)) return result;
    // Awaited by emit, which marks it settled (see HookDeadline).
    if (deadlines && !signal) return deadlines.add(context, hook, result);
    return new Promise((resolve, reject) => {
      const onHostAbort = () => {
        clearTimeout(timer);
        context.abort();
        reject(new HookTimeoutError({ pluginName: hook.pluginName, hookName: hook.hookName, timeoutMs: Math.max(0, clock.now() - startedAt) }));
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onHostAbort);
        context.abort();
        reject(new HookTimeoutError({ pluginName: hook.pluginName, hookName: hook.hookName, timeoutMs: hookTimeoutMs }));
      }, hookTimeoutMs);
      timer.unref?.();
      signal?.addEventListener('abort', onHostAbort, { once: true });
      result.then(
        (value) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onHostAbort);
          resolve(value);
        },
        (error: unknown) => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onHostAbort);
          reject(error);
        },
      );
    });
  };

  /**
   * The point's schema check, through its plain-code parse first (payload-parse.ts: the same data
   * for every payload it accepts, a few times cheaper, and no zod schema built; a request's
   * history is checked there in a plain loop). What it does not accept goes through the schema
   * itself, built then, so a bad payload gets the schema's own error.
   */
  function parsePayload<P extends PointName>(point: P, input: PointInput<P>): ReturnType<typeof parseWith<PointPayload<P>>> {
    // The payload is `{ projectDir, host, ...input }`. A plain object is parsed as that without
    // the copy (the engine's values stand for keys it lacks; the parse copies it anyway);
    // anything else (a class instance, an array, no object) is spread first, as it always was.
    const prototype = typeof input === 'object' && input !== null ? (Object.getPrototypeOf(input) as unknown) : undefined;
    const plain = prototype === Object.prototype || prototype === null;
    const value: Record<string, unknown> = plain ? (input as Record<string, unknown>) : { ...defaults, ...input };
    const data = payloadParserOf(point)(value, defaults);
    return data !== undefined ? { ok: true, data: data as PointPayload<P> } : parseWith(points[point].schema as unknown as SchemaLike<PointPayload<P>>, plain ? { ...defaults, ...input } : value);
  }

  async function emit<P extends PointName>(point: P, input: PointInput<P>, emitOptions?: EmitOptions): Promise<MergedOutcome<P>> {
    const merged: MergedOutcome<P> = { point, notices: [], preserved: [], errors: [], hooksRun: 0 };
    const list = byPoint.get(point);
    // session:start is still recorded with no hooks on it: plugin commands use the last session.
    if ((!list || list.length === 0) && point !== 'session:start') return merged;

    const spec = points[point];
    const parsed = parsePayload(point, input);
    if (!parsed.ok) {
      await fail(merged, { pluginName: 'hookwise', hookName: 'emit', kind: 'invalid-payload', message: `invalid ${point} payload: ${parsed.message}` }, typeof input?.sessionId === 'string' ? input.sessionId : 'unknown', emitOptions);
      return merged;
    }
    let payload = parsed.data as PointPayload<P>;
    const sessionId = payload.sessionId;
    if (point === 'compact:after') {
      const fill = await takeCompaction(sessionId, payload as PointPayload<'compact:after'>);
      if (fill === 'duplicate') return merged;
      payload = fill as PointPayload<P>;
    }

    const kind = spec.kind;
    const transform = 'transform' in spec ? (spec.transform as { field: string; expected: string; accepts(value: unknown): boolean }) : undefined;
    let changed = false;

    const signal = emitOptions?.signal;
    const startedAt = clock.now();
    for (const hook of list ?? []) {
      if (signal?.aborted) {
        // The host stopped waiting: say which hooks never ran rather than dropping them silently.
        await fail(merged, { pluginName: hook.pluginName, hookName: hook.hookName, kind: 'timeout', message: `skipped: the host's deadline passed ${Math.max(0, clock.now() - startedAt)} ms into ${point}` }, sessionId, emitOptions);
        continue;
      }
      merged.hooksRun++;
      let result: unknown;
      try {
        result = runHook(hook, pluginScope(sessionId, hook.plugin), payload, signal, startedAt);
        if (result instanceof HookDeadline) {
          const running = result;
          try {
            result = await running;
          } finally {
            running.settled = true;
          }
        } else if (isThenable(result)) result = await result;
      } catch (error) {
        await fail(
          merged,
          {
            pluginName: hook.pluginName,
            hookName: hook.hookName,
            kind: HookTimeoutError.isInstance(error) && error.code === 'HW_HOOK_TIMEOUT' ? 'timeout' : 'error',
            message: error instanceof Error ? error.message : String(error),
            ...(error instanceof Error && error.stack ? { stack: error.stack } : {}),
          },
          sessionId,
          emitOptions,
        );
        continue;
      }
      if (result === undefined || result === null) continue;
      if (typeof result !== 'object') {
        await invalid(merged, hook, `returned ${typeof result}, expected an outcome object`, sessionId, emitOptions);
        continue;
      }
      const outcome = result as { context?: unknown; notice?: unknown; block?: { reason?: unknown }; value?: unknown; preserved?: unknown };
      if (typeof outcome.context === 'string') merged.context = joinText(merged.context, outcome.context, 'context');
      if (outcome.notice !== undefined) {
        const problems: string[] = [];
        const notice = noticeOf(hook, outcome.notice, problems);
        if (notice) {
          merged.notices.push(notice);
          merged.notice = joinText(merged.notice, notice.text, 'notice');
        }
        for (const problem of problems) await invalid(merged, hook, problem, sessionId, emitOptions);
      }
      if (Array.isArray(outcome.preserved)) addPreserved(merged.preserved, outcome.preserved.filter((label): label is string => typeof label === 'string'));
      if (transform && outcome.value !== undefined) {
        if (transform.accepts(outcome.value)) {
          payload = { ...payload, [transform.field]: outcome.value };
          changed = true;
        } else {
          await invalid(merged, hook, `value for ${point} must be ${transform.expected}`, sessionId, emitOptions);
        }
      }
      if (outcome.block !== undefined) {
        if (kind !== 'guard') {
          await invalid(merged, hook, `${point} cannot be blocked; block ignored`, sessionId, emitOptions);
        } else {
          const reason = typeof outcome.block?.reason === 'string' && outcome.block.reason !== '' ? outcome.block.reason : `blocked by ${hook.pluginName}`;
          merged.block = { reason, pluginName: hook.pluginName, hookName: hook.hookName };
          break; // the first block wins and ends the chain
        }
      }
    }
    if (changed && transform) (merged as { value?: unknown }).value = (payload as Record<string, unknown>)[transform.field];
    if (point === 'session:start') {
      await stateStore.update(PROJECT_SCOPE, CORE_NAMESPACE, (current: Record<string, unknown> | undefined) => ({ ...(current ?? {}), lastSessionId: sessionId })).catch((error: unknown) => {
        logger.warn(`could not record the session id: ${(error as Error).message}`);
      });
    }
    if (point === 'compact:before') {
      const record: CompactionRecord = { preserved: merged.preserved, trigger: (payload as PointPayload<'compact:before'>).trigger, compactStartedAt: new Date(clock.now()).toISOString(), pending: true };
      await stateStore.update(sessionId, CORE_NAMESPACE, (current: (CompactionRecord & Record<string, unknown>) | undefined) => ({ ...(current ?? {}), ...record })).catch((error: unknown) => {
        logger.warn(`could not record what compaction preserved: ${(error as Error).message}`);
      });
    }
    return merged;
  }

  /**
   * Matches a `compact:after` with its `compact:before`: fills `preserved` and `trigger` from it
   * and consumes it, so a later `compact:after` never receives stale labels. A `compact:after`
   * with no `compact:before`, within a short window of the last one, reports the same compaction
   * again and is dropped ('duplicate'); this is the one place compactions are de-duplicated.
   */
  async function takeCompaction(sessionId: string, payload: PointPayload<'compact:after'>): Promise<PointPayload<'compact:after'> | 'duplicate'> {
    const now = clock.now();
    let taken: CompactionRecord | undefined;
    let duplicate = false;
    try {
      await stateStore.update(sessionId, CORE_NAMESPACE, (current: (CompactionRecord & Record<string, unknown>) | undefined) => {
        const { preserved: _preserved, trigger: _trigger, compactStartedAt: _started, pending, lastCompactAfterAt, ...rest } = current ?? {};
        if (!pending && lastCompactAfterAt !== undefined && now - lastCompactAfterAt >= 0 && now - lastCompactAfterAt < DUPLICATE_COMPACTION_WINDOW_MS) {
          duplicate = true;
          return current ?? {};
        }
        taken = pending ? current : undefined;
        return { ...rest, lastCompactAfterAt: now };
      });
    } catch (error) {
      // Without state no match and no de-duplication: reporting a compaction twice beats losing it.
      logger.warn(`could not read what compaction preserved: ${(error as Error).message}`);
    }
    if (duplicate) return 'duplicate';
    let filled = payload;
    if (filled.preserved === undefined && taken?.preserved) filled = { ...filled, preserved: taken.preserved };
    if (filled.trigger === undefined && taken?.trigger) filled = { ...filled, trigger: taken.trigger };
    return filled;
  }

  const commands = () =>
    plugins.flatMap((plugin) =>
      (plugin.instance?.definition.commands ?? []).map((command) => ({ pluginName: plugin.meta.name, name: command.name, description: command.description, ...(command.usage ? { usage: command.usage } : {}) })),
    );

  return {
    projectDir,
    host: options.host,
    plugins: plugins.map((plugin) => plugin.meta),
    services: { stateStore, eventLog, logger, tokenCounter, clock },
    emit,
    hooksFor: (point) => (byPoint.get(point) ?? []).map(({ point: hookPoint, pluginName, hookName, order }) => ({ point: hookPoint, pluginName, hookName, order })),
    has: (point) => (byPoint.get(point)?.length ?? 0) > 0,
    sessionContainer: (sessionId) => session(sessionId).container,
    commands,
    lastSessionId,
    async runCommand(name, args, runOptions = {}) {
      const owner = plugins.find((plugin) => plugin.instance?.definition.commands?.some((command) => command.name === name));
      const command = owner?.instance?.definition.commands?.find((candidate) => candidate.name === name);
      if (!owner || !command) throw new HookwiseError(`unknown command "${name}"; the configured plugins offer: ${commands().map((entry) => entry.name).join(', ') || 'none'}`, { code: 'HW_UNKNOWN_COMMAND' });
      const sessionId = runOptions.sessionId ?? (await lastSessionId());
      if (!sessionId) throw new HookwiseError(`no session has started in ${projectDir} yet; pass a session id`, { code: 'HW_NO_SESSION' });
      assertSafeName(sessionId, 'session id');
      try {
        const text = await command.run(args, {
          sessionId,
          projectDir,
          host: options.host,
          options: owner.options,
          state: createSessionState(stateStore, sessionId, owner.meta.name),
          projectState: createSessionState(stateStore, PROJECT_SCOPE, owner.meta.name),
          logger,
          eventLog,
          tokenCounter,
          clock,
          ephemeral,
        });
        return text ?? '';
      } catch (error) {
        if (HookwiseError.isInstance(error)) throw error;
        throw new PluginError(`command "${name}" failed: ${(error as Error).message}`, { pluginName: owner.meta.name, hookName: name, cause: error });
      }
    },
    async dispose() {
      deadlines?.stop();
      for (const owner of sessions.values()) await owner.dispose();
      sessions.clear();
      await engineContainer?.dispose();
    },
  };
}
