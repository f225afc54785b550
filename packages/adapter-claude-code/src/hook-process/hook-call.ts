import { existsSync, readFileSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { Script } from 'node:vm';
import { HookwiseError, type EventLog } from '@hookwise/core';
import { createEventLog, findConfigFile, isSafeName, type Engine } from '@hookwise/core/host';
import { useSynchronousReads } from '@hookwise/core/fs';
import { dispatchEvent } from '../binding/binding.js';
import { isClaudeCodeEvent, isMappedEvent, parseHookInput, type AnyHookInput } from '../binding/events.js';
import { serializeOutput } from '../binding/output.js';

/** Bigger stdin is refused: Claude Code caps tool output far below this, so it is not a real event. */
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
   * Where the one result goes. `bin/hookwise.cjs` moves the real stdout to another descriptor
   * and points fd 1 at stderr before any plugin code loads (see there); default 1.
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
  /** Exactly one JSON object, plain text (PreCompact), or empty. */
  stdout: string;
  /** Lines for stderr (hookwise's own; the engine's logger writes hook failures itself). */
  stderr: string[];
  /** Always 0: a block is expressed in JSON, and hookwise never fails closed. */
  exitCode: 0;
}

/** Builds the engine for a project; undefined when the project has no hookwise config. */
export type EngineLoader = (projectDir: string) => Promise<Engine | undefined>;

/** The project a hook call belongs to: `$CLAUDE_PROJECT_DIR`, else the payload's cwd, else the process's. */
export function resolveProjectDir(env: Record<string, string | undefined>, payloadCwd: unknown, cwd: string): string {
  if (env.CLAUDE_PROJECT_DIR) return path.resolve(env.CLAUDE_PROJECT_DIR);
  if (typeof payloadCwd === 'string' && payloadCwd !== '' && path.isAbsolute(payloadCwd)) return payloadCwd;
  return cwd;
}

/** The project's `hookwise.config.*`: core's lookup (`findConfigFile`), the one list of names and their order. */
export const findProjectConfig: (projectDir: string) => string | undefined = findConfigFile;

/** A refusal that ends the call as a no-op with one line on stderr. */
class Refusal extends Error {}

const printable = (value: string, max = 80) => escapeControl(JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value));

// C0/C1 controls, DEL, and the invisible formatting characters that can reorder or hide text in
// a terminal (bidi overrides and isolates, zero-width characters, line/paragraph separators).
const UNPRINTABLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

/** `text` with every control or invisible formatting character written as `\u{XXXX}`, so a line on stderr shows what it says. */
export function escapeControl(text: string): string {
  return text.replace(UNPRINTABLE, (character) => `\\u{${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}}`);
}

/**
 * The whole call's deadline: below Claude Code's default 60 s per command hook, above the
 * per-hook deadline (5 s), so a slow hook is cut by its own deadline first and named. Set
 * `HOOKWISE_CALL_TIMEOUT_MS` lower when the settings give the hook a shorter `timeout`.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

export function callTimeoutOf(env: Record<string, string | undefined>): number {
  const raw = env.HOOKWISE_CALL_TIMEOUT_MS;
  const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
  return Number.isFinite(value) && value > 0 ? Math.min(value, 2_147_483_647) : DEFAULT_CALL_TIMEOUT_MS;
}

/**
 * When the running call's deadline passes (`Date.now()` ms): set by {@link runHookProcess}, read by
 * {@link runWithinDeadline} so that no synchronous run outlasts the call.
 */
let callDeadlineAt = Number.POSITIVE_INFINITY;

/** Milliseconds left before the running call's deadline (infinite outside a call). */
export const remainingCallTime = (): number => callDeadlineAt - Date.now();

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

let guardScript: Script | undefined;
const GUARDED = Symbol.for('hookwise.guarded');

/**
 * Runs `call` synchronously and has V8 stop it after `timeoutMs` (capped by the call's
 * deadline): vm's `timeout` starts a watchdog thread that terminates the JavaScript running on
 * this thread, which is the only way to end a synchronous loop (no timer or signal handler runs
 * while one spins). Returns what `call` returned (a hook's promise: what runs after its first
 * `await` is not covered); throws `onTimeout(ms)` when it was stopped. Costs one short-lived
 * thread per run.
 */
