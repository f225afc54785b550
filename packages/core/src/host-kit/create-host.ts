// The in-process host kit: one object an adapter makes per host process. It owns what every
// in-process adapter needs the same way — the engine built once from the config, session start
// and resume, every emit under core's one deadline, fail-open with error reporting, notices,
// what must outlive the process after a compaction, keep-alive, the payloads' common fields —
// so an adapter is its event map, its message conversion and how it shows a notice.
import path from 'node:path';
import type { HookwiseConfig } from '../config.js';
import { DEFAULT_HOOK_TIMEOUT_MS, withDeadline, withDeadlineSignal } from '../deadline.js';
import type { Engine, EngineOptions } from '../engine.js';
import { definedFields, emitIfListening, errorMessage, failOpen } from '../host-kit.js';
import { createLevelLogger, type LogEntry, type Logger, type LogLevel } from '../logger.js';
import { estimateMessageTokens } from '../messages/estimate.js';
import type { Message } from '../messages/message-model.js';
import { noticeText, type HookFailure, type MergedNotice, type MergedOutcome, type NoticeWording } from '../outcome.js';
import type { PointInput, PointName } from '../points.js';
import { createEventLog, createMemoryEventLog } from '../state/event-log.js';
import { createMemoryStateStore } from '../state/file-state-store.js';
import { stateUrl } from '../state/open-state-store.js';
import type { HookwiseError } from '../errors.js';
import { isSafeName } from '../state/safe-name.js';
import type { EventLog, StateStore } from '../state/types.js';
import { lazyProjectEngine, type ProjectEngineSeams } from '../project-engine.js';
import { HostSession, type CommandAction, type CommonFields } from './host-session.js';

/** Extra time on top of the engine's per-hook deadline before a whole point is abandoned. */
const DEADLINE_MARGIN_MS = 1_000;
/** Sessions whose bookkeeping a host keeps; a dropped one starts over as a new process would. */
const SESSIONS_KEPT = 256;

/** A notice for the host's user, with the session and the point it came from. */
export interface HostNotice extends MergedNotice {
  sessionId: string;
  point: PointName;
  /** The notice in the host's words ({@link HostOptions.noticeWording}). */
  hostText: string;
}

/** A problem hookwise stepped aside from: the host went on unchanged. */
export interface HostErrorReport {
  /** `config`: the config could not be loaded (hookwise is off); `state`: the shared state store is unreachable, told once per outage; otherwise a hook's failure kind. */
  kind: 'config' | 'state' | HookFailure['kind'];
  message: string;
  sessionId?: string;
  point?: PointName;
  pluginName?: string;
  hookName?: string;
  /** What was thrown, when hookwise itself failed. */
  error?: unknown;
}

export interface HostOptions<S extends object = object> extends ProjectEngineSeams {
  /** The host's name, as payloads, logs and plugins (`context.host`) see it. */
  host: string;
  /** Where `hookwise.config.*` is found and (unless `ephemeral`) state and logs are kept. */
  projectDir: string;
  /** Where log lines go, at the config's `logLevel` (`warn` until it is loaded). */
  log?: (entry: LogEntry) => void;
  /** The level of `log` before a config is loaded and when it names none (default `warn`). */
  logLevel?: LogLevel;
  /** A logger of the host's own, used as it is (instead of `log`). */
  logger?: Logger;
  /** Shows a notice to the user (its session has the command it offers, if any); it is also in the event log. */
  // Method syntax (bivariant parameters): a `Host<S>` still passes where a `Host<object>` is taken.
  notify?(notice: HostNotice, session: HostSession<S>): void | Promise<void>;
  /** How the compact action of a notice reads in this host. */
  noticeWording?: NoticeWording;
  /** Told of every problem hookwise stepped aside from (also logged and in the event log). */
  onError?: (report: HostErrorReport) => void;
  /** A config given in code: no file is looked for. */
  config?: HookwiseConfig;
  /** A config file to use instead of looking for one. */
  configFile?: string;
  /** What hookwise is off for when there is no config, in the log line: `project` (default), `app`. */
  scope?: string;
  /** Deadline of each hook call in ms (default: the config's `hookTimeoutMs`, else core's). */
  hookTimeoutMs?: number;
  /** Keep the process alive while a point runs (a host whose process ends on an empty loop). */
  keepAlive?: boolean;
  /** State and the event log in memory, no files (plugins see `context.ephemeral`). */
  ephemeral?: boolean;
  stateStore?: StateStore;
  eventLog?: EventLog;
  /** Where what must outlive the process is kept in the state store; default `hookwise-<host>`. */
  stateNamespace?: string;
  /** The adapter's own fields of a new session. */
  session?: (sessionId: string) => S;
  /** Fields every session's payloads carry from its start (a context window the host was told). */
  fields?: CommonFields;
}

export interface EmitCallOptions {
  /** How failures of this call are named in log lines (default `[<host>]`). */
  label?: string;
  /** Fields for the log lines of this call's failures. */
  details?: Record<string, unknown>;
}

