import { configFromBundle, createEngine, type BundledConfig, type Engine } from '@hookwise/core';
import { runHookProcess, type RunRequest } from './run.js';

/**
 * The run-time of the per-project bundle. The generated entry (see bundle.ts) imports this
 * module, @hookwise/core and the plugin packages statically, so one CommonJS file holds
 * everything a hook call needs and nothing loads through `import()` at run time.
 */
// Builds the config with the checks `loadConfig` makes (core's `configFromBundle`).
export type { BundledConfig };

const HOST = 'claude-code';

export function runBundled(request: RunRequest, bundled: BundledConfig): Promise<never> {
  return runHookProcess(request, async (projectDir) => createEngine({ config: await configFromBundle(bundled), projectDir, host: HOST }));
}

export type { Engine };