export function runWithinDeadline<T>(call: () => T, timeoutMs: number, onTimeout: (ms: number) => Error, load: number = loadFactor()): T {
  // vm wants a whole number of ms below 2^32: outside a call (no deadline) the cap is ~24 days.
  // Scaled by the load, but leaving a fifth of the call's time to the other hooks and the output.
  const remaining = callDeadlineAt - Date.now();
  const limit = Math.max(1, Math.ceil(Math.min(timeoutMs * load, Math.max(timeoutMs, remaining * 0.8), remaining, 2_147_483_647)));
  guardScript ??= new Script('globalThis[Symbol.for("hookwise.guarded")]()', { filename: 'hookwise-guard' });
  const slots = globalThis as Record<symbol, unknown>;
  const previous = slots[GUARDED];
  slots[GUARDED] = call;
  try {
    return guardScript.runInThisContext({ timeout: limit, breakOnSigint: false }) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException | undefined)?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw onTimeout(limit);
    throw error;
  } finally {
    slots[GUARDED] = previous;
  }
}

/**
 * How much longer than its deadline a synchronous part may run in wall time: the machine's load
 * per core, at least 1. A hook's deadline is meant as its own CPU time; vm's watchdog can only
 * count wall time, and on a machine at load 300 on 2 cores a process gets about 1/150 of a core,
 * so a hook that did 15 ms of work took 2 s. Scaling by the load stops a real loop on an idle
 * machine at the deadline and never stops a starved hook that did little (its update would be lost).
 */
export function loadFactor(load: number = machineLoad(), cores: number = onlineCores()): number {
  return Math.max(1, load / Math.max(1, cores));
}

// Read from /proc and /sys rather than node:os, which a hook process does not load otherwise
// (its start is what every tool call pays). Where they do not exist, no scaling.
function machineLoad(): number {
  try {
    return Number.parseFloat(readFileSync('/proc/loadavg', 'latin1')) || 0;
  } catch {
    return 0;
  }
}

function onlineCores(): number {
  try {
    // "0-1" or "0,2-5": the online CPUs as ranges.
    return readFileSync('/sys/devices/system/cpu/online', 'latin1')
      .trim()
      .split(',')
      .reduce((count, range) => {
        const [first, last = first] = range.split('-').map(Number);
        return count + (last! - first! + 1);
      }, 0);
  } catch {
    return 1;
  }
}

/** The engine's `runSync`: a hook's synchronous part stopped at its deadline is reported as a `timeout`. */
export function runHookWithinDeadline<T>(call: () => T, timeoutMs: number): T {
  return runWithinDeadline(
    call,
    timeoutMs,
    (ms) =>
      new HookwiseError(`ran synchronously for ${ms} ms without returning and was stopped (a synchronous loop?)`, {
        code: 'HW_HOOK_TIMEOUT',
      }),
  );
}

/**
 * One hook call: validates the input, runs the plugins and renders their result. Never throws
 * and never blocks because of an error: every problem ends as a no-op with one line on stderr,
 * written to the event log as `cli:error` when the project uses hookwise.
 */
export async function runHook(
  request: RunRequest,
  loadEngine: EngineLoader,
  progress: RunProgress = { stage: 'reading input' },
): Promise<RunResult> {
  const stderr: string[] = [];
  let projectDir = request.cwd;
  let engine: Engine | undefined;
  let event = request.event;
  let sessionId: string | undefined;
  let stopped = false;
  try {
    if (!event) throw new Refusal('hookwise run: no event named; use `hookwise run <Event>`, e.g. `hookwise run PostToolUse`');
    if (!isClaudeCodeEvent(event)) throw new Refusal(`hookwise run: unknown event ${printable(event)}; nothing done`);
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
    projectDir = resolveProjectDir(request.env, record.cwd, request.cwd);
    if (typeof record.hook_event_name === 'string' && record.hook_event_name !== event) {
      throw new Refusal(
        `hookwise run ${event}: the input is a ${printable(record.hook_event_name)} event; check the command registered for ${event}; nothing done`,
      );
    }
    // Known events hookwise has no lifecycle point for (Notification, …) are quietly ignored.
    if (!isMappedEvent(event)) return { stdout: '', stderr, exitCode: 0 };
    const parsed = parseHookInput(event, raw);
    if (!parsed.ok) throw new Refusal(`hookwise run ${event}: invalid input: ${parsed.message.replace(/\s*\n\s*/g, '; ')}; nothing done`);
    const input = parsed.data as AnyHookInput;
    if (!isSafeName(input.session_id))
      throw new Refusal(`hookwise run ${event}: refused session id ${printable(input.session_id)} (not a safe file name); nothing done`);
    sessionId = input.session_id;
    progress.event = event;
    progress.sessionId = sessionId;
    progress.projectDir = projectDir;
    checkTranscript(event, (raw as { transcript_path?: unknown }).transcript_path);

    progress.stage = 'loading the config and plugins';
    engine = await loadEngine(projectDir);
    if (!engine) return { stdout: '', stderr, exitCode: 0 };
    progress.engine = engine;
    progress.stage = 'running the hooks';
    const result = await dispatchEvent(engine, event, input);
    for (const failure of result.errors.filter((entry) => entry.pluginName === 'hookwise')) stderr.push(`hookwise: ${failure.message}`);
    const rendered: RunResult = { stdout: serializeOutput(result.rendered), stderr, exitCode: 0 };
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
    const message = escapeControl(
      error instanceof Refusal ? error.message : `hookwise run ${event ?? ''}: ${failureKind(error)}, nothing done: ${describe(error)}`,
    );
    stderr.push(message.length > 2_000 ? `${message.slice(0, 2_000)}…` : message);
    await logCliRecord(engine?.services.eventLog, projectDir, {
      event: event ?? null,
      ...(sessionId ? { sessionId } : {}),
      message: message.slice(0, 4_000),
      ...(error instanceof Refusal ? {} : { stack: (error as Error)?.stack?.slice(0, 4_000) }),
    });
    return { stdout: '', stderr, exitCode: 0 };
  } finally {
    await engine?.dispose().catch(() => undefined);
    if (!stopped) progress.stage = 'done';
  }
}

