import path from 'node:path';
import { createPromptConverter, type AppliedMemo, type ConvertedPrompt, type PromptMessage } from './prompt.js';
import { randomUUID } from 'node:crypto';
import type {
  EventLog,
  HookFailure,
  HookwiseConfig,
  Logger,
  MergedNotice,
  MergedOutcome,
  PluginInstance,
  PointInput,
  PointName,
  StateStore,
} from '@hookwise/core';
import {
  createEventLog,
  stateUrl,
  createLevelLogger,
  createMemoryEventLog,
  createMemoryStateStore,
  definedFields,
  emitIfListening,
  errorMessage,
  isSafeName,
  lazyProjectEngine,
  type Engine,
} from '@hookwise/core/host';

/** The host name hookwise payloads and logs carry. */
export const HOST = 'ai-sdk';
/** Where the binding keeps what must outlive the process (the block handed back after a compaction). */
const STATE_NAMESPACE = 'hookwise-ai-sdk';
/**
 * Conversations whose bookkeeping a middleware keeps in memory. A dropped one starts over as a
 * new process would: its prompt converted afresh, its post-compaction text read back from the
 * state store (with a projectDir).
 */
const SESSIONS_KEPT = 256;
/** Extra time on top of the engine's per-hook deadline before a whole point is abandoned. */
const DEADLINE_MARGIN_MS = 1_000;

/** A notice for the app's user, with the conversation and the point it came from. */
export interface HookwiseNotice extends MergedNotice {
  sessionId: string;
  point: PointName;
}

/** A problem hookwise stepped aside from: the model call went on unchanged. */
export interface HookwiseErrorReport {
  /** `config`: the config could not be loaded or a plugin's options are invalid (hookwise is off); `state`: the shared state store (Redis) is unreachable, told once per outage; otherwise a hook's failure kind. */
  kind: 'config' | 'state' | HookFailure['kind'];
  message: string;
  sessionId?: string;
  point?: PointName;
  pluginName?: string;
  hookName?: string;
}

export interface HookwiseMiddlewareOptions {
  /** The conversation this middleware serves (default: a new random id). A call may name another with `providerOptions.hookwise.sessionId`. */
  sessionId?: string;
  /**
   * The project: where `hookwise.config.*` is found (default the working directory) and, when
   * given, where state and the event log are kept as files (`.hookwise/`). Without it state and
   * the event log stay in memory and plugins write no files.
   */
  projectDir?: string;
  /** Plugins to run, instead of a config file (`[prune(), precompact()]`). */
  plugins?: Array<PluginInstance<any>>;
  /** A whole config (plugins, the project's own hooks, `hookTimeoutMs`…), instead of a config file. */
  config?: HookwiseConfig;
  /** The config file, relative to the project (default: core's lookup of `hookwise.config.*`). */
  configFile?: string;
  /** Called with each notice for the user (a suggestion to compact, a report of a compaction). */
  onNotice?: (notice: HookwiseNotice) => void;
  /** Called with each problem hookwise stepped aside from; they are also in the event log. */
  onError?: (error: HookwiseErrorReport) => void;
  /** The model's context window in tokens, when the model id does not say it (default: core's guess from the model). */
  contextWindow?: number;
  /** Deadline of each hook call in ms (default: the config's `hookTimeoutMs`, else 5,000). */
  hookTimeoutMs?: number;
  /** Where hookwise logs (default: warnings and errors on the console, at the config's `logLevel`). */
  logger?: Logger;
  /** The event log (default: `.hookwise/logs/events.jsonl` with a projectDir, else in memory). */
  eventLog?: EventLog;
  /** The session state store (default: files under `.hookwise/` with a projectDir, else in memory). */
  stateStore?: StateStore;
}

interface SessionTracker {
  started: boolean;
  /** User messages of the last prompt seen: one more marks a new turn (`prompt:submit`). */
  userMessages: number;
  lastPrompt?: string;
  /** The context of the last model call, from its usage. */
  contextTokens?: number;
  model?: string;
  /** Contexts from other points (prompt, tools), for the next model call only. */
  nextRequest: string[];
  /** What hooks handed back after the app's last compaction: in every call until the next one. */
  afterCompaction?: string;
  afterCompactionLoaded: boolean;
  /** The conversation's prompt conversion, which keeps what it converted last call. */
  convert: (prompt: readonly PromptMessage[]) => ConvertedPrompt;
  /** What the hooks' edits made of each message last call. */
  applied: AppliedMemo;
}

