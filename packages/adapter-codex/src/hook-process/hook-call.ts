import path from 'node:path';
import type { Engine } from '@hookwise/core/host';
import {
  runHook as runCommandHook,
  type CommandHookHost,
  type EngineLoader,
  type RunRequest,
  type RunResult,
} from '@hookwise/core/command-hook';
import { dispatchEvent } from '../binding/dispatch.js';
import { isCodexEvent, isMappedEvent, parseHookInput, type AnyHookInput } from '../binding/events.js';

/** The project a hook call belongs to: the session's cwd (Codex names no project variable), else the process's. */
export function resolveProjectDir(payloadCwd: unknown, cwd: string): string {
  return typeof payloadCwd === 'string' && payloadCwd !== '' && path.isAbsolute(payloadCwd) ? payloadCwd : cwd;
}

/** Codex CLI for the command-hook kit: its events, its stdin fields, its output format. */
export const codexHost: CommandHookHost<AnyHookInput> = {
  name: 'codex',
  isEvent: isCodexEvent,
  isMapped: isMappedEvent,
  eventOf: (payload) => (typeof payload.hook_event_name === 'string' ? payload.hook_event_name : undefined),
  projectDirOf: (_env, payload, cwd) => resolveProjectDir(payload.cwd, cwd),
  parse: (event, payload) =>
    parseHookInput(event as Parameters<typeof parseHookInput>[0], payload) as ReturnType<CommandHookHost<AnyHookInput>['parse']>,
  sessionIdOf: (input) => input.session_id,
  transcriptPathOf: (payload) => payload.transcript_path,
  async dispatch(engine: Engine, event, input) {
    const result = await dispatchEvent(engine, event as Parameters<typeof dispatchEvent>[1], input);
    return { stdout: result.stdout, errors: result.errors };
  },
};

/** One Codex hook call (see core's `runHook`): never throws, every problem is a no-op with one line on stderr. */
export const runHook = (request: RunRequest, loadEngine: EngineLoader): Promise<RunResult> =>
  runCommandHook(codexHost, request, loadEngine);
