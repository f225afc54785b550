import path from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { requireDi } from './di-runtime.js';
import { systemClock, type Clock } from './clock.js';
import type { HookwiseConfig } from './config.js';
import { DEFAULT_HOOK_TIMEOUT_MS } from './deadline.js';
import { HookwiseError, PluginError } from './errors.js';
import { assertSafeName } from './state/safe-name.js';
import { createLogger, type Logger } from './logger.js';
import type { MergedOutcome } from './outcome.js';
import type { PluginMeta } from './plugin.js';
import { parseWith } from './schema.js';
import { points, type PointInput, type PointName, type PointPayload } from './points.js';
import { createEventLog } from './state/event-log.js';
import { createSessionState } from './state/file-state-store.js';
import { isStateOutage, openStateStore } from './state/open-state-store.js';
import type { EventLog, StateStore } from './state/types.js';
import { createCharsTokenCounter, createJsonAwareTokenCounter, defaultTokenCounter, type TokenCounter } from './token-counter.js';
import { CLOCK, EVENT_LOG, HOST, LOGGER, PROJECT_DIR, STATE_STORE, TOKEN_COUNTER } from './tokens.js';
import { createFailureReporter, type EmitOptions } from './engine/failure-report.js';
import { createHookRunner, failureOf, isThenable } from './engine/hook-runner.js';
import { createRecorder } from './engine/recorder.js';
import { buildHookTable } from './engine/hook-table.js';
import { mergeOutcome, type TransformSpec } from './engine/merge-outcome.js';
import { checkPayload } from './engine/payload-check.js';
import { PROJECT_SCOPE, SessionScopes, type PreparedPlugin, type RegisteredHook } from './engine/scopes.js';
import { createSessionRecords } from './engine/session-records.js';

