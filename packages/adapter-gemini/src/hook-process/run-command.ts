import { runCommand as runCommandFor } from '@hookwise/cli/command-hook';
import { GEMINI_EVENTS } from '../binding/events.js';
import { geminiHost } from './hook-call.js';
import { files } from './package-files.js';

/** `hookwise-gemini run <Event>` when bin/hookwise.cjs's fast path does not take it (see the kit's `runCommand`). */
export const runCommand = (argv: string[]): Promise<number> =>
  runCommandFor({ host: geminiHost, runtime: files.runtime, title: 'Gemini CLI', events: GEMINI_EVENTS }, argv);
