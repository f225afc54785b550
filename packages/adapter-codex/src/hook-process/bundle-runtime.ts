import { runBundled as runBundledFor, type LazyBundledConfig } from '@hookwise/cli/command-hook/runtime';
import type { RunRequest } from '@hookwise/core/command-hook';
import { codexHost } from './hook-call.js';

/** Codex's run-time module for the per-project run bundle: the kit's run-time bound to {@link codexHost}. */
export const runBundled = (request: RunRequest, lazy: LazyBundledConfig): Promise<never> => runBundledFor(codexHost, request, lazy);
export { configFromBundle, loadBundledModules } from '@hookwise/cli/command-hook/runtime';
export type { BundledConfig, Engine, LazyBundledConfig } from '@hookwise/cli/command-hook/runtime';
