import type { CommandHookAdapter } from '@hookwise/cli/command-hook';
import { snakeCaseHost, type CommandHookHost } from '@hookwise/core/command-hook';
import { dispatchEvent } from '../binding/dispatch.js';
import { CODEX_EVENTS, isCodexEvent, isMappedEvent, parseHookInput, type AnyHookInput, type MappedEvent } from '../binding/events.js';

/** Codex CLI for the command-hook kit (core's `runHook(codexHost, …)`): its events, its stdin fields, its output format. Codex names no project variable: the session's cwd is the project. */
export const codexHost = snakeCaseHost<AnyHookInput>({
  name: 'codex',
  isEvent: isCodexEvent,
  isMapped: isMappedEvent,
  parse: (event, payload) => parseHookInput(event as MappedEvent, payload) as ReturnType<CommandHookHost<AnyHookInput>['parse']>,
  dispatch: (engine, event, input) => dispatchEvent(engine, event as MappedEvent, input),
});

/** What the entries bin/hookwise.cjs loads are made from (tsup.shared.ts's `commandHookAdapterBuild`). */
export const commandHook: CommandHookAdapter<AnyHookInput> = { host: codexHost, title: 'Codex', events: CODEX_EVENTS };
