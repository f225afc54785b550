import path from 'node:path';
import {
  runHook as runCommandHook,
  type CommandHookHost,
  type EngineLoader,
  type RunProgress,
  type RunRequest,
  type RunResult,
} from '@hookwise/core/command-hook';
import { dispatchEvent } from '../dispatch.js';
import { isGeminiEvent, isMappedEvent, parseInput, type GeminiInput, type MappedEvent } from '../events.js';

/** The project a hook call belongs to: `$GEMINI_PROJECT_DIR`, else the payload's cwd, else the process's. */
export function resolveProjectDir(env: Record<string, string | undefined>, payloadCwd: unknown, cwd: string): string {
  if (env.GEMINI_PROJECT_DIR) return path.resolve(env.GEMINI_PROJECT_DIR);
  if (typeof payloadCwd === 'string' && path.isAbsolute(payloadCwd)) return payloadCwd;
  return cwd;
}

/**
 * Gemini CLI for the command-hook kit. `{}` when there is nothing to say: Gemini reads stderr
 * when stdout is empty, and hookwise's own lines there must never be taken as output (any exit
 * code but 0 or 1 with text is a deny).
 */
export const geminiHost: CommandHookHost<GeminiInput> = {
  name: 'gemini',
  isEvent: isGeminiEvent,
  isMapped: isMappedEvent,
  eventOf: (payload) => (typeof payload.hook_event_name === 'string' ? payload.hook_event_name : undefined),
  projectDirOf: (env, payload, cwd) => resolveProjectDir(env, payload.cwd, cwd),
  parse: (event, payload) => parseInput(event as MappedEvent, payload),
  sessionIdOf: (input) => input.session_id,
  transcriptPathOf: (payload) => payload.transcript_path,
  emptyStdout: '{}',
  async dispatch(engine, event, input) {
    const { output, errors } = await dispatchEvent(engine, event as MappedEvent, input);
    return { stdout: Object.keys(output).length > 0 ? JSON.stringify(output) : '', errors };
  },
};

/** One Gemini hook call (see core's `runHook`): never throws; every problem is a no-op with one line on stderr. */
export const runHook = (request: RunRequest, loadEngine: EngineLoader, progress?: RunProgress): Promise<RunResult> =>
  runCommandHook(geminiHost, request, loadEngine, progress);
