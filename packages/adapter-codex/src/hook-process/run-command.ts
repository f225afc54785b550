import { runCommand as runCommandFor } from '@hookwise/cli/command-hook';
import { CODEX_EVENTS } from '../binding/events.js';
import { codexHost } from './hook-call.js';
import { files } from './package-files.js';

/** `hookwise-codex run <Event>` when bin/hookwise.cjs's fast path does not take it (see the kit's `runCommand`). */
export const runCommand = (argv: string[]): Promise<number> =>
  runCommandFor({ host: codexHost, runtime: files.runtime, title: 'Codex', events: CODEX_EVENTS }, argv);