/**
 * The host kit for one process. `engine()` loads the config and builds the engine on first use
 * (undefined when hookwise is off); `session(id)` is a session's bookkeeping. Nothing it offers
 * throws into the host.
 */
export class Host<S extends object = object> {
  readonly logger: Logger;
  readonly host: string;
  readonly projectDir: string;
  private readonly options: HostOptions<S>;
  private readonly projectEngine;
  private eventLog: EventLog | undefined;
  private loaded: Engine | undefined;
  private readonly sessions = new Map<string, HostSession<S>>();

  constructor(options: HostOptions<S>) {
    this.options = options;
    this.host = options.host;
    this.projectDir = path.resolve(options.projectDir);
    const sink = options.log ?? ((entry: LogEntry) => process.stderr.write(`[hookwise] ${entry.level}: ${entry.text}\n`));
    this.logger = options.logger ?? createLevelLogger(sink, () => this.projectEngine.logLevel);
    this.eventLog = options.eventLog ?? (options.ephemeral ? createMemoryEventLog() : undefined);
    this.projectEngine = lazyProjectEngine({
      projectDir: this.projectDir,
      host: options.host,
      logger: this.logger,
      ...(options.config ? { config: options.config } : {}),
      ...(options.configFile ? { configFile: options.configFile } : {}),
      ...(options.scope ? { scope: options.scope } : {}),
      ...(options.logLevel ? { logLevel: options.logLevel } : {}),
      ...(options.loadConfig ? { loadConfig: options.loadConfig } : {}),
      ...(options.createEngine ? { createEngine: options.createEngine } : {}),
      engineOptions: (config) => this.engineOptions(config),
      onFailure: (message, error) => {
        // The engine's own event log never came to be: write where it would have been.
        this.eventLog ??= createEventLog({ path: path.join(this.projectDir, '.hookwise', 'logs', 'events.jsonl') });
        this.record({ type: 'hook:error', kind: 'config', pluginName: 'hookwise', hookName: 'config', message });
        this.report({ kind: 'config', message, error });
      },
    });
  }

  /**
   * The engine's services a host does not choose itself. The host's store, else memory for an
   * ephemeral host without a shared store, else the engine opens the config's (files or Redis).
   */
  private engineOptions(config: HookwiseConfig): Omit<EngineOptions, 'config' | 'projectDir' | 'host' | 'logger'> {
    const { options } = this;
    const stateStore = options.stateStore ?? (options.ephemeral && !stateUrl(config) ? createMemoryStateStore() : undefined);
    return definedFields({
      stateStore,
      eventLog: this.eventLog,
      hookTimeoutMs: options.hookTimeoutMs,
      ephemeral: options.ephemeral,
      onStateOutage: (error: HookwiseError | undefined) => error && this.report({ kind: 'state', message: error.message, error }),
    });
  }

  /** The project's engine, built once on first use; undefined when hookwise is off here. */
  async engine(): Promise<Engine | undefined> {
    const made = await this.projectEngine();
    if (made) {
      this.eventLog = made.services.eventLog;
      this.loaded = made;
    }
    return made;
  }

  /** The engine once {@link engine} has built it; undefined before and when hookwise is off. For a host's synchronous API. */
  get loadedEngine(): Engine | undefined {
    return this.loaded;
  }

  /** Core messages counted the engine's way (the config's token counter); undefined when hookwise is off. */
  async countTokens(messages: readonly Message[]): Promise<number | undefined> {
    const counter = (await this.engine())?.services.tokenCounter;
    if (!counter) return undefined;
    const count = (text: string) => counter.count(text);
    return messages.reduce((total, message) => total + estimateMessageTokens(message, count), 0);
  }

  /** The config's log level once loaded (`warn` before, and after a failed load). */
  get logLevel() {
    return this.projectEngine.logLevel;
  }

  /** The per-hook deadline: the host's, else the config's once loaded, else core's default. */
  get hookTimeoutMs(): number {
    return this.options.hookTimeoutMs ?? this.projectEngine.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
  }

  /** A session's bookkeeping, made on first use; the least recently used is dropped past a bound. */
  session(sessionId: string): HostSession<S> {
    let existing = this.sessions.get(sessionId);
    if (existing) {
      this.sessions.delete(sessionId);
    } else {
      if (this.sessions.size >= SESSIONS_KEPT) this.sessions.delete(this.sessions.keys().next().value!);
      existing = new HostSession<S>(
        this,
        sessionId,
        this.options.session?.(sessionId) ?? ({} as S),
        this.options.stateNamespace ?? `hookwise-${this.host}`,
      );
      Object.assign(existing.fields, this.options.fields);
    }
    this.sessions.set(sessionId, existing);
    return existing;
  }

  /** Waits for `work` at most one point's deadline (undefined past it): a host waiting on an earlier point. */
  within<T>(work: Promise<T>): Promise<T | undefined> {
    return withDeadline(work, this.hookTimeoutMs + DEADLINE_MARGIN_MS, () => undefined, { keepAlive: this.options.keepAlive === true });
  }

