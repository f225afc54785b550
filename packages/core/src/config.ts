import { existsSync, lstatSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as z from 'zod/mini';
import { ConfigError, HookwiseError, PluginError } from './errors.js';
import { isRemovedHookSet, ON_INSTEAD, type HookMap } from './hooks.js';
import type { LogLevel } from './logger.js';
import { isPluginInstance, withResolvedOptions, type PluginInstance } from './plugin.js';
import { fileStamps, stampsFresh, type FileStamp } from './state/file-stamps.js';
import { checkDirectoryChain, readFileInside, writeFileAtomicInside } from './state/safe-fs.js';
import { parseWith } from './schema.js';

export interface HookwiseConfig {
  /** Plugin instances, in the order their hooks run. */
  plugins?: Array<PluginInstance<any>>;
  /**
   * The project's own hooks by point, `{ 'tool:after': (payload, context) => … }` (or
   * `{ handler, order, name }`, or a list of them); they run after the plugins' hooks. A JSON
   * config lists modules instead, `"on": ["./hooks.mjs"]`, each exporting such an object by default.
   */
  on?: HookMap;
  /** Deadline of each hook call in ms (default 5,000). */
  hookTimeoutMs?: number;
  /** Where session state lives, relative to the project (default `.hookwise`). */
  stateDir?: string;
  eventLog?: { path?: string; maxBytes?: number; maxFiles?: number };
  /** `calibrated` (default: characters per token by kind, fitted on real usage), `chars` (characters / 4) or `json-aware` (JSON-like text at 3 characters a token). */
  tokenCounter?: 'calibrated' | 'chars' | 'json-aware';
  logLevel?: LogLevel;
  /**
   * Where session state lives when not in files under `.hookwise/`: `redis://host:port/db`
   * (`?project=<name>` names the key prefix; default the project's package name). The
   * `HOOKWISE_STATE_URL` environment variable wins over it.
   */
  state?: string;
  /** Seconds a session's state is kept in Redis after its last update (default a week). */
  stateTtlSeconds?: number;
}

export { defineConfig } from './define-config.js';

export const CONFIG_FILE_NAMES = [
  'hookwise.config.ts',
  'hookwise.config.mts',
  'hookwise.config.mjs',
  'hookwise.config.js',
  'hookwise.config.json',
] as const;

// The config schemas are built on first use: every hook process validates one kind of config
// (a module's or a JSON file's), and building zod schemas it does not use costs start-up time.
const commonShape = () => ({
  hookTimeoutMs: z.optional(z.number().check(z.int(), z.positive())),
  stateDir: z.optional(z.string().check(z.minLength(1))),
  eventLog: z.optional(
    z.strictObject({
      path: z.optional(z.string().check(z.minLength(1))),
      maxBytes: z.optional(z.number().check(z.int(), z.positive())),
      maxFiles: z.optional(z.number().check(z.int(), z.nonnegative())),
    }),
  ),
  tokenCounter: z.optional(z.enum(['calibrated', 'chars', 'json-aware'])),
  logLevel: z.optional(z.enum(['silent', 'error', 'warn', 'info', 'debug'])),
  state: z.optional(z.string().check(z.regex(/^rediss?:\/\//, { message: 'expected a redis:// or rediss:// URL' }))),
  stateTtlSeconds: z.optional(z.number().check(z.int(), z.positive())),
});

const buildModuleConfigSchema = () =>
  z.strictObject({
    plugins: z.optional(
      z.array(
        z.custom<PluginInstance<any>>(isPluginInstance, {
          message: 'expected a plugin instance, e.g. prune({ … }) from @hookwise/hook-prune',
        }),
      ),
    ),
    on: z.optional(z.custom<HookMap>(isHookMap, { message: "expected hooks by point, e.g. { 'tool:after': (payload, context) => … }" })),
    ...commonShape(),
  });

/** An object of hook functions (or `{ handler, order, name }` entries, or lists of them) by point; the engine checks the point names. */
function isHookMap(value: unknown): value is HookMap {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || isRemovedHookSet(value)) return false;
  const isHook = (entry: unknown) =>
    typeof entry === 'function' ||
    (typeof entry === 'object' && entry !== null && typeof (entry as { handler?: unknown }).handler === 'function');
  return Object.values(value).every((entry) => (Array.isArray(entry) ? entry.every(isHook) : isHook(entry)));
}

/** A config module's load error naming `defineHook` (no longer exported), with what to write instead: Node's words do not say it. */
function withRemovedApiHint(message: string): string {
  return /\bdefineHook\b/.test(message) ? `${message} (defineHook is no longer part of @hookwise/core: ${ON_INSTEAD})` : message;
}

/** Hooks declared the removed ways (`hooks: [defineHook(…)]`, JSON `"hooks"`): an error saying what to write instead, never dropped. */
function refuseRemovedHooks(value: unknown, file: string, json: boolean): void {
  if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, 'hooks')) return;
  throw new ConfigError(
    json
      ? 'at hooks: "hooks" is no longer taken; list the hook modules under "on" instead ("on": ["./hooks.mjs"]), each exporting its hooks by point as default (export default { \'tool:after\': fn })'
      : `at hooks: \`hooks\` (and defineHook) are no longer taken; ${ON_INSTEAD}`,
    { file },
  );
}

const buildJsonConfigSchema = () =>
  z.strictObject({
    $schema: z.optional(z.string()),
    /** Package name → options (`true` for defaults, `false` to disable). */
    plugins: z.optional(z.record(z.string(), z.union([z.boolean(), z.record(z.string(), z.unknown())]))),
    /** Modules (paths relative to the config file) whose default export is an object of hooks by point (a config's `on`). */
    on: z.optional(z.array(z.string())),
    ...commonShape(),
  });

let moduleConfigSchema: ReturnType<typeof buildModuleConfigSchema> | undefined;
let jsonConfigSchema: ReturnType<typeof buildJsonConfigSchema> | undefined;

export interface LoadedConfig {
  config: HookwiseConfig;
  /** Absolute path of the file it came from; undefined when the project has none. */
  file: string | undefined;
}

/** The config file of a project, or undefined. */
export function findConfigFile(projectDir: string): string | undefined {
  for (const name of CONFIG_FILE_NAMES) {
    const candidate = path.join(projectDir, name);
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Loads and validates `hookwise.config.{ts,mts,mjs,js,json}` from the project. A project
 * without one gets an empty config. Errors are ConfigErrors naming the file, the plugin and
 * the path of the bad value. Plugin options are validated when the engine is built.
 */
export async function loadConfig(projectDir: string, options: { file?: string; cacheDir?: string } = {}): Promise<LoadedConfig> {
  const file = options.file ? path.resolve(projectDir, options.file) : findConfigFile(projectDir);
  if (!file) return { config: {}, file: undefined };
  if (!existsSync(file)) throw new ConfigError('config file not found', { file });
  try {
    if (file.endsWith('.json')) return { config: await loadJsonConfig(file), file };
    const target = /\.m?ts$/.test(file)
      ? await compileTypeScriptConfig(file, options.cacheDir ?? path.join(projectDir, '.hookwise', 'cache'))
      : file;
    let exported: unknown;
    try {
      const module = (await import(pathToFileURL(target).href)) as { default?: unknown };
      exported = module.default;
    } catch (error) {
      throw new ConfigError(`could not import: ${withRemovedApiHint((error as Error).message)}`, { file, cause: error });
    }
    return { config: await configFromModule(exported, file), file };
  } catch (error) {
    if (HookwiseError.isInstance(error)) throw error;
    throw new ConfigError((error as Error).message, { file, cause: error });
  }
}

/** Validates what a JS/TS config module exports by default (a config, or a function returning one). */
export async function configFromModule(exported: unknown, file: string): Promise<HookwiseConfig> {
  let value = exported;
  if (typeof value === 'function') value = await (value as () => unknown)();
  if (value === undefined) throw new ConfigError('has no default export; write `export default defineConfig({ … })`', { file });
  refuseRemovedHooks(value, file, false);
  const parsed = parseWith((moduleConfigSchema ??= buildModuleConfigSchema()), value);
  if (!parsed.ok) throw new ConfigError(`invalid config\n${parsed.message}`, { file, cause: parsed.error });
  return parsed.data;
}

/**
 * A config whose modules a host imported itself (the CLI's run bundle imports them statically):
 * a JS/TS config module, or a JSON config file with the plugin packages and hook modules it names.
 */
export type BundledConfig =
  | { kind: 'module'; file: string /** The config module's namespace. */; module: unknown }
  | {
      kind: 'json';
      file: string;
      /** Plugin modules by the package name the JSON config lists. */
      plugins: Record<string, unknown>;
      /** Hook modules by the specifier the JSON config lists under `on`. */
      hookModules: Record<string, unknown>;
      /** What was checked when the host's bundle was built; used only while the file still has `checked.text`. */
      checked?: CheckedJsonConfig;
    };

/**
 * A JSON config as checked when a host's bundle was built (the CLI's run bundle): the config
 * validated, and the plugins' options resolved, which a hook call then need not do again (it
 * would build every plugin's option schema to do it). Plugin option resolution depends on the
 * options alone (see `PluginDefinition.options`) and the bundle is rebuilt when a plugin
 * package changes, so what was resolved then holds while the config's text is the same.
 */
export interface CheckedJsonConfig {
  /** The config file's text that was validated. */
  text: string;
  /** Resolved options by the package name the config lists; a plugin left out is validated when the config is loaded. */
  options: Record<string, unknown>;
}

/** Builds and validates a config from modules a host supplies, with the checks `loadConfig` makes. */
export async function configFromBundle(bundled: BundledConfig): Promise<HookwiseConfig> {
  if (bundled.kind === 'module') return configFromModule(defaultExport(bundled.module), bundled.file);
  let text: string;
  let raw: unknown;
  try {
    text = readFileSync(bundled.file, 'utf8');
    raw = parseJsonConfig(text, bundled.file);
  } catch (error) {
    throw ConfigError.isInstance(error)
      ? error
      : new ConfigError(`could not be read: ${(error as Error).message}`, { file: bundled.file, cause: error });
  }
  const checked = bundled.checked !== undefined && bundled.checked.text === text ? bundled.checked : undefined;
  return configFromJson(
    raw,
    bundled.file,
    { plugin: (name) => bundled.plugins[name], hooks: (specifier) => bundled.hookModules[specifier] },
    checked?.options,
  );
}

/** Where the modules a JSON config names come from. */
export interface JsonConfigModules {
  /** The module (namespace) of a plugin package the config names. */
  plugin(name: string): unknown | Promise<unknown>;
  /** The module (namespace) of a hook file the config lists under `on`, by its specifier. */
  hooks(specifier: string): unknown | Promise<unknown>;
}

/**
 * A JSON config's value; a syntax error names the line and column (V8 gives a character
 * position, which nobody can find in an editor).
 */
export function parseJsonConfig(text: string, file: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message);
    const where = /\(line (\d+) column (\d+)\)/.exec(message);
    let line: number | undefined;
    let column: number | undefined;
    if (where) [line, column] = [Number(where[1]), Number(where[2])];
    else if (position) {
      const before = text.slice(0, Number(position[1]));
      line = before.split('\n').length;
      column = before.length - before.lastIndexOf('\n');
    }
    const reason = message.replace(/\s*in JSON at position \d+.*$/s, '').replace(/\s*\(line \d+ column \d+\)/, '');
    throw new ConfigError(`is not valid JSON${line === undefined ? '' : ` at line ${line}, column ${column}`}: ${reason}`, {
      file,
      cause: error,
    });
  }
}

async function loadJsonConfig(file: string): Promise<HookwiseConfig> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`could not be read: ${(error as Error).message}`, { file, cause: error });
  }
  const raw = parseJsonConfig(text, file);
  return configFromJson(raw, file, {
    plugin: (name) =>
      importPackage(name, [file]).catch((error: unknown) => {
        throw new ConfigError((error as Error).message, { file, cause: error });
      }),
    hooks: (specifier) => import(pathToFileURL(path.resolve(path.dirname(file), specifier)).href),
  });
}

