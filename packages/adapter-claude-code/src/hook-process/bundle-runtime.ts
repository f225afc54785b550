import { runBundled as runBundledFor, type LazyBundledConfig } from '@hookwise/cli/command-hook/runtime';
import type { RunRequest } from '@hookwise/core/command-hook';
import { claudeCodeHost } from './hook-call.js';

/**
 * Claude Code's run-time module for the per-project run bundle (see @hookwise/cli's
 * command-hook kit): the kit's run-time bound to {@link claudeCodeHost}. The manifest names this
 * file and bin/hookwise.cjs checks it.
 */
export const runBundled = (request: RunRequest, lazy: LazyBundledConfig): Promise<never> => runBundledFor(claudeCodeHost, request, lazy);

export { configFromBundle, loadBundledModules } from '@hookwise/cli/command-hook/runtime';
export type { BundledConfig, Engine, LazyBundledConfig } from '@hookwise/cli/command-hook/runtime';