export { DEFAULT_HOOK_TIMEOUT_MS } from './deadline.js';
export { PROJECT_SCOPE } from './engine/scopes.js';
export type { EmitOptions } from './engine/failure-report.js';
export type { RegisteredHook } from './engine/scopes.js';

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
  /** Parent of the engine's container; defaults to the root container of `@hookwise/core/di` (loaded by the plugins that use DI). */
  container?: DependencyContainer;
  /**
   * The engine must leave no files behind (a replay, a dry run): give it in-memory state and
   * event log, and plugins see `context.ephemeral` and write no files of their own.
   */
  ephemeral?: boolean;
  /** The host applies nothing hooks return, only measures it (a replay): plugins see `context.dryRun`. */
  dryRun?: boolean;
  /** Told once when the shared state store (Redis) becomes unreachable, and once with undefined when it is back. */
  onStateOutage?: (error: HookwiseError | undefined) => void;
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
  /** Whether a hook of `point` belongs to a plugin that `needs` this measurement (see `PluginDefinition.needs`). */
  needs(point: PointName, what: 'contextUsage'): boolean;
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
    options.tokenCounter ??
    (config.tokenCounter === 'json-aware'
      ? createJsonAwareTokenCounter()
      : config.tokenCounter === 'chars'
        ? createCharsTokenCounter(4)
        : defaultTokenCounter);
  const stateDirectory = path.resolve(projectDir, config.stateDir ?? '.hookwise');
  // A shared store's outage is reported once, as a hook error of hookwise itself, and its end too.
  const ownStore =
    options.stateStore === undefined
      ? openStateStore({ projectDir, config, logger, onOutage: (error) => void recordOutage(error) })
      : undefined;
  const stateStore = options.stateStore ?? ownStore!;
  const recordOutage = (error: HookwiseError | undefined) => {
    try {
      options.onStateOutage?.(error);
    } catch (callbackError) {
      logger.warn(`onStateOutage threw: ${(callbackError as Error).message}`);
    }
    return eventLog
      .append(
        error
          ? { type: 'hook:error', pluginName: 'hookwise', hookName: 'state', kind: 'state-unavailable', message: error.message }
          : { type: 'state:available' },
      )
      .catch(() => undefined);
  };
  const eventLog =
    options.eventLog ??
    createEventLog({
      path: path.resolve(projectDir, config.eventLog?.path ?? path.join(stateDirectory, 'logs', 'events.jsonl')),
      ...(config.eventLog?.maxBytes !== undefined ? { maxBytes: config.eventLog.maxBytes } : {}),
      ...(config.eventLog?.maxFiles !== undefined ? { maxFiles: config.eventLog.maxFiles } : {}),
    });
  const hookTimeoutMs = options.hookTimeoutMs ?? config.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  const ephemeral = options.ephemeral === true;
  const dryRun = options.dryRun === true;
  /** What every payload carries unless the host says otherwise. */
  const defaults: Readonly<Record<string, unknown>> = Object.freeze({ projectDir, host: options.host });

  // Made with the first session container (see PluginScope).
  let engineContainer: DependencyContainer | undefined;
  const engineContainerOf = (): DependencyContainer => {
    if (engineContainer) return engineContainer;
    engineContainer = (options.container ?? requireDi('a plugin container').rootContainer).createChildContainer();
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
  const plugins: PreparedPlugin[] = (config.plugins ?? []).map((instance) => ({
    instance,
    meta: instance.meta,
    options: instance.resolveOptions(parseWith),
  }));
  // Checked first: a hook declared in a form hookwise no longer takes is named as such, not as missing DI.
  const byPoint = buildHookTable(plugins, config);
  // A plugin with hook classes or a `register` needs DI: say so when the engine is built.
  for (const plugin of plugins) {
    const definition = plugin.instance?.definition;
    if (definition?.register !== undefined || definition?.hooks?.some((entry) => typeof entry === 'function'))
      requireDi(`plugin "${plugin.meta.name}" (a hook class or a register function)`);
  }
  const scopes = new SessionScopes(engineContainerOf, stateStore, options.container !== undefined);
  const records = createSessionRecords(stateStore, clock, logger);
  const { fail, invalid, late } = createFailureReporter(logger, eventLog);
  const recorder = createRecorder(eventLog, logger);
  const waitingForLock = (stateStore as { waitingForLock?: () => boolean }).waitingForLock;
  const runHook = createHookRunner({
    shared: { projectDir, logger, eventLog, tokenCounter, clock, ephemeral, dryRun },
    recorder,
    clock,
    hookTimeoutMs,
    runSync: options.runSync,
    waitingForLock: waitingForLock && (() => waitingForLock.call(stateStore)),
    onLateFailure: (hook, error, sessionId) => void (isStateOutage(error) || late(failureOf(hook, error), sessionId, hook.point)),
  });

  async function emit<P extends PointName>(point: P, input: PointInput<P>, emitOptions?: EmitOptions): Promise<MergedOutcome<P>> {
    const merged: MergedOutcome<P> = { point, notices: [], preserved: [], measurements: {}, errors: [], hooksRun: 0 };
    const list = byPoint.get(point);
    // session:start is still recorded with no hooks on it: plugin commands use the last session.
    if ((!list || list.length === 0) && point !== 'session:start') return merged;

    const spec = points[point];
    const parsed = checkPayload(point, input, defaults);
    if (!parsed.ok) {
      await fail(
        merged,
        { pluginName: 'hookwise', hookName: 'emit', kind: 'invalid-payload', message: `invalid ${point} payload: ${parsed.message}` },
        typeof input?.sessionId === 'string' ? input.sessionId : 'unknown',
        emitOptions,
      );
      return merged;
    }
    let payload = parsed.data as PointPayload<P>;
    const sessionId = payload.sessionId;
    if (point === 'compact:after') {
      const filled = await records.takeCompaction(sessionId, payload as PointPayload<'compact:after'>);
      if (filled === 'duplicate') return merged;
      payload = filled as PointPayload<P>;
    }

    const transform = 'transform' in spec ? (spec.transform as TransformSpec) : undefined;
    let changed = false;
    const signal = emitOptions?.signal;
    const startedAt = clock.now();
    for (const hook of list ?? []) {
      if (signal?.aborted) {
        // The host stopped waiting: say which hooks never ran rather than dropping them silently.
        await fail(
          merged,
          {
            pluginName: hook.pluginName,
            hookName: hook.hookName,
            kind: 'timeout',
            message: `skipped: the host's deadline passed ${Math.max(0, clock.now() - startedAt)} ms into ${point}`,
          },
          sessionId,
          emitOptions,
        );
        continue;
      }
      merged.hooksRun++;
      let result: unknown;
      try {
        result = runHook(hook, scopes.plugin(sessionId, hook.plugin), payload, merged.measurements, signal, startedAt);
        if (isThenable(result)) result = await result;
      } catch (error) {
        // The shared state store is away: it reported the outage once; each hook that needed it
        // steps aside without a report of its own.
        if (isStateOutage(error)) continue;
        await fail(merged, failureOf(hook, error), sessionId, emitOptions);
        continue;
      }
      if (result === undefined || result === null) continue;
      const step = mergeOutcome(merged, hook, result, payload as Record<string, unknown>, spec.kind, transform);
      payload = step.payload as PointPayload<P>;
      changed ||= step.changed;
      for (const problem of step.problems) await invalid(merged, hook, problem, sessionId, emitOptions);
      if (step.blocked) break; // the first block wins and ends the chain
    }
    if (changed && transform) (merged as { value?: unknown }).value = (payload as Record<string, unknown>)[transform.field];
    if (point === 'session:start') await records.sessionStarted(sessionId);
    if (point === 'compact:before')
      await records.compactionStarted(sessionId, merged.preserved, (payload as PointPayload<'compact:before'>).trigger);
    return merged;
  }

  const commands = () =>
    plugins.flatMap((plugin) =>
      (plugin.instance?.definition.commands ?? []).map((command) => ({
        pluginName: plugin.meta.name,
        name: command.name,
        description: command.description,
        ...(command.usage ? { usage: command.usage } : {}),
      })),
    );

  return {
    projectDir,
    host: options.host,
    plugins: plugins.map((plugin) => plugin.meta),
    services: { stateStore, eventLog, logger, tokenCounter, clock },
    emit,
    hooksFor: (point) =>
      (byPoint.get(point) ?? []).map(({ point: hookPoint, pluginName, hookName, order }) => ({
        point: hookPoint,
        pluginName,
        hookName,
        order,
      })),
    has: (point) => (byPoint.get(point)?.length ?? 0) > 0,
    needs: (point, what) => (byPoint.get(point) ?? []).some((hook) => hook.plugin.instance?.definition.needs?.includes(what) === true),
    sessionContainer: (sessionId) => scopes.session(sessionId).container,
    commands,
    lastSessionId: records.lastSessionId,
    async runCommand(name, args, runOptions = {}) {
      const owner = plugins.find((plugin) => plugin.instance?.definition.commands?.some((command) => command.name === name));
      const command = owner?.instance?.definition.commands?.find((candidate) => candidate.name === name);
      if (!owner || !command)
        throw new HookwiseError(
          `unknown command "${name}"; the configured plugins offer: ${
            commands()
              .map((entry) => entry.name)
              .join(', ') || 'none'
          }`,
          { code: 'HW_UNKNOWN_COMMAND' },
        );
      const sessionId = runOptions.sessionId ?? (await records.lastSessionId());
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
          dryRun,
          record: (entry) => recorder(owner.meta.name, sessionId, entry),
        });
        return text ?? '';
      } catch (error) {
        if (HookwiseError.isInstance(error)) throw error;
        throw new PluginError(`command "${name}" failed: ${(error as Error).message}`, {
          pluginName: owner.meta.name,
          hookName: name,
          cause: error,
        });
      }
    },
    async dispose() {
      await scopes.dispose();
      await engineContainer?.dispose();
      await ownStore?.close?.();
    },
  };
}