type JsonConfig = z.output<ReturnType<typeof buildJsonConfigSchema>>;

/**
 * Turns a parsed JSON config into a config: validates it, calls each named plugin's default
 * export with its options and validates them, and collects the hook modules. With `resolved`
 * (options resolved when a bundle was built from this very config, see CheckedJsonConfig) the
 * config is taken as valid, and the plugins named there get those options without validation.
 */
export async function configFromJson(
  raw: unknown,
  file: string,
  modules: JsonConfigModules,
  resolved?: Record<string, unknown>,
): Promise<HookwiseConfig> {
  let data: JsonConfig;
  if (resolved) {
    // Validated when the bundle was built; the schema has no defaults or transforms, so its output is the JSON as parsed.
    data = raw as JsonConfig;
  } else {
    refuseRemovedHooks(raw, file, true);
    const parsed = parseWith((jsonConfigSchema ??= buildJsonConfigSchema()), raw);
    if (!parsed.ok) throw new ConfigError(`invalid config\n${parsed.message}`, { file, cause: parsed.error });
    data = parsed.data;
  }
  const { plugins: pluginMap, on: hookModules, $schema: _schema, ...rest } = data;
  const plugins: Array<PluginInstance<any>> = [];
  for (const [name, pluginOptions] of Object.entries(pluginMap ?? {})) {
    if (pluginOptions === false) continue;
    let instance: PluginInstance<any>;
    try {
      instance = pluginFromModule(await modules.plugin(name), name, pluginOptions === true ? undefined : pluginOptions);
    } catch (error) {
      if (ConfigError.isInstance(error)) throw error;
      throw new ConfigError((error as Error).message, { file, cause: error });
    }
    if (resolved && Object.prototype.hasOwnProperty.call(resolved, name)) {
      plugins.push(withResolvedOptions(instance, resolved[name]));
      continue;
    }
    // Validate now so the message names the file as well as the plugin; the engine gets the
    // result instead of validating a second time.
    let options: unknown;
    try {
      options = instance.resolveOptions(parseWith);
    } catch (error) {
      if (PluginError.isInstance(error))
        throw new ConfigError(`at plugins["${name}"]: ${(error as Error).message}`, { file, cause: error });
      throw error;
    }
    plugins.push(withResolvedOptions(instance, options));
  }
  // Each module's hooks follow the earlier modules' on the same point, in the order the config lists them.
  const on: Record<string, unknown[]> = {};
  for (const specifier of hookModules ?? []) {
    const exported = defaultExport(await modules.hooks(specifier));
    if (!isHookMap(exported)) {
      const removed = isRemovedHookSet(exported) || (Array.isArray(exported) && exported.some(isRemovedHookSet));
      throw new ConfigError(
        `at on: "${specifier}" must export its hooks by point as default (export default { 'tool:after': fn })${removed ? `; defineHook(...) is no longer taken: ${ON_INSTEAD}` : ''}`,
        { file },
      );
    }
    for (const [point, entry] of Object.entries(exported)) (on[point] ??= []).push(...(Array.isArray(entry) ? entry : [entry]));
  }
  return { ...rest, plugins, ...(hookModules !== undefined ? { on: on as HookMap } : {}) };
}