async function flushState(engine: Engine): Promise<void> {
  const store = engine.services.stateStore as { flush?: () => Promise<void> };
  if (typeof store.flush === 'function') await store.flush();
}

/**
 * Refuses a `transcript_path` that is not a regular file before any plugin opens it: opening a
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

/** A broken config is the user's to fix, and says so; anything else is hookwise's own failure. */
const failureKind = (error: unknown): string =>
  HookwiseError.isInstance(error) && error.code === 'HW_CONFIG' ? 'error in your hookwise config' : 'internal error';

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' | ');
}

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

/**
 * Runs a hook call as the whole process and always ends it with exit code 0, within the call's
 * deadline ({@link callTimeoutOf}):
 *
 * - stdout carries only the one result; anything plugins print goes to stderr
 *   (`process.stdout` is pointed at stderr here; fd 1 itself is moved by the bin);
 * - on the deadline, SIGTERM or SIGINT, the output of the plugins that finished is printed
 *   (when rendering was reached), one line on stderr says what did not finish, a `cli:timeout`
 *   or `cli:signal` record goes to the event log, and the process exits 0 at once;
 * - an error thrown or a promise rejected outside any hook (a plugin's stray timer) is
 *   reported in one line and does not end the call.
 */
export async function runHookProcess(request: RunRequest, loadEngine: EngineLoader): Promise<never> {
  // Lazily, through a getter, so that a call that prints nothing never builds the stdio
  // streams (on pipes that loads net and the stream modules).
  Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => process.stderr });
  // One hook at a time runs here: files are read with synchronous calls, and libuv's thread
  // pool (four threads) is never started for a transcript read (see useSynchronousReads).
  useSynchronousReads();
  const stdoutFd = request.stdoutFd ?? 1;
  const progress: RunProgress = { stage: 'reading input', event: request.event ?? '' };
  const timeoutMs = callTimeoutOf(request.env);
  let ending = false;

  const finish = (result: RunResult | undefined, extraLine?: string): never => {
    ending = true;
    const lines = [...(result?.stderr ?? []), ...(extraLine ? [extraLine] : [])];
    if (lines.length > 0) writeAllSync(2, lines.map((line) => `${escapeControl(line)}\n`).join(''));
    if (result && result.stdout !== '') writeAllSync(stdoutFd, result.stdout);
    return realExit(0);
  };

  /** Deadline or signal: print what finished, record what did not, exit 0 now. */
  const interrupt = (type: 'cli:timeout' | 'cli:signal', why: string, stuck?: CallDeadlineError): void => {
    if (ending) return;
    ending = true;
    const result = progress.result;
    const pending = pendingUpdates(progress.engine);
    const what =
      progress.stage === 'saving state' || progress.stage === 'waiting for hooks that ran past their deadline'
        ? `${progress.stage} (${pending} state update${pending === 1 ? '' : 's'} not written)`
        : progress.stage;
    const line = `hookwise run ${progress.event ?? ''}: ${why} while ${what}${stuck ? ` (${stuck.what})` : ''}; ${result ? 'printed what the plugins produced' : 'no plugin output to print'}, exit 0`;
    const record = {
      type,
      event: progress.event ?? null,
      ...(progress.sessionId ? { sessionId: progress.sessionId } : {}),
      stage: progress.stage,
      ...stuck?.details,
      pendingUpdates: pending,
      message: line,
    };
    // The log append is one synchronous write once its folder is checked; give it a moment, no more.
    const logged = progress.engine
      ? progress.engine.services.eventLog.append(record)
      : progress.projectDir
        ? logCliRecord(undefined, progress.projectDir, record, record.type)
        : Promise.resolve();
    const timer = setTimeout(() => finish(result, line), 100);
    void Promise.resolve(logged)
      .catch(() => undefined)
      .then(() => {
        clearTimeout(timer);
        ending = false; // finish() sets it again
        finish(result, line);
      });
  };

  callDeadlineAt = Date.now() + timeoutMs;
  const passedDeadline = `the call passed its ${timeoutMs} ms deadline (HOOKWISE_CALL_TIMEOUT_MS)`;
  const deadline = setTimeout(() => interrupt('cli:timeout', passedDeadline), timeoutMs);
  const onSignal = (signal: NodeJS.Signals) => interrupt('cli:signal', `stopped by ${signal}`);
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  const stray = (error: unknown) => {
    if (ending) return;
    writeAllSync(
      2,
      `${escapeControl(`hookwise run ${progress.event ?? ''}: plugin code failed outside a hook (ignored): ${describe(error).slice(0, 500)}`)}\n`,
    );
  };
  // The bin's listeners call whatever its slot holds (cheaper than replacing them); without the bin, ours replace any.
  const slots = globalThis as Record<symbol, unknown>;
  if (typeof slots[ESCAPED_SLOT] === 'function') {
    slots[ESCAPED_SLOT] = stray;
  } else {
    process.removeAllListeners('uncaughtException');
    process.removeAllListeners('unhandledRejection');
    process.on('uncaughtException', stray);
    process.on('unhandledRejection', stray);
  }

  let result: RunResult;
  try {
    result = await runHook(request, loadEngine, progress);
    if (progress.hookTimedOut && progress.engine) {
      // A hook past its own deadline was skipped, but it is still running: under heavy load
      // (hundreds of concurrent calls on two cores) that is often a hook that was only slow to
      // get CPU, and its state update would be lost if the process exited now. Let it finish:
      // wait until the event loop has nothing left to do ('beforeExit'; a hook that never
      // settles holds nothing, so this is immediate) or the call's deadline, then save state.
      progress.stage = 'waiting for hooks that ran past their deadline';
      deadline.unref();
      await new Promise<void>((resolve) => process.once('beforeExit', () => resolve()));
      deadline.ref();
      progress.stage = 'saving state';
      await flushState(progress.engine);
    }
  } catch (error) {
    if (error instanceof CallDeadlineError) {
      clearTimeout(deadline);
      interrupt('cli:timeout', passedDeadline, error);
      return new Promise<never>(() => {}); // interrupt prints and exits
    }
    result = { stdout: '', stderr: [`hookwise: ${failureKind(error)}, nothing done: ${describe(error)}`], exitCode: 0 };
  }
  // The deadline timer is left set: finish() ends the process now.
  if (ending) return new Promise<never>(() => {}); // an interrupt is already printing and exiting
  return finish(result);
}

