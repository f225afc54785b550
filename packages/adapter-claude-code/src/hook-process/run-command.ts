import { runCommand as runCommandFor } from '@hookwise/cli/command-hook';
import { CLAUDE_CODE_EVENTS } from '../binding/events.js';
import { claudeCodeHost } from './hook-call.js';
import { files } from './package-files.js';

/** `hookwise-claude-code run <Event>` when bin/hookwise.cjs's fast path does not take it (see the kit's `runCommand`). */
export const runCommand = (argv: string[]): Promise<number> =>
  runCommandFor({ host: claudeCodeHost, runtime: files.runtime, title: 'Claude Code', events: CLAUDE_CODE_EVENTS }, argv);
