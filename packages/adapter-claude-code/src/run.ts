import { existsSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createEventLog, findConfigFile, isSafeName, parseWith, type Engine, type EventLog } from '@hookwise/core';
import { dispatchEvent } from './binding.js';
import { inputSchemas, isClaudeCodeEvent, isMappedEvent, type AnyHookInput } from './events.js';
import { serializeOutput } from './output.js';

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

const printable = (value: string, max = 80) => JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);

/**
 * One hook call: validates the input, runs the plugins and renders their result. Never throws
 * and never blocks because of an error: every problem ends as a no-op with one line on stderr,
 * written to the event log as `cli:error` when the project uses hookwise.
 */
export async function runHook(request: RunRequest, loadEngine: EngineLoader): Promise<RunResult> {
  const stderr: string[] = [];
  let projectDir = request.cwd;
  let engine: Engine | undefined;
  let event = request.event;
  let sessionId: string | undefined;
  try {
    if (!event) throw new Refusal('hookwise run: no event named; use `hookwise run <Event>`, e.g. `hookwise run PostToolUse`');
    if (!isClaudeCodeEvent(event)) throw new Refusal(`hookwise run: unknown event ${printable(event)}; nothing done`);
    if (request.stdin.byteLength > MAX_INPUT_BYTES) {
      throw new Refusal(`hookwise run ${event}: stdin has ${request.stdin.byteLength} bytes, more than the ${MAX_INPUT_BYTES} accepted; nothing done`);
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(request.stdin);
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
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new Refusal(`hookwise run ${event}: stdin must be a JSON object; nothing done`);
    const record = raw as Record<string, unknown>;
    projectDir = resolveProjectDir(request.env, record.cwd, request.cwd);
    if (typeof record.hook_event_name === 'string' && record.hook_event_name !== event) {
      throw new Refusal(`hookwise run ${event}: the input is a ${printable(record.hook_event_name)} event; check the command registered for ${event}; nothing done`);
    }
    // Known events hookwise has no lifecycle point for (Notification, …) are quietly ignored.
    if (!isMappedEvent(event)) return { stdout: '', stderr, exitCode: 0 };
    const parsed = parseWith(inputSchemas[event], raw);
    if (!parsed.ok) throw new Refusal(`hookwise run ${event}: invalid input: ${parsed.message.replace(/\s*\n\s*/g, '; ')}; nothing done`);
    const input = parsed.data as AnyHookInput;
    if (!isSafeName(input.session_id)) throw new Refusal(`hookwise run ${event}: refused session id ${printable(input.session_id)} (not a safe file name); nothing done`);
    sessionId = input.session_id;

    engine = await loadEngine(projectDir);
    if (!engine) return { stdout: '', stderr, exitCode: 0 };
    const result = await dispatchEvent(engine, event, input);
    for (const failure of result.errors.filter((entry) => entry.pluginName === 'hookwise')) stderr.push(`hookwise: ${failure.message}`);
    return { stdout: serializeOutput(result.rendered), stderr, exitCode: 0 };
  } catch (error) {
    const message = error instanceof Refusal ? error.message : `hookwise run ${event ?? ''}: internal error, nothing done: ${describe(error)}`;
    stderr.push(message.length > 2_000 ? `${message.slice(0, 2_000)}…` : message);
    await logCliError(engine?.services.eventLog, projectDir, { event: event ?? null, ...(sessionId ? { sessionId } : {}), message: message.slice(0, 4_000), ...(error instanceof Refusal ? {} : { stack: (error as Error)?.stack?.slice(0, 4_000) }) });
    return { stdout: '', stderr, exitCode: 0 };
  } finally {
    await engine?.dispose().catch(() => undefined);
  }
}

function describe(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.split('\n').map((line) => line.trim()).filter(Boolean).join(' | ');
}

/**
 * Records an internal error in the project's event log. The config's own log path is used
 * when the engine was built; otherwise the default path, and only in a project that uses
 * hookwise (has a config or a `.hookwise/` folder), so a stray call leaves no files behind.
 */
async function logCliError(eventLog: EventLog | undefined, projectDir: string, details: Record<string, unknown>): Promise<void> {
  try {
    let log = eventLog;
    if (!log) {
      if (!findProjectConfig(projectDir) && !existsSync(path.join(projectDir, '.hookwise'))) return;
      log = createEventLog({ path: path.join(projectDir, '.hookwise', 'logs', 'events.jsonl') });
    }
    await log.append({ type: 'cli:error', ...details });
  } catch {
    // The log is best effort: a hook call never fails because its log could not be written.
  }
}

/**
 * Runs a hook call as the whole process: keeps stdout for the one result (anything plugins
 * print goes to stderr), writes the result, and exits 0 even if handles stay open.
 */
export async function runHookProcess(request: RunRequest, loadEngine: EngineLoader): Promise<never> {
  // Anything a plugin prints must not reach stdout, which Claude Code parses: `process.stdout`
  // is pointed at stderr. Lazily, through a getter, so that a call that prints nothing never
  // builds the stdio streams (on pipes that loads net and the stream modules, ~2 ms a call).
  Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => process.stderr });
  let result: RunResult;
  try {
    result = await runHook(request, loadEngine);
  } catch (error) {
    result = { stdout: '', stderr: [`hookwise: internal error, nothing done: ${describe(error)}`], exitCode: 0 };
  }
  if (result.stderr.length > 0) writeAllSync(2, result.stderr.map((line) => `${line}\n`).join(''));
  if (result.stdout !== '') writeAllSync(1, result.stdout);
  return process.exit(result.exitCode);
}

/**
 * Writes the whole text to a file descriptor synchronously. The pipes Claude Code gives a hook
 * may be non-blocking: a full pipe answers EAGAIN, so wait briefly and go on until all is out.
 */
function writeAllSync(fd: number, text: string): void {
  const buffer = Buffer.from(text, 'utf8');
  let offset = 0;
  let attempts = 0;
  while (offset < buffer.length) {
    try {
      offset += writeSync(fd, buffer, offset, buffer.length - offset);
      attempts = 0;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || ++attempts > 1_000) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
}
