import path from 'node:path';
import type { CommandHookHost } from '@hookwise/core/command-hook';
import { dispatchEvent } from '../binding/dispatch.js';
import { isGeminiEvent, isMappedEvent, parseHookInput, type GeminiInput, type MappedEvent } from '../binding/events.js';

/**
 * Gemini CLI for the command-hook kit (core's `runHook(geminiHost, …)`). `{}` when there is
 * nothing to say: Gemini reads stderr when stdout is empty, and hookwise's own lines there must
 * never be taken as output (any exit code but 0 or 1 with text is a deny).
 */
export const geminiHost: CommandHookHost<GeminiInput> = {
  name: 'gemini',
  isEvent: isGeminiEvent,
  isMapped: isMappedEvent,
  eventOf: (payload) => (typeof payload.hook_event_name === 'string' ? payload.hook_event_name : undefined),
  // `$GEMINI_PROJECT_DIR`, else the payload's cwd, else the process's.
  projectDirOf: (env, { cwd }, processCwd) =>
    env.GEMINI_PROJECT_DIR ? path.resolve(env.GEMINI_PROJECT_DIR) : typeof cwd === 'string' && path.isAbsolute(cwd) ? cwd : processCwd,
  parse: (event, payload) => parseHookInput(event as MappedEvent, payload),
  sessionIdOf: (input) => input.session_id,
  transcriptPathOf: (payload) => payload.transcript_path,
  emptyStdout: '{}',
  dispatch: (engine, event, input) => dispatchEvent(engine, event as MappedEvent, input),
};