/**
 * The default export of a module namespace, whichever way a bundler's CommonJS interop shaped
 * it (`{ default: value }`, or twice wrapped `{ default: { default: value } }`). A function is
 * taken as the export itself (a bundle may hand over the factory directly).
 */
export function defaultExport(module: unknown): unknown {
  if (typeof module === 'function') return module;
  if (typeof module !== 'object' || module === null) return module;
  let inner = (module as { default?: unknown }).default;
  if (typeof inner === 'object' && inner !== null && !isPluginInstance(inner) && 'default' in inner)
    inner = (inner as { default?: unknown }).default;
  return inner;
}

/**
 * A plugin instance from a plugin package's module: its default export is the factory, called
 * with `options`. Throws a HookwiseError (`HW_PLUGIN`) naming the package when the module makes no plugin.
 */
export function pluginFromModule(module: unknown, name: string, options?: unknown): PluginInstance<any> {
  const factory = defaultExport(module);
  if (typeof factory !== 'function')
    throw new HookwiseError(`plugin "${name}" has no default export that makes a hookwise plugin`, { code: 'HW_PLUGIN' });
  const instance = (factory as (options?: unknown) => unknown)(options);
  if (!isPluginInstance(instance))
    throw new HookwiseError(`plugin "${name}": its default export did not return a hookwise plugin`, { code: 'HW_PLUGIN' });
  return instance;
}

