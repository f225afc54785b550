import { runBundled as runBundledFor, type LazyBundledConfig } from '@hookwise/cli/command-hook/runtime';
import type { RunRequest } from '@hookwise/core/command-hook';
import { geminiHost } from './hook-call.js';

/** Gemini's run-time module for the per-project run bundle: the kit's run-time bound to {@link geminiHost}. */
export const runBundled = (request: RunRequest, lazy: LazyBundledConfig): Promise<never> => runBundledFor(geminiHost, request, lazy);
export { configFromBundle, loadBundledModules } from '@hookwise/cli/command-hook/runtime';
export type { BundledConfig, Engine, LazyBundledConfig } from '@hookwise/cli/command-hook/runtime';
