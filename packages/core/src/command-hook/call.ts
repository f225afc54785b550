import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { findConfigFile } from '../config.js';
import { SyncGuard, type SyncUsage } from '../cpu-deadline.js';
import type { Engine } from '../engine.js';
import { HookwiseError } from '../errors.js';
import { createEventLog } from '../state/event-log.js';
import { isSafeName } from '../state/safe-name.js';
import type { EventLog } from '../state/types.js';
import type { CommandHookHost } from './host.js';
import { describeError, escapeControl, printable } from './process-io.js';

/** Bigger stdin is refused: hosts cap tool output far below this, so it is not a real event. */
export const MAX_INPUT_BYTES = 8 * 1024 * 1024;

export interface RunRequest {
  /** The event named on the command line (`hookwise run <Event>`). */
  event: string | undefined;
  /** Everything read from stdin. */
  stdin: Uint8Array;
  env: Record<string, string | undefined>;
  /** The process's working directory. */
  cwd: string;
  /**
   * Where the one result goes. A host's bin moves the real stdout to another descriptor and
   * points fd 1 at stderr before any plugin code loads; default 1.
   */
  stdoutFd?: number;
}

/** What a call has done so far: lets the deadline and signal handlers print what finished. */
export interface RunProgress {
  stage:
    | 'reading input'
    | 'loading the config and plugins'
    | 'running the hooks'
    | 'saving state'
    | 'waiting for hooks that ran past their deadline'
    | 'done';
  event?: string;
  sessionId?: string;
  projectDir?: string;
  engine?: Engine;
  /** Set as soon as the plugins' output is rendered, before state writes are awaited. */
  result?: RunResult;
  /** A hook ran past its deadline: the engine went on without it, but its work (a state update) may still be running. */
  hookTimedOut?: boolean;
}

export interface RunResult {
  /** The host's one result (a JSON object, plain text where the host reads it), or empty. */
  stdout: string;
  /** Lines for stderr (hookwise's own; the engine's logger writes hook failures itself). */
  stderr: string[];
  /** Always 0: a block is expressed in the output, and hookwise never fails closed. */
  exitCode: 0;
}

/** What the kit gives the engine loader: the call's guard, for the engine's `runSync` and for running config modules' top level. */
export interface CallScope {
  readonly guard: SyncGuard;
  /** The engine's `runSync`: a hook's synchronous part, stopped when it used its deadline in CPU time. */
  readonly runSync: <T>(call: () => T, timeoutMs: number) => T;
}

/** Builds the engine for a project; undefined when the project has no hookwise config. */
export type EngineLoader = (projectDir: string, scope: CallScope) => Promise<Engine | undefined>;

/** A scope over `guard` (one per call; a fresh one outside a call, with no deadline). */
export function callScope(guard = new SyncGuard()): CallScope {
  return { guard, runSync: (call, timeoutMs) => guard.runWithinCpu(call, timeoutMs, hookStopped) };
}

/** How a hook whose synchronous part was stopped is reported (a `timeout` of that hook). */
export function hookStopped(usage: SyncUsage): HookwiseError {
  const load = usage.wallMs > usage.cpuMs * 1.5 ? ` (${usage.wallMs} ms in all on a busy machine)` : '';
  return new HookwiseError(
    `ran synchronously for ${usage.cpuMs} ms of CPU${load} without returning and was stopped (a synchronous loop?)`,
    { code: 'HW_HOOK_TIMEOUT' },
  );
}