const isFolder = (base: string) => {
  try {
    return !base.startsWith('file:') && statSync(base).isDirectory();
  } catch {
    return false;
  }
};

/** Imports a package as resolved from the first of `from` (folders, files or file URLs) that has it. */
async function importPackage(name: string, from: readonly string[]): Promise<unknown> {
  for (const base of from) {
    let resolved: string;
    try {
      resolved = createRequire(isFolder(base) ? path.join(base, 'package.json') : base).resolve(name);
    } catch {
      continue;
    }
    return import(pathToFileURL(resolved).href);
  }
  throw new HookwiseError(
    `plugin "${name}" cannot be resolved from ${from.map((base) => (isFolder(base) ? base : path.dirname(base.startsWith('file:') ? fileURLToPath(base) : base))).join(' or ')}; install it in the project (npm install ${name})`,
    {
      code: 'HW_PLUGIN_NOT_FOUND',
    },
  );
}

/**
 * Loads a plugin by package name the way a JSON config names it: resolved from the first of
 * `from` (folders or files, e.g. the project, then where the host is installed) that has it,
 * default export called with `options`. Throws a HookwiseError with code `HW_PLUGIN_NOT_FOUND`
 * when no place has the package, a PluginError when it makes no plugin or its options are bad.
 */
export async function loadPlugin(
  name: string,
  options: { from: string | readonly string[]; options?: unknown },
): Promise<PluginInstance<any>> {
  const module = await importPackage(name, typeof options.from === 'string' ? [options.from] : options.from);
  const instance = pluginFromModule(module, name, options.options);
  // Validated once: the engine gets the result.
  return withResolvedOptions(instance, instance.resolveOptions(parseWith));
}

