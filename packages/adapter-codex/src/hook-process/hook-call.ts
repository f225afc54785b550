import path from 'node:path';
import type { CommandHookHost } from '@hookwise/core/command-hook';
import { dispatchEvent } from '../binding/dispatch.js';
import { isCodexEvent, isMappedEvent, parseHookInput, type AnyHookInput, type MappedEvent } from '../binding/events.js';

/** Codex CLI for the command-hook kit (core's `runHook(codexHost, …)`): its events, its stdin fields, its output format. */
export const codexHost: CommandHookHost<AnyHookInput> = {
  name: 'codex',
  isEvent: isCodexEvent,
  isMapped: isMappedEvent,
  eventOf: (payload) => (typeof payload.hook_event_name === 'string' ? payload.hook_event_name : undefined),
  // Codex names no project variable: the session's cwd, else the process's.
  projectDirOf: (_env, { cwd }, processCwd) => (typeof cwd === 'string' && path.isAbsolute(cwd) ? cwd : processCwd),
  parse: (event, payload) => parseHookInput(event as MappedEvent, payload) as ReturnType<CommandHookHost<AnyHookInput>['parse']>,
  sessionIdOf: (input) => input.session_id,
  transcriptPathOf: (payload) => payload.transcript_path,
  dispatch: (engine, event, input) => dispatchEvent(engine, event as MappedEvent, input),
};