/**
 * The whole call's deadline: below the hosts' default per-command timeouts (60 s), above the
 * per-hook deadline (5 s), so a slow hook is cut by its own deadline first and named. Set
 * `HOOKWISE_CALL_TIMEOUT_MS` lower when the host's settings give the hook a shorter timeout.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

export function callTimeoutOf(env: Record<string, string | undefined>): number {
  const raw = env.HOOKWISE_CALL_TIMEOUT_MS;
  const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? Math.min(value, 2_147_483_647) : DEFAULT_CALL_TIMEOUT_MS;
}

/** A synchronous run (a module's top level) was stopped because the call's deadline passed. */
export class CallDeadlineError extends Error {
  constructor(
    /** What was still running, e.g. `./hooks.mjs was still running its top level: a loop at import?`. */
    readonly what: string,
    /** Fields for the event-log record. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(what);
  }
}

/** A refusal that ends the call as a no-op with one line on stderr. */
class Refusal extends Error {}

/**
 * One hook call: validates the input, runs the plugins and renders their result. Never throws
 * and never blocks because of an error: every problem ends as a no-op with one line on stderr,
 * written to the event log as `cli:error` when the project uses hookwise.
 */
export async function runHook<Input>(
  host: CommandHookHost<Input>,
  request: RunRequest,
  loadEngine: EngineLoader,
  progress: RunProgress = { stage: 'reading input' },
  scope: CallScope = callScope(),
): Promise<RunResult> {
  const stderr: string[] = [];
  let projectDir = request.cwd;
  let engine: Engine | undefined;
  let event = request.event;
  let sessionId: string | undefined;
  let stopped = false;
  try {
    if (!event) throw new Refusal('hookwise run: no event named; use `hookwise run <Event>`, e.g. `hookwise run PostToolUse`');
    if (!host.isEvent(event)) throw new Refusal(`hookwise run: unknown event ${printable(event)}; nothing done`);
    if (request.stdin.byteLength > MAX_INPUT_BYTES) {
      throw new Refusal(
        `hookwise run ${event}: stdin has ${request.stdin.byteLength} bytes, more than the ${MAX_INPUT_BYTES} accepted; nothing done`,
      );
    }
    let text: string;
    try {
      // toString first: a strict TextDecoder is slow the first time it is used. It
      // writes invalid UTF-8 as U+FFFD, and only then does the strict decoder decide (a real U+FFFD passes it).
      text = Buffer.from(request.stdin.buffer, request.stdin.byteOffset, request.stdin.byteLength).toString('utf8');
      if (text.includes('\uFFFD')) text = new TextDecoder('utf-8', { fatal: true }).decode(request.stdin);
    } catch {
      throw new Refusal(`hookwise run ${event}: stdin is not valid UTF-8; nothing done`);
    }
    if (text.trim() === '') throw new Refusal(`hookwise run ${event}: no input on stdin (expected the hook's JSON); nothing done`);
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new Refusal(`hookwise run ${event}: stdin is not valid JSON (${(error as Error).message}); nothing done`);
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
      throw new Refusal(`hookwise run ${event}: stdin must be a JSON object; nothing done`);
    const record = raw as Record<string, unknown>;
    projectDir = host.projectDirOf(request.env, record, request.cwd);
    const named = host.eventOf(record);
    if (named !== undefined && named !== event) {
      throw new Refusal(
        `hookwise run ${event}: the input is a ${printable(named)} event; check the command registered for ${event}; nothing done`,
      );
    }
    // Known events hookwise has no lifecycle point for (Notification, …) are quietly ignored.
    if (!host.isMapped(event)) return { stdout: '', stderr, exitCode: 0 };
    const parsed = host.parse(event, record);
    if (!parsed.ok) throw new Refusal(`hookwise run ${event}: invalid input: ${parsed.message.replace(/\s*\n\s*/g, '; ')}; nothing done`);
    const input = parsed.data;
    const session = host.sessionIdOf(input);
    if (!isSafeName(session))
      throw new Refusal(`hookwise run ${event}: refused session id ${printable(String(session))} (not a safe file name); nothing done`);
    sessionId = session;
    progress.event = event;
    progress.sessionId = sessionId;
    progress.projectDir = projectDir;
    checkTranscript(event, host.transcriptPathOf?.(record));

    progress.stage = 'loading the config and plugins';
    engine = await loadEngine(projectDir, scope);
    if (!engine) return { stdout: '', stderr, exitCode: 0 };
    progress.engine = engine;
    progress.stage = 'running the hooks';
    const result = await host.dispatch(engine, event, input);
    for (const failure of result.errors.filter((entry) => entry.pluginName === 'hookwise')) stderr.push(`hookwise: ${failure.message}`);
    const rendered: RunResult = { stdout: result.stdout, stderr, exitCode: 0 };
    progress.result = rendered;
    progress.hookTimedOut = result.errors.some((failure) => failure.kind === 'timeout');
    // A hook that ran past its own deadline may still have a state update waiting for the lock
    // or writing: it is not lost, the call waits for it (bounded by the call's deadline).
    progress.stage = 'saving state';
    await flushState(engine);
    return rendered;
  } catch (error) {
    if (error instanceof CallDeadlineError) {
      stopped = true;
      throw error; // runHookProcess reports it as the call's deadline, naming the stage
    }
    const message = escapeControl(error instanceof Refusal ? error.message : failureLine(event, projectDir, error));
    stderr.push(message.length > 2_000 ? `${message.slice(0, 2_000)}…` : message);
    await logCliRecord(engine?.services.eventLog, projectDir, {
      event: event ?? null,
      ...(sessionId ? { sessionId } : {}),
      message: message.slice(0, 4_000),
      ...(error instanceof Refusal || isConfigError(error) ? {} : { stack: (error as Error)?.stack?.slice(0, 4_000) }),
    });
    return { stdout: '', stderr, exitCode: 0 };
  } finally {
    await engine?.dispose().catch(() => undefined);
    if (!stopped) progress.stage = 'done';
  }
}

const isConfigError = (error: unknown): boolean => HookwiseError.isInstance(error) && error.code === 'HW_CONFIG';

/**
 * The line for a call that failed outside any hook. A config that does not load or validate is
 * the user's file, not hookwise's fault: said so, naming the file (core's ConfigError starts
 * with it), so the user knows where to look.
 */
function failureLine(event: string | undefined, projectDir: string, error: unknown): string {
  if (isConfigError(error)) {
    const file = (error as { file?: unknown }).file;
    const where = typeof file === 'string' ? '' : `${findProjectConfig(projectDir) ?? 'hookwise.config'}: `;
    return `hookwise run ${event ?? ''}: error in your hookwise config, no hook ran (fix the file; the agent goes on): ${where}${describeError(error)}`;
  }
  return `hookwise run ${event ?? ''}: internal error, nothing done: ${describeError(error)}`;
}

export async function flushState(engine: Engine): Promise<void> {
  const store = engine.services.stateStore as { flush?: () => Promise<void> };
  if (typeof store.flush === 'function') await store.flush();
}

/**
 * Refuses a transcript path that is not a regular file before any plugin opens it: opening a
 * FIFO blocks a libuv thread until a writer appears, and a blocked thread keeps the process
 * from exiting at all (it even outlived SIGTERM). `stat` does not open, so it cannot block.
 */
function checkTranscript(event: string, transcriptPath: unknown): void {
  if (typeof transcriptPath !== 'string' || transcriptPath === '') return;
  let stats;
  try {
    stats = statSync(transcriptPath, { throwIfNoEntry: false });
  } catch {
    return; // unreadable: the reader reports it
  }
  if (stats === undefined || stats.isFile()) return; // missing: the reader reports it (an empty transcript is normal for a new session)
  const kind = stats.isFIFO()
    ? 'a FIFO'
    : stats.isDirectory()
      ? 'a directory'
      : stats.isCharacterDevice() || stats.isBlockDevice()
        ? 'a device'
        : stats.isSocket()
          ? 'a socket'
          : 'not a regular file';
  throw new Refusal(
    `hookwise run ${event}: transcript_path ${printable(transcriptPath, 200)} is ${kind}, not a transcript file; nothing done`,
  );
}

/** The project's `hookwise.config.*`: core's lookup, the one list of names and their order. */
export const findProjectConfig: (projectDir: string) => string | undefined = findConfigFile;

/**
 * Records a CLI event (an internal error, a timeout, a bundle build) in the project's event log. The config's own log path is used
 * when the engine was built; otherwise the default path, and only in a project that uses
 * hookwise (has a config or a `.hookwise/` folder), so a stray call leaves no files behind.
 */
export async function logCliRecord(
  eventLog: EventLog | undefined,
  projectDir: string,
  details: Record<string, unknown>,
  type = 'cli:error',
): Promise<void> {
  try {
    let log = eventLog;
    if (!log) {
      if (!findProjectConfig(projectDir) && !existsSync(path.join(projectDir, '.hookwise'))) return;
      log = createEventLog({ path: path.join(projectDir, '.hookwise', 'logs', 'events.jsonl') });
    }
    await log.append({ ...details, type });
  } catch {
    // The log is best effort: a hook call never fails because its log could not be written.
  }
}