function pendingUpdates(engine: Engine | undefined): number {
  const store = engine?.services.stateStore as { pending?: () => number } | undefined;
  return typeof store?.pending === 'function' ? store.pending() : 0;
}

/** Where bin/hookwise.cjs's uncaughtException / unhandledRejection listeners look for what to do. */
const ESCAPED_SLOT = Symbol.for('hookwise.escaped');

/** The real `process.exit`: the bin replaces the public one with a guard before plugin code loads. */
function realExit(code: number): never {
  const saved = (globalThis as Record<symbol, unknown>)[Symbol.for('hookwise.exit')];
  return (typeof saved === 'function' ? saved : process.exit.bind(process))(code) as never;
}

/**
 * Writes the whole text to a file descriptor synchronously. The pipes Claude Code gives a hook
 * may be non-blocking: a full pipe answers EAGAIN, so wait briefly and go on until all is out.
 */
function writeAllSync(fd: number, text: string): void {
  const buffer = Buffer.from(text, 'utf8');
  // The bin may have redirected fs.writeSync(1) to stderr for plugin code; it keeps the original for us.
  const write = ((globalThis as Record<symbol, unknown>)[Symbol.for('hookwise.writeSync')] as typeof writeSync | undefined) ?? writeSync;
  let offset = 0;
  let attempts = 0;
  while (offset < buffer.length) {
    try {
      offset += write(fd, buffer, offset, buffer.length - offset);
      attempts = 0;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || ++attempts > 1_000) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
}
