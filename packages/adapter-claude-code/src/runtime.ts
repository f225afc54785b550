import { readFileSync } from 'node:fs';
import { ConfigError, createEngine, isHookSet, isPluginInstance, PluginError, type Engine, type HookSet, type HookwiseConfig, type PluginInstance } from '@hookwise/core';
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

/** Builds the config from the bundled modules, with the checks `loadConfig` does. */
export async function configOf(bundled: BundledConfig): Promise<HookwiseConfig> {
  if (bundled.kind === 'module') {
    let exported = defaultOf(bundled.module);
    if (typeof exported === 'function') exported = await (exported as () => unknown)();
    if (typeof exported !== 'object' || exported === null) throw new ConfigError('has no default export; write `export default defineConfig({ … })`', { file: bundled.file });
    const config = exported as HookwiseConfig;
    for (const plugin of config.plugins ?? []) if (!isPluginInstance(plugin)) throw new ConfigError('at plugins: expected plugin instances, e.g. prune({ … })', { file: bundled.file });
    for (const set of config.hooks ?? []) if (!isHookSet(set)) throw new ConfigError('at hooks: expected hook sets made with defineHook(...)', { file: bundled.file });
    return config;
  }
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(readFileSync(bundled.file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new ConfigError(`is not valid JSON: ${(error as Error).message}`, { file: bundled.file });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new ConfigError('must hold a JSON object', { file: bundled.file });
  const { plugins: pluginMap, hooks: hookModules, $schema: _schema, ...rest } = raw as { plugins?: Record<string, unknown>; hooks?: string[]; $schema?: unknown };
  const plugins: Array<PluginInstance<any>> = [];
  for (const [name, options] of Object.entries(pluginMap ?? {})) {
    if (options === false) continue;
    const factory = defaultOf(bundled.plugins[name]);
    if (typeof factory !== 'function') throw new ConfigError(`plugin "${name}" has no default export that makes a hookwise plugin`, { file: bundled.file });
    const instance = (factory as (options?: unknown) => unknown)(options === true ? undefined : options);
    if (!isPluginInstance(instance)) throw new ConfigError(`plugin "${name}": its default export did not return a hookwise plugin`, { file: bundled.file });
    try {
      instance.resolveOptions();
    } catch (error) {
      if (PluginError.isInstance(error)) throw new ConfigError(`at plugins["${name}"]: ${(error as Error).message}`, { file: bundled.file, cause: error });
      throw error;
    }
    plugins.push(instance);
  }
  const hooks: Array<HookSet<any>> = [];
  for (const specifier of hookModules ?? []) {
    const exported = defaultOf(bundled.hookModules[specifier]);
    for (const set of Array.isArray(exported) ? exported : [exported]) {
      if (!isHookSet(set)) throw new ConfigError(`at hooks: "${specifier}" must export defineHook(...) (or a list of them) as default`, { file: bundled.file });
      hooks.push(set);
    }
  }
  return { ...(rest as HookwiseConfig), plugins, hooks };
}

/** The default export of a namespace object, whichever way a bundler shaped it. */
function defaultOf(module: unknown): unknown {
  if (typeof module === 'function') return module;
  if (typeof module !== 'object' || module === null) return module;
  const inner = (module as { default?: unknown }).default;
  if (inner === undefined) return module;
  // CommonJS interop can wrap twice: { default: { default: fn } }.
  if (typeof inner === 'object' && inner !== null && 'default' in inner && typeof (inner as { default?: unknown }).default === 'function') return (inner as { default: unknown }).default;
  return inner;
}

export type { Engine };
