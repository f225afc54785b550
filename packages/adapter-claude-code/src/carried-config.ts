import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { BundledConfig, HookwiseConfig } from '@hookwise/core';
import { fileStamps } from '@hookwise/core/fs';
import { runWithinDeadline } from './run.js';

/**
 * What the run bundle carries of a JSON config (core's `CheckedJsonConfig`, with each plugin's
 * resolved options as the JavaScript source the entry embeds).
 */
export interface CarriedConfig {
  /** The config file's text that was checked. */
  text: string;
  /** Source of each plugin's resolved options, by the package name the config lists. */
  options: Record<string, string>;
}

// Loading the plugin packages here runs their top level outside any call, so it gets its own
// bound: a package stuck in a loop at import is stopped and nothing is carried (the call then
// loads it under its own deadline, which names it, as always).
const LOAD_TIMEOUT_MS = 2_000;

// The files this process loaded to check a config, with their stamp then. A process keeps one
// copy of a module: after a file changed, a second check here would resolve options with the
// old code (a hook call, `init` or `doctor` builds once per process; a longer-lived caller
// may build again), so it carries nothing instead.
const loadedStamps = new Map<string, string>();
const stampOf = (file: string) => JSON.stringify(fileStamps([file]));

/**
 * Checks a JSON config while its run bundle is built, with the core the bundle includes
 * (`coreEntry`) and the plugin packages as the config's folder resolves them (as esbuild
 * does): the config is validated and each plugin's options resolved, so that a hook call
 * needs to do neither (doing it builds every plugin's zod option schema, some 4 ms a call).
 *
 * Undefined when anything does not check out (bad JSON, a bad option, a package that does not
 * load, the file changing meanwhile): the call then validates as it always did and reports
 * the problem in its own words. A plugin whose resolved options are not plain data (see
 * `sourceOf`) is left out: its options are validated on each call.
 */
export async function checkJsonConfig(configFile: string, coreEntry: string): Promise<CarriedConfig | undefined> {
  try {
    const text = readFileSync(configFile, 'utf8');
    const raw = JSON.parse(text) as { plugins?: unknown; hooks?: unknown };
    const pluginMap = isPlainRecord(raw?.plugins) ? raw.plugins : {};
    // Enabled plugins in the config's order: the order core instantiates them in.
    const names = Object.keys(pluginMap).filter((name) => pluginMap[name] !== false);
    const require = createRequire(configFile);
    for (const file of [coreEntry, ...names.map((name) => require.resolve(name))]) {
      const stamp = stampOf(file);
      if ((loadedStamps.get(file) ?? stamp) !== stamp) return undefined;
      loadedStamps.set(file, stamp);
    }
    const { core, plugins } = runWithinDeadline(
      () => ({ core: require(coreEntry) as { configFromBundle(bundled: BundledConfig): Promise<HookwiseConfig> }, plugins: Object.fromEntries(names.map((name) => [name, require(name) as unknown])) }),
      LOAD_TIMEOUT_MS,
      (ms) => new Error(`loading the plugin packages took over ${ms} ms`),
    );
    // Hook files play no part in plugin options: an empty list of hook sets stands in for each.
    const hookModules = Object.fromEntries((Array.isArray(raw?.hooks) ? raw.hooks : []).filter((item): item is string => typeof item === 'string').map((specifier) => [specifier, { default: [] }]));
    const config = await core.configFromBundle({ kind: 'json', file: configFile, plugins, hookModules });
    const instances = config.plugins ?? [];
    if (instances.length !== names.length || readFileSync(configFile, 'utf8') !== text) return undefined;
    const options: Record<string, string> = {};
    names.forEach((name, index) => {
      const source = sourceOf(instances[index]!.resolveOptions());
      if (source !== undefined) options[name] = source;
    });
    return { text, options };
  } catch {
    return undefined;
  }
}

const isPlainRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A JavaScript expression that evaluates to a value equal to `value` in every way a plugin
 * could tell (same keys in the same order, same primitives, including `undefined` values and
 * `-0`), or undefined when there is none this simple: anything but plain objects (of
 * Object.prototype, extensible, own enumerable data properties only), arrays without holes or
 * extra properties, strings, finite numbers, booleans, null and undefined; a value reached
 * twice (a shared or circular reference); a `__proto__` key.
 */
export function sourceOf(value: unknown): string | undefined {
  const seen = new Set<object>();
  const write = (item: unknown): string | undefined => {
    if (item === undefined) return 'undefined';
    if (item === null || typeof item === 'boolean' || typeof item === 'string') return JSON.stringify(item);
    if (typeof item === 'number') return Number.isFinite(item) ? (Object.is(item, -0) ? '-0' : JSON.stringify(item)) : undefined;
    if (typeof item !== 'object' || seen.has(item) || !Object.isExtensible(item) || Object.getOwnPropertySymbols(item).length > 0) return undefined;
    seen.add(item);
    const keys = Object.getOwnPropertyNames(item);
    if (Array.isArray(item)) {
      if (Object.getPrototypeOf(item) !== Array.prototype || keys.length !== item.length + 1) return undefined;
      const parts: string[] = [];
      for (let index = 0; index < item.length; index++) {
        if (!Object.prototype.hasOwnProperty.call(item, index)) return undefined;
        const part = write(item[index]);
        if (part === undefined) return undefined;
        parts.push(part);
      }
      return `[${parts.join(', ')}]`;
    }
    if (Object.getPrototypeOf(item) !== Object.prototype) return undefined;
    const parts: string[] = [];
    for (const key of keys) {
      const descriptor = Object.getOwnPropertyDescriptor(item, key)!;
      if (key === '__proto__' || !descriptor.enumerable || !('value' in descriptor) || !descriptor.writable || !descriptor.configurable) return undefined;
      const part = write(descriptor.value);
      if (part === undefined) return undefined;
      parts.push(`${JSON.stringify(key)}: ${part}`);
    }
    return `{${parts.join(', ')}}`;
  };
  return write(value);
}
