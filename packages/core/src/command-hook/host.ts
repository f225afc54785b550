import path from 'node:path';
import type { Engine } from '../engine.js';
import type { HookFailure } from '../outcome.js';
import type { PointName } from '../points.js';

/**
 * What a command-hook host (Claude Code, Codex CLI, Gemini CLI: one process per event, JSON on
 * stdin and stdout) tells the kit. The kit owns the process — stdin, the project, the engine, the
 * deadline, fail-open, writing the one result — so an adapter is this map: its events, its stdin
 * fields and its output format.
 */
export interface CommandHookHost<Input = unknown> {
  /** The engine's host name, e.g. `claude-code`. */
  readonly name: string;
  /** Whether the host has this event at all: an unknown name is refused with one line. */
  isEvent(event: string): boolean;
  /** Whether hookwise maps the event to lifecycle points: a known event it does not map is a quiet no-op. */
  isMapped(event: string): boolean;
  /** The event the payload names itself (Claude Code's `hook_event_name`), to catch a command registered for another event. */
  eventOf(payload: Record<string, unknown>): string | undefined;
  /** The project the call belongs to, from the host's environment variable, the payload or the process. */
  projectDirOf(env: Record<string, string | undefined>, payload: Record<string, unknown>, cwd: string): string;
  /** Validates the payload (unknown fields are tolerated); `message` says what is wrong. */
  parse(event: string, payload: Record<string, unknown>): { ok: true; data: Input } | { ok: false; message: string };
  /** The session the input belongs to: checked to be a safe file name before anything uses it. */
  sessionIdOf(input: Input): string;
  /** The transcript file the payload names, checked to be a regular file before a plugin opens it. */
  transcriptPathOf?(payload: Record<string, unknown>): unknown;
  /**
   * What to print when there is no result. Default nothing; a host that reads stderr when stdout
   * is empty (Gemini CLI) prints `{}` here, so hookwise's own lines on stderr are never taken as output.
   */
  readonly emptyStdout?: string;
  /** Runs the points the event maps to; returns the host's output, already serialized ('' for none), and the failures. */
  dispatch(engine: Engine, event: string, input: Input): Promise<{ stdout: string; errors: HookFailure[] }>;
}

/** The input fields every command-hook host names alike (snake_case, as Claude Code's hooks started them). */
type SnakeCaseInput = { session_id: string };

/**
 * A host whose payloads name the event, the session and the transcript as Claude Code's do
 * (`hook_event_name`, `session_id`, `transcript_path`), as the kit's `CommandHookHost`. The
 * project is the host's variable `projectEnv` when it sets one, else the payload's absolute
 * `cwd`, else the process's.
 */
export function snakeCaseHost<Input extends SnakeCaseInput>(
  host: Omit<CommandHookHost<Input>, 'eventOf' | 'projectDirOf' | 'sessionIdOf' | 'transcriptPathOf'> & { projectEnv?: string },
): CommandHookHost<Input> {
  const { projectEnv, ...rest } = host;
  return {
    ...rest,
    eventOf: (payload) => (typeof payload.hook_event_name === 'string' ? payload.hook_event_name : undefined),
    projectDirOf: (env, { cwd }, processCwd) => {
      const fromEnv = projectEnv ? env[projectEnv] : undefined;
      if (fromEnv) return path.resolve(fromEnv);
      return typeof cwd === 'string' && path.isAbsolute(cwd) ? cwd : processCwd;
    },
    sessionIdOf: (input) => input.session_id,
    transcriptPathOf: (payload) => payload.transcript_path,
  };
}

/**
 * A host's event names from its event map (events → points) and the events it has that hookwise
 * does not map: `all` of them (a name outside is refused as unknown), and the two tests.
 */
export function hostEvents<Mapped extends string, Unmapped extends string>(
  eventPoints: Readonly<Record<Mapped, readonly PointName[]>>,
  unmapped: readonly Unmapped[],
) {
  const all: ReadonlyArray<Mapped | Unmapped> = [...(Object.keys(eventPoints) as Mapped[]), ...unmapped];
  return {
    all,
    isEvent: (value: unknown): value is Mapped | Unmapped => typeof value === 'string' && (all as readonly string[]).includes(value),
    isMapped: (value: unknown): value is Mapped => typeof value === 'string' && Object.prototype.hasOwnProperty.call(eventPoints, value),
  };
}
