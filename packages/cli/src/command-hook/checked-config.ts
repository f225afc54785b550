import { readFileSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import type { HookwiseConfig } from '@hookwise/core';
import type { BundledConfig } from '@hookwise/core/host';
import type { LazyBundledConfig } from './runtime.js';

// A plugin package stuck in a loop at import is stopped here and nothing is carried; the call
// then loads it under its own deadline, which names it.
const CHECK_TIMEOUT_MS = 10_000;

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

/** What a bundle built without carried options exports (see `generateEntry`). */
interface UncheckedBundle {
  config: LazyBundledConfig;
  loadBundledModules(lazy: LazyBundledConfig, timeoutMs?: number): BundledConfig;
  configFromBundle(bundled: BundledConfig): Promise<HookwiseConfig>;
}

/**
 * Checks a JSON config while its run bundle is built: the config is validated and each plugin's
 * options resolved, so that a hook call needs to do neither (doing it builds every plugin's zod
 * option schema on every call).
 *
 * The check runs the bundle itself, built once without carried options (`code`, as if it were
 * at `file`): the same core and plugin code the calls will run, as CommonJS. It never loads an
 * ES module through `require()` under a watchdog: V8 terminating `require()` of an ES module
 * mid-instantiation aborts the whole process (Node 20 and 22), which the first burst of
 * concurrent hook calls on a fresh install used to hit. The bundle's own loader bounds plugin
 * top levels (see CHECK_TIMEOUT_MS).
 *
 * Undefined when anything does not check out (bad JSON, a bad option, a package that does not
 * load, the file changing meanwhile): the call then validates as it always did and reports
 * the problem in its own words. A plugin whose resolved options are not plain data (see
 * `sourceOf`) is left out: its options are validated on each call.
 */
export async function checkJsonConfig(configFile: string, bundle: { code: string; file: string }): Promise<CarriedConfig | undefined> {
  try {
    const text = readFileSync(configFile, 'utf8');
    const raw = JSON.parse(text) as { plugins?: unknown };
    const pluginMap = isPlainRecord(raw?.plugins) ? raw.plugins : {};
    // Enabled plugins in the config's order: the order core instantiates them in.
    const names = Object.keys(pluginMap).filter((name) => pluginMap[name] !== false);
    const loaded = loadFromSource(bundle.code, bundle.file) as UncheckedBundle;
    const lazy = loaded.config;
    if (lazy.kind !== 'json') return undefined;
    // Hook files play no part in plugin options: an empty object of hooks stands in for each.
    const hookLoaders = Object.fromEntries(Object.keys(lazy.hookModules).map((specifier) => [specifier, () => ({ default: {} })]));
    const bundled = loaded.loadBundledModules({ ...lazy, hookModules: hookLoaders }, CHECK_TIMEOUT_MS);
    const config = await loaded.configFromBundle(bundled);
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

/** Evaluates CommonJS source as the module at `file` (resolving from its folder) without writing it. */
function loadFromSource(code: string, file: string): unknown {
  const compiled = new Module(file) as Module & { _compile(code: string, file: string): void };
  compiled.filename = file;
  compiled.paths = (Module as unknown as { _nodeModulePaths(from: string): string[] })._nodeModulePaths(path.dirname(file));
  compiled._compile(code, file);
  return compiled.exports;
}

const isPlainRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

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
    if (typeof item !== 'object' || seen.has(item) || !Object.isExtensible(item) || Object.getOwnPropertySymbols(item).length > 0)
      return undefined;
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
      if (key === '__proto__' || !descriptor.enumerable || !('value' in descriptor) || !descriptor.writable || !descriptor.configurable)
        return undefined;
      const part = write(descriptor.value);
      if (part === undefined) return undefined;
      parts.push(`${JSON.stringify(key)}: ${part}`);
    }
    return `{${parts.join(', ')}}`;
  };
  return write(value);
}