/**
 * The engine and the per-conversation bookkeeping behind the middleware: loads the config once
 * on first use, emits points only when a hook listens, and never throws — a broken config, a
 * throwing hook or one past its deadline is reported to `onError`, the log and the event log,
 * and the call goes on with what it had.
 */
export function createBinding(options: HookwiseMiddlewareOptions) {
  const projectDir = path.resolve(options.projectDir ?? process.cwd());
  const onFiles = options.projectDir !== undefined;
  const defaultSessionId = options.sessionId ?? `ai-sdk-${randomUUID()}`;
  const logger: Logger =
    options.logger ??
    createLevelLogger(
      (entry) => console.warn(`[hookwise] ${entry.text}`),
      () => projectEngine.logLevel,
    );
  let eventLog: EventLog | undefined = options.eventLog ?? (onFiles ? undefined : createMemoryEventLog());
  /** The app's deadline, else the config's once it is loaded, else core's default. */
  const hookTimeoutMs = () => options.hookTimeoutMs ?? projectEngine.hookTimeoutMs;

  const call = <A>(callback: ((argument: A) => void) | undefined, argument: A, what: string) => {
    if (!callback) return;
    try {
      callback(argument);
    } catch (error) {
      logger.warn(`the app's ${what} callback threw: ${errorMessage(error)}`);
    }
  };
  const reportError = (report: HookwiseErrorReport) => call(options.onError, report, 'onError');
  const append = (record: Record<string, unknown>) => {
    void eventLog?.append(record as never).catch((error: unknown) => logger.warn(`could not write the event log: ${errorMessage(error)}`));
  };

  const inline =
    options.config || options.plugins ? { ...options.config, ...(options.plugins ? { plugins: options.plugins } : {}) } : undefined;
  const projectEngine = lazyProjectEngine({
    projectDir,
    host: HOST,
    logger,
    scope: 'app',
    ...(inline ? { config: inline } : {}),
    ...(options.configFile ? { configFile: options.configFile } : {}),
    engineOptions: (config) => ({
      ...(options.hookTimeoutMs !== undefined ? { hookTimeoutMs: options.hookTimeoutMs } : {}),
      ...(eventLog ? { eventLog } : {}),
      // Files with a project folder, Redis when the deployment names one (the engine opens either), else memory.
      ...(options.stateStore
        ? { stateStore: options.stateStore }
        : onFiles || stateUrl(config)
          ? {}
          : { stateStore: createMemoryStateStore() }),
      onStateOutage: (error) => error && reportError({ kind: 'state', message: error.message }),
      ephemeral: !onFiles,
    }),
    onFailure: (message) => {
      // The engine's own event log never came to be: write where it would have been.
      eventLog ??= createEventLog({ path: path.join(projectDir, '.hookwise', 'logs', 'events.jsonl') });
      append({
        type: 'hook:error',
        sessionId: defaultSessionId,
        host: HOST,
        kind: 'config',
        pluginName: 'hookwise',
        hookName: 'config',
        message,
      });
      reportError({ kind: 'config', message });
    },
  });
  /** The engine, once made: its event log is the one everything else writes to. */
  const engine = async (): Promise<Engine | undefined> => {
    const made = await projectEngine();
    if (made) eventLog = made.services.eventLog;
    return made;
  };

  // Most recently used last (a Map iterates in insertion order); the least recently used is
  // dropped past SESSIONS_KEPT, so an app serving many conversations keeps a bounded memory.
  const sessions = new Map<string, SessionTracker>();
  const tracker = (sessionId: string): SessionTracker => {
    let existing = sessions.get(sessionId);
    if (existing) {
      if (sessions.size > 1) {
        sessions.delete(sessionId);
        sessions.set(sessionId, existing);
      }
      return existing;
    }
    if (sessions.size >= SESSIONS_KEPT) sessions.delete(sessions.keys().next().value!);
    sessions.set(
      sessionId,
      (existing = {
        started: false,
        userMessages: 0,
        nextRequest: [],
        afterCompactionLoaded: false,
        convert: createPromptConverter(),
        applied: new WeakMap(),
      }),
    );
    return existing;
  };

  const common = (sessionId: string) => {
    const session = tracker(sessionId);
    return definedFields({
      sessionId,
      cwd: projectDir,
      model: session.model,
      contextTokens: session.contextTokens,
      contextWindow: options.contextWindow,
    });
  };

  const hookCounts = new Map<PointName, number>();
  const hookCount = (current: Engine, point: PointName): number => {
    let count = hookCounts.get(point);
    if (count === undefined) hookCounts.set(point, (count = current.hooksFor(point).length));
    return count;
  };

  /**
   * Emits a point when a hook listens on it. Never throws; the whole point is bounded (the
   * engine bounds each hook, the signal the sum of several slow ones). Failures go to onError and
   * notices to onNotice and the event log; the engine has logged and recorded failures already.
   */
  async function emit<P extends PointName>(
    point: P,
    sessionId: string,
    payload: () => PointInput<P>,
  ): Promise<MergedOutcome<P> | undefined> {
    const current = await engine();
    if (!current) return undefined;
    let outcome: MergedOutcome<P> | undefined;
    try {
      // The engine bounds each hook; a signal bounds the sum of several (one hook needs none).
      const several = hookCount(current, point) > 1;
      outcome = await emitIfListening(current, point, payload, {
        ...(several ? { signal: AbortSignal.timeout(hookTimeoutMs() + DEADLINE_MARGIN_MS) } : {}),
        label: `[${HOST}]`,
      });
    } catch (error) {
      const message = `${point} failed: ${errorMessage(error)}`;
      logger.error(message);
      append({ type: 'hook:error', sessionId, host: HOST, point, kind: 'error', pluginName: 'hookwise', hookName: point, message });
      reportError({ kind: 'error', message, sessionId, point });
      return undefined;
    }
    if (!outcome) return undefined;
    for (const failure of outcome.errors)
      reportError({
        kind: failure.kind,
        message: failure.message,
        sessionId,
        point,
        pluginName: failure.pluginName,
        hookName: failure.hookName,
      });
    for (const notice of outcome.notices) {
      append({ type: 'notice', sessionId, host: HOST, point, pluginName: notice.pluginName, text: notice.text, about: notice.about });
      call(options.onNotice, { ...notice, sessionId, point }, 'onNotice');
    }
    return outcome;
  }

  /** Runs a body that must not break the app's call; what it throws is reported and dropped. */
  async function guarded<T>(what: string, sessionId: string, body: () => Promise<T>): Promise<T | undefined> {
    try {
      return await body();
    } catch (error) {
      const message = `${what} failed: ${errorMessage(error)}`;
      logger.error(message);
      append({ type: 'hook:error', sessionId, host: HOST, kind: 'error', pluginName: 'hookwise', hookName: what, message });
      reportError({ kind: 'error', message, sessionId });
      return undefined;
    }
  }

  async function ensureStarted(sessionId: string, source: 'startup' | 'resume'): Promise<void> {
    const session = tracker(sessionId);
    if (session.started) return;
    session.started = true;
    const outcome = await emit('session:start', sessionId, () => ({ ...common(sessionId), source }));
    if (outcome?.context) session.nextRequest.push(outcome.context);
  }

  /** The block handed back after the last compaction, from memory or from the state store (a new process). */
  async function afterCompactionOf(sessionId: string): Promise<string | undefined> {
    const session = tracker(sessionId);
    if (session.afterCompactionLoaded) return session.afterCompaction;
    session.afterCompactionLoaded = true;
    const current = await engine();
    if (current && onFiles && isSafeName(sessionId)) {
      const stored = await current.services.stateStore
        .read<{ afterCompaction?: unknown }>(sessionId, STATE_NAMESPACE)
        .catch(() => undefined);
      if (typeof stored?.afterCompaction === 'string') session.afterCompaction = stored.afterCompaction;
    }
    return session.afterCompaction;
  }

  async function keepAfterCompaction(sessionId: string, text: string | undefined): Promise<void> {
    const session = tracker(sessionId);
    session.afterCompaction = text;
    session.afterCompactionLoaded = true;
    const current = await engine();
    if (!current || !onFiles || !isSafeName(sessionId)) return;
    await current.services.stateStore
      .update(sessionId, STATE_NAMESPACE, (stored: Record<string, unknown> | undefined) =>
        definedFields({ ...(stored ?? {}), afterCompaction: text }),
      )
      .catch((error: unknown) => logger.warn(`could not keep the post-compaction context for later processes: ${errorMessage(error)}`));
  }

  return {
    defaultSessionId,
    logger,
    engine,
    tracker,
    common,
    emit,
    guarded,
    ensureStarted,
    afterCompactionOf,
    keepAfterCompaction,
    /** The event log, once the engine is loaded (or a config error wrote to it). */
    eventLog: () => eventLog,
    forget: (sessionId: string) => void sessions.delete(sessionId),
    dispose: () => projectEngine.dispose(),
  };
}

export type Binding = ReturnType<typeof createBinding>;
