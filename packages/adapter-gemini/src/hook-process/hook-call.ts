import type { CommandHookAdapter } from '@hookwise/cli/command-hook';
import { snakeCaseHost } from '@hookwise/core/command-hook';
import { dispatchEvent } from '../binding/dispatch.js';
import { GEMINI_EVENTS, isGeminiEvent, isMappedEvent, parseHookInput, type GeminiInput, type MappedEvent } from '../binding/events.js';

/**
 * Gemini CLI for the command-hook kit (core's `runHook(geminiHost, …)`). `{}` when there is
 * nothing to say: Gemini reads stderr when stdout is empty, and hookwise's own lines there must
 * never be taken as output (any exit code but 0 or 1 with text is a deny).
 */
export const geminiHost = snakeCaseHost<GeminiInput>({
  name: 'gemini',
  projectEnv: 'GEMINI_PROJECT_DIR',
  isEvent: isGeminiEvent,
  isMapped: isMappedEvent,
  parse: (event, payload) => parseHookInput(event as MappedEvent, payload),
  emptyStdout: '{}',
  dispatch: (engine, event, input) => dispatchEvent(engine, event as MappedEvent, input),
});

/** What the entries bin/hookwise.cjs loads are made from (tsup.shared.ts's `commandHookAdapterBuild`). */
export const commandHook: CommandHookAdapter<GeminiInput> = { host: geminiHost, title: 'Gemini CLI', events: GEMINI_EVENTS };