interface CompileManifest {
  entry: string;
  output: string;
  /** The config and the local files it imports, stamped (core's one freshness rule, `stampsFresh`). */
  inputs: FileStamp[];
}

// node:crypto is loaded only when a TypeScript config is compiled: every hook process imports
// this module, and most never need a hash.
let createHash: typeof import('node:crypto').createHash | undefined;
const sha1 = (text: string | Buffer) => createHash!('sha1').update(text).digest('hex');

/**
 * Compiles a TypeScript config once and reuses the output while the config and the local
 * files it imports are unchanged (same mtime and size, the rule every hookwise cache uses): a
 * hook process must not pay for a compiler on every call. Packages stay external and resolve
 * from the project as usual.
 */
async function compileTypeScriptConfig(file: string, cacheDir: string): Promise<string> {
  createHash ??= (await import('node:crypto')).createHash;
  // The cache is under `.hookwise`, which may hold planted links: every read and write goes
  // through the link-refusing helpers, and only a regular file inside the cache is imported.
  const root = path.dirname(cacheDir);
  const manifestPath = path.join(cacheDir, `config-${sha1(file).slice(0, 12)}.json`);
  try {
    const manifest = JSON.parse(readFileInside(root, manifestPath) ?? 'null') as CompileManifest | null;
    if (
      manifest?.entry === file &&
      Array.isArray(manifest.inputs) &&
      isCachedOutput(cacheDir, manifest.output) &&
      stampsFresh(manifest.inputs)
    )
      return manifest.output;
  } catch {
    // no manifest, an unreadable one or a link in its place: compile again
  }
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch (error) {
    throw new ConfigError(
      'a TypeScript config needs esbuild, an optional peer dependency of @hookwise/core: install it in the project (npm install --save-dev esbuild) or write hookwise.config.mjs / .json instead',
      { file, cause: error },
    );
  }
  const result = await esbuild.build({
    entryPoints: [file],
    bundle: true,
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    metafile: true,
    logLevel: 'silent',
    absWorkingDir: path.dirname(file),
  });
  const code = result.outputFiles[0]?.text ?? '';
  const inputs = fileStamps(Object.keys(result.metafile.inputs).map((input) => path.resolve(path.dirname(file), input)));
  // The output lives in the project so that its bare imports resolve from the project's node_modules.
  const output = path.join(cacheDir, `config-${sha1(code).slice(0, 16)}.mjs`);
  try {
    if (!isCachedOutput(cacheDir, output)) writeFileAtomicInside(root, output, code);
    writeFileAtomicInside(root, manifestPath, JSON.stringify({ entry: file, output, inputs } satisfies CompileManifest));
  } catch (error) {
    throw new ConfigError(`could not cache the compiled config: ${(error as Error).message}`, { file, cause: error });
  }
  return output;
}

/** A compiled config hookwise wrote: a regular file (not a link) directly in the cache folder. */
function isCachedOutput(cacheDir: string, output: unknown): output is string {
  if (typeof output !== 'string' || path.dirname(output) !== cacheDir || !/^config-[0-9a-f]{16}\.mjs$/.test(path.basename(output)))
    return false;
  try {
    checkDirectoryChain(path.dirname(cacheDir), cacheDir, false);
    return lstatSync(output).isFile();
  } catch {
    return false;
  }
}
