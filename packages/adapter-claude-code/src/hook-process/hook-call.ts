import path from 'node:path';
import type { CommandHookAdapter } from '@hookwise/cli/command-hook';
import type { Engine } from '@hookwise/core/host';
import {
  runHook as runCommandHook,
  runHookProcess as runCommandHookProcess,
  type CommandHookHost,
  type EngineLoader,
  type RunProgress,
  type RunRequest,
  type RunResult,
} from '@hookwise/core/command-hook';
import { dispatchEvent } from '../binding/binding.js';
import { CLAUDE_CODE_EVENTS, isClaudeCodeEvent, isMappedEvent, parseHookInput, type AnyHookInput } from '../binding/events.js';
import { serializeOutput } from '../binding/output.js';

export {
  callScope,
  callTimeoutOf,
  CallDeadlineError,
  escapeControl,
  findProjectConfig,
  logCliRecord,
  MAX_INPUT_BYTES,
} from '@hookwise/core/command-hook';
export type { CallScope, EngineLoader, RunProgress, RunRequest, RunResult } from '@hookwise/core/command-hook';

/** The project a hook call belongs to: `$CLAUDE_PROJECT_DIR`, else the payload's cwd, else the process's. */
export function resolveProjectDir(env: Record<string, string | undefined>, payloadCwd: unknown, cwd: string): string {
  if (env.CLAUDE_PROJECT_DIR) return path.resolve(env.CLAUDE_PROJECT_DIR);
  if (typeof payloadCwd === 'string' && payloadCwd !== '' && path.isAbsolute(payloadCwd)) return payloadCwd;
  return cwd;
}

/** Claude Code for the command-hook kit: its events, its stdin fields, its output format. */
export const claudeCodeHost: CommandHookHost<AnyHookInput> = {
  name: 'claude-code',
  isEvent: isClaudeCodeEvent,
  isMapped: isMappedEvent,
  eventOf: (payload) => (typeof payload.hook_event_name === 'string' ? payload.hook_event_name : undefined),
  projectDirOf: (env, payload, cwd) => resolveProjectDir(env, payload.cwd, cwd),
  parse: (event, payload) =>
    parseHookInput(event as Parameters<typeof parseHookInput>[0], payload) as ReturnType<CommandHookHost<AnyHookInput>['parse']>,
  sessionIdOf: (input) => input.session_id,
  transcriptPathOf: (payload) => payload.transcript_path,
  async dispatch(engine: Engine, event, input) {
    const result = await dispatchEvent(engine, event as Parameters<typeof dispatchEvent>[1], input);
    return { stdout: serializeOutput(result.rendered), errors: result.errors };
  },
};

/** What the entries bin/hookwise.cjs loads are made from (tsup.shared.ts's `commandHookAdapterBuild`). */
export const commandHook: CommandHookAdapter<AnyHookInput> = { host: claudeCodeHost, title: 'Claude Code', events: CLAUDE_CODE_EVENTS };

/** One Claude Code hook call (see core's `runHook`): never throws, every problem is a no-op with one line on stderr. */
export const runHook = (request: RunRequest, loadEngine: EngineLoader, progress?: RunProgress): Promise<RunResult> =>
  runCommandHook(claudeCodeHost, request, loadEngine, progress);

/** A Claude Code hook call as the whole process (see core's `runHookProcess`). */
export const runHookProcess = (request: RunRequest, loadEngine: EngineLoader): Promise<never> =>
  runCommandHookProcess(claudeCodeHost, request, loadEngine);
