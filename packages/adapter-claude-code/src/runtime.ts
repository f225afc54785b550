import { readFileSync } from 'node:fs';
import { configFromJson, configFromModule, ConfigError, createEngine, defaultExport, type Engine, type HookwiseConfig } from '@hookwise/core';
import { runHookProcess, type RunRequest } from './run.js';

/**
 * The run-time of the per-project bundle. The generated entry (see bundle.ts) imports this
 * module, @hookwise/core and the plugin packages statically, so one CommonJS file holds
 * everything a hook call needs and nothing loads through `import()` at run time.
 */
export type BundledConfig =
  | {
      kind: 'json';
      file: string;
      /** Plugin factories by package name, as the JSON config lists them. */
      plugins: Record<string, unknown>;
      /** Hook modules by the specifier the JSON config lists. */
      hookModules: Record<string, unknown>;
    }
  | { kind: 'module'; file: string; module: unknown };

const HOST = 'claude-code';

export function runBundled(request: RunRequest, bundled: BundledConfig): Promise<never> {
  return runHookProcess(request, async (projectDir) => createEngine({ config: await configOf(bundled), projectDir, host: HOST }));
}

/** Builds the config from the bundled modules, with the checks `loadConfig` does (core's own code). */
export async function configOf(bundled: BundledConfig): Promise<HookwiseConfig> {
  if (bundled.kind === 'module') return configFromModule(defaultExport(bundled.module), bundled.file);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(bundled.file, 'utf8'));
  } catch (error) {
    throw new ConfigError(`is not valid JSON: ${(error as Error).message}`, { file: bundled.file });
  }
  return configFromJson(raw, bundled.file, { plugin: (name) => bundled.plugins[name], hooks: (specifier) => bundled.hookModules[specifier] });
}

export type { Engine };