  /** A session's bookkeeping if the host has it (none is made). */
  findSession(sessionId: string): HostSession<S> | undefined {
    return this.sessions.get(sessionId);
  }

  /** Forgets a session's bookkeeping (it ended). */
  forget(sessionId: string): void {
    this.sessions.delete(sessionId);
  }

  /** Whether what a session keeps after a compaction may go to the state store under this id. */
  persists(sessionId: string): boolean {
    return this.options.ephemeral !== true && isSafeName(sessionId);
  }

  /**
   * Emits `point` for a session when a hook listens on it (`session:start` always), with the
   * session's common fields. Never throws; bounded by core's deadline (kept alive when the host
   * asks), so hookwise delays the host by at most one deadline. Failures are logged, recorded
   * and reported; notices go to `notify` and the event log.
   */
  async emit<P extends PointName>(
    session: HostSession<S>,
    point: P,
    fields: () => Partial<PointInput<P>>,
    call: EmitCallOptions = {},
  ): Promise<MergedOutcome<P> | undefined> {
    const engine = await this.engine();
    if (!engine) return undefined;
    if (point === 'tool:after') session.toolCalls++;
    const label = call.label ?? `[${this.host}]`;
    const payload = () => definedFields({ ...session.common(), ...fields() }) as unknown as PointInput<P>;
    const bound = this.hookTimeoutMs + DEADLINE_MARGIN_MS;
    // The engine bounds each hook; past the whole point's deadline it is told to stop, and gives what finished.
    // An adapter's own label names the point in the failure line too (`[Task#7] llm:before failed`).
    const outcome = await this.guard(
      call.label ? `${call.label} ${point}` : point,
      session.id,
      () =>
        withDeadlineSignal(
          bound,
          (signal) => emitIfListening(engine, point, payload, { signal, label, ...(call.details ? { details: call.details } : {}) }),
          { keepAlive: this.options.keepAlive === true },
        ),
      { ...call, point },
    );
    if (!outcome) return undefined;
    for (const failure of outcome.errors)
      this.report({
        kind: failure.kind,
        message: failure.message,
        sessionId: session.id,
        point,
        pluginName: failure.pluginName,
        hookName: failure.hookName,
      });
    for (const notice of outcome.notices) await this.notice(session, point, notice);
    return outcome;
  }

  /**
   * Runs a piece of the host's handling that must not break it: what it throws is logged
   * (`<what> failed: …`), recorded as a `hook:error` and reported to `onError`; gives undefined then.
   */
  async guard<T>(
    what: string,
    sessionId: string | undefined,
    body: () => Promise<T>,
    call: EmitCallOptions & { point?: PointName } = {},
  ): Promise<T | undefined> {
    try {
      return await body();
    } catch (error) {
      const message = `${what} failed: ${errorMessage(error)}`;
      const stack = error instanceof Error ? error.stack : undefined;
      this.logger.error(message, call.details ? { ...call.details, ...(stack ? { stack } : {}) } : undefined);
      const where = definedFields({ sessionId, point: call.point });
      this.record({ type: 'hook:error', ...where, kind: 'error', pluginName: 'hookwise', hookName: what, message });
      this.report({ kind: 'error', message, ...where, error });
      return undefined;
    }
  }

  /** Reports to the host's `onError`; a callback that throws is logged. */
  report(report: HostErrorReport): void {
    this.call('onError', () => this.options.onError?.(report));
  }

  private async notice(session: HostSession<S>, point: PointName, notice: MergedNotice): Promise<void> {
    const sessionId = session.id;
    const command = notice.actions.find((action): action is CommandAction => 'command' in action);
    if (command) session.offeredCommand = command;
    const hostText = this.options.noticeWording
      ? noticeText({ text: notice.statement, actions: notice.actions }, this.options.noticeWording)
      : notice.text;
    this.record({
      type: 'notice',
      sessionId,
      point,
      pluginName: notice.pluginName,
      hookName: notice.hookName,
      about: notice.about,
      text: hostText,
    });
    const notify = this.options.notify;
    if (notify)
      await failOpen('showing a notice', () => Promise.resolve(notify({ ...notice, sessionId, point, hostText }, session)), {
        error: (message) => this.logger.debug(message),
      });
  }

  private call(what: string, callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.logger.warn(`the host's ${what} callback threw: ${errorMessage(error)}`);
    }
  }

  /** Appends to the event log, when there is one; a failed write is a warning. */
  record(record: Record<string, unknown>): void {
    void this.eventLog
      ?.append({ host: this.host, ...record } as never)
      .catch((error: unknown) => this.logger.warn(`could not write the event log: ${errorMessage(error)}`));
  }

  /** Disposes the engine if it was ever made (loads nothing). */
  dispose(): Promise<void> {
    return this.projectEngine.dispose();
  }
}

/** The host kit for one process: see {@link Host}. */
export function createHost<S extends object = object>(options: HostOptions<S>): Host<S> {
  return new Host(options);
}

export type { CommonFields };
