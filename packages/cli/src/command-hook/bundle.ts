import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readdirSync, readFileSync, realpathSync, unlinkSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  checkDirectoryChain,
  fileStamps,
  readFileInside,
  stampsFresh,
  sweepTempFiles,
  writeFileAtomicInside,
  type FileStamp,
} from '@hookwise/core/fs';
import { assertSafeName } from '@hookwise/core/plugin';
import { checkJsonConfig, type CarriedConfig } from './checked-config.js';

/**
 * The per-project run bundle: one CommonJS file under `.hookwise/cache/` holding a command-hook
 * host's run-time (its module binding runtime.ts to its `CommandHookHost`), @hookwise/core and
 * the configured plugins as resolved from the project, so a hook call loads one file and no ESM
 * graph. The manifest beside it lists every file the bundle was built from with its mtime and
 * size; the shared hook bin (`bin/command-hook.cjs`, which every command-hook adapter's bin
 * calls) checks those with `stat` on each call and rebuilds (through this module) when one changed.
 *
 * Keep the manifest format in step with the freshness check in bin/command-hook.cjs.
 *
 * Everything here goes through core's link-refusing file access: `.hookwise` and
 * `.hookwise/cache` must be real folders and the files regular files, or nothing is written
 * and no bundle is loaded (a linked `.hookwise` would otherwise make hookwise run code from
 * wherever the link points).
 */
export const MANIFEST_FORMAT = 1;
export const MANIFEST_NAME = 'run-bundle.json';

export interface BundleManifest {
  format: typeof MANIFEST_FORMAT;
  /** `process.version` of the build: a bundle targets the Node that built it. */
  node: string;
  /** The host's run-time module the bundle includes (absolute path). */
  runtime: string;
  /** The config file the bundle was built for. */
  configFile: string;
  /** File name of the bundle in the cache folder; absent when the build failed. */
  bundle?: string;
  /** Why the last build failed: calls use the unbundled path until a watched file changes. */
  failed?: string;
  /** `[path, mtimeMs, size]` of every file whose change makes the bundle stale (core's `fileStamps`). */
  watched: FileStamp[];
  builtAt: string;
  buildMs: number;
}

/**
 * `.hookwise/cache/<host>`: each command-hook host its own manifest, bundles, lock and markers,
 * so a project used by two agents (Claude Code and Gemini CLI) does not rebuild on every call
 * of the other, nor remove the other's bundle.
 */
export function cacheDirOf(projectDir: string, host: string): string {
  assertSafeName(host, 'host name');
  return path.join(projectDir, '.hookwise', 'cache', host);
}

const hookwiseDirOf = (projectDir: string): string => path.join(projectDir, '.hookwise');

/** The only bundle file names a manifest may name: a hash, no path. */
export const BUNDLE_NAME = /^run-[0-9a-f]{16}\.cjs$/;

export function readManifest(projectDir: string, host: string): BundleManifest | undefined {
  try {
    const text = readFileInside(hookwiseDirOf(projectDir), path.join(cacheDirOf(projectDir, host), MANIFEST_NAME));
    const manifest = text === undefined ? undefined : (JSON.parse(text) as BundleManifest);
    if (manifest?.format !== MANIFEST_FORMAT) return undefined;
    if (manifest.bundle !== undefined && !BUNDLE_NAME.test(manifest.bundle)) return undefined;
    return manifest;
  } catch {
    return undefined;
  }
}

/** The bundle file a manifest names, when it is a regular file inside a real `.hookwise/cache`. */
export function bundlePathOf(projectDir: string, host: string, manifest: BundleManifest): string | undefined {
  if (!manifest.bundle || !BUNDLE_NAME.test(manifest.bundle)) return undefined;
  try {
    checkDirectoryChain(hookwiseDirOf(projectDir), cacheDirOf(projectDir, host), false);
    const file = path.join(cacheDirOf(projectDir, host), manifest.bundle);
    return lstatSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

// When the bundle or its manifest cannot be written at all (a full disk), no manifest can say
// so: an empty marker file (no data block needed) does, and calls skip building for a minute
// instead of paying for a build they cannot save on every call.
const WRITE_FAILED_MARKER = 'write-failed';
const WRITE_RETRY_MS = 60_000;

/** Whether a recent build could not be written (see above), so this call should not try again. */
export function recentWriteFailure(projectDir: string, host: string): boolean {
  try {
    const stats = lstatSync(path.join(cacheDirOf(projectDir, host), WRITE_FAILED_MARKER));
    return stats.isFile() && Date.now() - stats.mtimeMs < WRITE_RETRY_MS;
  } catch {
    return false;
  }
}

/** A full, read-only or forbidden disk: not a race with another writer, which the next call gets past. */
function isLastingWriteError(error: unknown): boolean {
  const code = ((error as { cause?: NodeJS.ErrnoException })?.cause ?? (error as NodeJS.ErrnoException))?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' || code === 'EROFS' || code === 'EACCES' || code === 'EPERM';
}

function markWriteFailure(projectDir: string, cacheDir: string): void {
  const marker = path.join(cacheDir, WRITE_FAILED_MARKER);
  try {
    checkDirectoryChain(hookwiseDirOf(projectDir), cacheDir, false);
    closeSync(openSync(marker, constants.O_WRONLY | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), 0o644));
    const now = new Date();
    utimesSync(marker, now, now);
  } catch {
    // nothing more we can do on a disk this full
  }
}

function clearWriteFailure(cacheDir: string): void {
  try {
    unlinkSync(path.join(cacheDir, WRITE_FAILED_MARKER));
  } catch {
    // none
  }
}

/** The same test as a host's bin: same Node, run-time and config, and no watched file changed. */
export function isManifestFresh(manifest: BundleManifest, expected: { configFile: string; runtime: string }): boolean {
  if (manifest.node !== process.version || manifest.configFile !== expected.configFile || manifest.runtime !== expected.runtime)
    return false;
  return stampsFresh(manifest.watched);
}

/** Decorator helpers as compilers emit them (not reflect-metadata's own `decorate` function). */
export const DECORATED_CLASSES =
  /\b(?:__decorate\w*|__decoratorStart\w*|__esDecorate\w*|_ts_decorate\w*|_applyDecoratedDescriptor\w*|_decorate\w*)\b/;

const LAZY_NAMESPACE = 'hookwise-lazy';
const LAZY_BUILTIN_REQUEST = /^(node:)?(crypto|os)$/;
const LAZY_MODULE = 'lazy-module';

/**
 * A stand-in for a Node built-in that a hook call should load only if it uses it: each of the
 * built-in's functions, loading it on first call; its classes and other values read from it
 * where a module imports them (tree-shaking drops the unused ones, so nothing loads for them);
 * the default export a proxy. Made from the built-in itself, so any name a plugin imports exists.
 */
export function lazyBuiltinSource(name: string): string {
  const real = createRequire(import.meta.url)(`node:${name}`) as Record<string, unknown>;
  const lines = [`const load = () => require(${JSON.stringify(`node:${name}`)});`, 'const pick = (key) => load()[key];'];
  for (const key of Object.keys(real)) {
    if (!/^[A-Za-z_$][\w$]*$/.test(key) || key === 'default') continue;
    const value = real[key];
    // Lower-case functions are plain functions (createHash, hostname); capitalised ones are classes (Hash, KeyObject): `new` and `instanceof` need the real one.
    const plainFunction = typeof value === 'function' && /^[a-z]/.test(key);
    lines.push(
      plainFunction
        ? `export const ${key} = (...args) => load().${key}(...args);`
        : `export const ${key} = /* @__PURE__ */ pick(${JSON.stringify(key)});`,
    );
  }
  lines.push('export default new Proxy({}, { get: (_target, key) => load()[key] });', '');
  return lines.join('\n');
}

export type BuildResult =
  | { ok: true; bundlePath: string; manifest: BundleManifest }
  | { ok: false; reason: string; manifest?: BundleManifest };

/**
 * Builds the bundle for `configFile` and writes it and its manifest atomically (concurrent
 * hook processes may build at the same time; the last rename wins and both results are
 * equal). A failed build writes a manifest with `failed`, so later calls go straight to
 * the unbundled path instead of paying for another failed build.
 */
export async function buildRunBundle(options: {
  projectDir: string;
  /** The command-hook host (`CommandHookHost.name`): its bundle lives in `.hookwise/cache/<host>`. */
  host: string;
  configFile: string;
  runtime: string;
}): Promise<BuildResult> {
  const started = performance.now();
  const { projectDir, configFile, runtime } = options;
  const cacheDir = cacheDirOf(projectDir, options.host);
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await importEsbuild(runtime);
  } catch (error) {
    return { ok: false, reason: `esbuild is not available (${(error as Error).message.split('\n')[0]})` };
  }
  const watchedFiles = new Set<string>([configFile, runtime]);
  const finish = (
    manifest: Omit<BundleManifest, 'watched' | 'builtAt' | 'buildMs' | 'format' | 'node' | 'runtime' | 'configFile'>,
  ): BundleManifest => ({
    format: MANIFEST_FORMAT,
    node: process.version,
    runtime,
    configFile,
    ...manifest,
    watched: fileStamps(watchedFiles),
    builtAt: new Date().toISOString(),
    buildMs: Math.round(performance.now() - started),
  });
  const fail = (reason: string): BuildResult => {
    const manifest = finish({ failed: reason });
    try {
      writeAtomic(projectDir, path.join(cacheDir, MANIFEST_NAME), JSON.stringify(manifest, null, 1));
    } catch (error) {
      if (isLastingWriteError(error)) markWriteFailure(projectDir, cacheDir);
    }
    return { ok: false, reason, manifest };
  };
  try {
    checkDirectoryChain(hookwiseDirOf(projectDir), cacheDir, true);
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
  // Temp files of builds that were killed or failed mid-write.
  sweepTempFiles(cacheDir);

  const coreEntry = resolveCore(projectDir, runtime);
  const compile = (entry: string) => compileRunEntry(esbuild, { projectDir, configFile, coreEntry }, entry);
  let entry: string;
  try {
    entry = generateEntry(configFile, runtime);
  } catch (error) {
    return fail((error as Error).message);
  }
  let output: CompiledEntry;
  try {
    output = await compile(entry);
    // A JSON config is checked now, with the bundle just built, so that calls skip validating
    // it and its plugins' options; the bundle is then built again carrying the result.
    const unchecked = output.outputFiles[0]?.text;
    const carried =
      configFile.endsWith('.json') && coreEntry && unchecked
        ? await checkJsonConfig(configFile, { code: unchecked, file: path.join(cacheDir, 'run-check.cjs') })
        : undefined;
    if (carried) output = await compile(generateEntry(configFile, runtime, carried));
  } catch (error) {
    const errors = (error as { errors?: Array<{ text: string }> }).errors;
    return fail(`bundling failed: ${errors?.map((item) => item.text).join('; ') ?? (error as Error).message}`);
  }
  for (const input of Object.keys(output.metafile.inputs)) {
    if (input.startsWith('<stdin>') || input.includes('hookwise-run-entry')) continue;
    const absolute = path.resolve(projectDir, input);
    watchedFiles.add(packageJsonOf(absolute) ?? absolute);
  }
  const code = output.outputFiles[0]?.contents;
  if (!code) return fail('bundling produced no output');
  const bundleName = `run-${createHash('sha1').update(code).digest('hex').slice(0, 16)}.cjs`;
  const bundlePath = path.join(cacheDir, bundleName);
  try {
    writeAtomic(projectDir, bundlePath, code);
    const manifest = finish({ bundle: bundleName });
    writeAtomic(projectDir, path.join(cacheDir, MANIFEST_NAME), JSON.stringify(manifest, null, 1));
    clearWriteFailure(cacheDir);
    removeOldBundles(cacheDir, bundleName);
    return { ok: true, bundlePath, manifest };
  } catch (error) {
    if (isLastingWriteError(error)) markWriteFailure(projectDir, cacheDir);
    return { ok: false, reason: `could not write the bundle: ${(error as Error).message}` };
  }
}

type Esbuild = typeof import('esbuild');
type CompiledEntry = import('esbuild').BuildResult<{ write: false; metafile: true }>;

/** Bundles a generated entry (see `generateEntry`) into one CommonJS file's text, not written. */
export async function compileRunEntry(
  esbuild: Esbuild,
  options: { projectDir: string; configFile: string; coreEntry: string | undefined },
  entry: string,
): Promise<CompiledEntry> {
  const { projectDir, configFile, coreEntry } = options;
  const bundle = (entry: string, keepNames: boolean) =>
    esbuild.build({
      stdin: { contents: entry, resolveDir: path.dirname(configFile), sourcefile: 'hookwise-run-entry.mjs', loader: 'js' },
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      write: false,
      metafile: true,
      treeShaking: true,
      keepNames,
      // No comments or indentation: a quarter less to read on every call, and no comment can
      // make the file non-ASCII (esbuild escapes strings, not comments), which V8 would then
      // hold as a two-byte string, slower to compile. Stack traces point into the bundle
      // either way. A regular expression with a non-ASCII character still makes it two-byte:
      // test/cli.test.ts checks the bundle of the three plugins stays ASCII.
      minifyWhitespace: true,
      charset: 'ascii',
      // ESM packages (core's tsup output) call createRequire(import.meta.url), which CommonJS
      // output would leave undefined: point it at the bundle file itself.
      define: { 'import.meta.url': '__hookwiseImportMetaUrl' },
      banner: { js: "var __hookwiseImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
      logLevel: 'silent',
      absWorkingDir: projectDir,
      // core loads esbuild itself only to compile TypeScript configs, which the bundle has done already.
      external: ['esbuild'],
      plugins: [
        {
          // node:crypto is slow to load and the run path never hashes (core uses it to cache
          // TypeScript configs, which the bundle has compiled already); node:os is wanted only
          // for a home folder a command lookup may need. Both load on first use.
          name: 'hookwise-lazy-builtins',
          setup(build: import('esbuild').PluginBuild) {
            build.onResolve({ filter: LAZY_BUILTIN_REQUEST }, (args) => {
              const name = args.path.replace(/^node:/, '');
              return args.namespace === LAZY_NAMESPACE && args.importer === name
                ? { path: `node:${name}`, external: true }
                : { path: name, namespace: LAZY_NAMESPACE };
            });
            build.onLoad({ filter: /.*/, namespace: LAZY_NAMESPACE }, (args) => ({ contents: lazyBuiltinSource(args.path), loader: 'js' }));
          },
        },
        {
          // node:module is slow to load, and core only calls createRequire at its top
          // level (a `require` for CommonJS dependencies that the bundle has resolved already) and
          // to resolve plugins on the unbundled path: core gets a createRequire that loads
          // node:module when the require it returns is first used. Other modules get the real one.
          name: 'hookwise-lazy-module',
          setup(build: import('esbuild').PluginBuild) {
            const coreDir = coreEntry ? path.dirname(coreEntry) + path.sep : undefined;
            build.onResolve({ filter: /^(node:)?module$/ }, (args) =>
              args.importer.endsWith(LAZY_MODULE) || coreDir === undefined || !args.importer.startsWith(coreDir)
                ? { path: 'node:module', external: true }
                : { path: LAZY_MODULE, namespace: 'hookwise' },
            );
            build.onLoad({ filter: new RegExp(`^${LAZY_MODULE}$`), namespace: 'hookwise' }, () => ({
              contents:
                "const load = () => require('node:module');\nexport function createRequire(from) {\n  let real;\n  const target = () => (real ??= load().createRequire(from));\n  return new Proxy(function require() {}, { apply: (_function, self, args) => Reflect.apply(target(), self, args), get: (_function, key) => target()[key] });\n}\n",
              loader: 'js',
            }));
          },
        },
        {
          // The Redis client loads only where a deployment shares state (HOOKWISE_STATE_URL): it
          // stays out of the bundle, required on first use from where core resolved it.
          name: 'hookwise-external-redis',
          setup(build: import('esbuild').PluginBuild) {
            // A one-line module that requires the real one by its path: the bundle runs in a vm
            // Script, where a dynamic import() of a file cannot run, and a require can.
            build.onResolve({ filter: /^ioredis$/ }, (args) => {
              try {
                return { path: createRequire(args.importer).resolve('ioredis'), namespace: 'hookwise-redis' };
              } catch {
                return { path: 'ioredis', external: true };
              }
            });
            build.onLoad({ filter: /.*/, namespace: 'hookwise-redis' }, (args) => ({
              contents: `module.exports = require(${JSON.stringify(args.path)});`,
              loader: 'js',
            }));
            build.onResolve({ filter: /.*/, namespace: 'hookwise-redis' }, (args) => ({ path: args.path, external: true }));
          },
        },
        {
          // One core (and so one tsyringe container) for the adapter and every plugin; its
          // subpath entries (`@hookwise/core/host`, …) are files beside the main one.
          name: 'hookwise-one-core',
          setup(build: import('esbuild').PluginBuild) {
            if (!coreEntry) return;
            build.onResolve({ filter: /^@hookwise\/core(\/[a-z-]+)?$/ }, (args) => ({
              path:
                args.path === '@hookwise/core'
                  ? coreEntry
                  : path.join(path.dirname(coreEntry), `${args.path.slice('@hookwise/core/'.length)}.js`),
            }));
          },
        },
      ],
    });
  // A class hook is named after its class (`Class.method`), and the bundler renames a class
  // when two modules declare the same top-level name; esbuild's keepNames puts names back,
  // at the price of a `__name` call per function and class, run at every load. Only
  // decorated classes are hooks: the bundle keeps names when
  // its code decorates any class (TypeScript's, tslib's, SWC's, Babel's or esbuild's helpers).
  const output = await bundle(entry, false);
  return DECORATED_CLASSES.test(output.outputFiles[0]?.text ?? '') ? bundle(entry, true) : output;
}

/**
 * esbuild, loaded from its real path, as `from` (the host's run-time: the adapter depends on
 * esbuild, so the kit never does) resolves it, else as this module does. esbuild finds its platform binary with
 * `require.resolve('@esbuild/<platform>')` from where its own main.js was loaded; when that is
 * a path through a link (a workspace link, `npm link`, pnpm's node_modules), the binary package
 * — a sibling of the real esbuild folder — is not found ("The package @esbuild/linux-x64 could
 * not be found"), and every call would take the unbundled path.
 */
export async function importEsbuild(from?: string): Promise<typeof import('esbuild')> {
  const resolve = (base: string) => realpathSync(createRequire(base).resolve('esbuild'));
  let entry: string;
  try {
    entry = resolve(from ?? import.meta.url);
  } catch (error) {
    if (from === undefined) throw error;
    entry = resolve(import.meta.url);
  }
  const loaded = (await import(pathToFileURL(entry).href)) as typeof import('esbuild') & { default?: typeof import('esbuild') };
  return typeof loaded.build === 'function' ? loaded : (loaded.default as typeof import('esbuild'));
}

/**
 * `hookwise init`'s last step for a command-hook host: builds the project's run bundle when it
 * is missing or stale, so the first hook call does not; a failure is one line (calls then run
 * unbundled, several times slower to start).
 */
export async function buildBundleIfStale(
  target: { projectDir: string; host: string; configFile: string | undefined; runtime: string },
  stderr: (text: string) => void,
): Promise<void> {
  const { projectDir, host, configFile, runtime } = target;
  if (configFile === undefined) return;
  const manifest = readManifest(projectDir, host);
  if (manifest?.bundle && isManifestFresh(manifest, { configFile, runtime })) return;
  const built = await buildRunBundle({ projectDir, host, configFile, runtime });
  if (!built.ok) stderr(`hookwise init: hook calls will use the slower unbundled path: ${built.reason}`);
}

/**
 * `hookwise doctor`'s check of a command-hook host's run bundle: what hook calls actually do,
 * as the manifest records it (hook calls read it too), then a rebuild when it is not fresh, so
 * doctor also fixes it.
 */
export async function checkRunBundle(
  target: { projectDir: string; host: string; configFile: string; runtime: string },
  report: { ok(text: string): void; warn(text: string): void },
): Promise<void> {
  const { projectDir, host, configFile, runtime } = target;
  const { ok, warn } = report;
  const cacheName = `.hookwise/cache/${host}`;
  // A failed build in the manifest means every call takes the unbundled path, whatever a rebuild here would do.
  const manifest = readManifest(projectDir, host);
  const fresh = manifest !== undefined && isManifestFresh(manifest, { configFile, runtime });
  if (fresh && manifest.bundle && bundlePathOf(projectDir, host, manifest)) {
    ok(`hook calls use the cached run bundle (${cacheName}/${manifest.bundle})`);
    return;
  }
  // Only lasting causes are recorded (a race with another build is not): calls stop building until a watched file changes.
  if (fresh && manifest.failed)
    warn(
      `hook calls use the unbundled path (about 4× slower to start): the last build failed: ${manifest.failed} (a lasting cause: calls do not build again until the config or a package it uses changes)`,
    );
  else if (recentWriteFailure(projectDir, host))
    warn(
      'the last build could not be written (a full, read-only or forbidden disk): hook calls use the unbundled path and try again after a minute',
    );
  else if (fresh && manifest.bundle) warn(`the manifest names ${cacheName}/${manifest.bundle}, which is missing or not a regular file`);
  else
    warn(
      manifest
        ? 'the run bundle is out of date (a watched file changed); the next hook call rebuilds it'
        : 'no run bundle has been built yet',
    );
  const built = await buildRunBundle({ projectDir, host, configFile, runtime });
  if (built.ok) ok(`rebuilt the run bundle: hook calls now use ${cacheName}/${built.manifest.bundle}`);
  else warn(`rebuilding the run bundle failed, hook calls keep the unbundled path: ${built.reason}`);
}

/** Records that a built bundle cannot be used, so calls take the unbundled path until a watched file changes. */
export function markFailed(projectDir: string, host: string, manifest: BundleManifest, reason: string): void {
  const { bundle: _bundle, ...rest } = manifest;
  try {
    writeAtomic(projectDir, path.join(cacheDirOf(projectDir, host), MANIFEST_NAME), JSON.stringify({ ...rest, failed: reason }, null, 1));
  } catch {
    // an unwritable cache only means the next call tries again
  }
}

/**
 * The entry module: imports the run-time and exports `run(request)`. The config's modules are
 * `require`d inside loaders, which esbuild bundles as modules initialised on first call: the
 * run-time runs each one's top level under the call's deadline (see bundle-runtime.ts). JSON configs
 * name plugins by package; they resolve from the config's folder. `carried`: what the build
 * checked of a JSON config (checked-config.ts), handed to core as `checked`.
 */
export function generateEntry(configFile: string, runtime: string, carried?: CarriedConfig): string {
  const lines = [`import { runBundled } from ${JSON.stringify(runtime)};`];
  const loader = (specifier: string) => `() => require(${JSON.stringify(specifier)})`;
  if (configFile.endsWith('.json')) {
    const raw = JSON.parse(readFileSync(configFile, 'utf8')) as { plugins?: Record<string, unknown>; hooks?: unknown };
    const plugins: string[] = [];
    for (const [name, options] of Object.entries(raw?.plugins ?? {})) {
      if (options !== false) plugins.push(`${JSON.stringify(name)}: ${loader(name)}`);
    }
    const hooks: string[] = [];
    for (const specifier of Array.isArray(raw?.hooks) ? (raw.hooks as unknown[]) : []) {
      if (typeof specifier === 'string')
        hooks.push(`${JSON.stringify(specifier)}: ${loader(path.resolve(path.dirname(configFile), specifier))}`);
    }
    const checked = carried
      ? `, checked: { text: ${JSON.stringify(carried.text)}, options: { ${Object.entries(carried.options)
          .map(([name, source]) => `${JSON.stringify(name)}: ${source}`)
          .join(', ')} } }`
      : '';
    lines.push(
      `export const config = { kind: 'json', file: ${JSON.stringify(configFile)}, plugins: { ${plugins.join(', ')} }, hookModules: { ${hooks.join(', ')} }${checked} };`,
    );
  } else {
    lines.push(`export const config = { kind: 'module', file: ${JSON.stringify(configFile)}, load: ${loader(configFile)} };`);
  }
  // `config`, `loadBundledModules` and `configFromBundle` are exported for the build's own config check (checked-config.ts) and bench/snapshot.mjs.
  lines.push(
    `export { loadBundledModules, configFromBundle } from ${JSON.stringify(runtime)};`,
    `export function run(request) {`,
    `  return runBundled(request, config);`,
    `}`,
  );
  return `${lines.join('\n')}\n`;
}

/** @hookwise/core as the project resolves it, else as the host's run-time does. */
function resolveCore(projectDir: string, runtime: string): string | undefined {
  for (const from of [path.join(projectDir, 'package.json'), runtime]) {
    try {
      return createRequire(from).resolve('@hookwise/core');
    } catch {
      // try the next place
    }
  }
  return undefined;
}

/**
 * For a file inside `node_modules`, its package's package.json (installs rewrite it, so one
 * stat per package notices an upgrade); undefined for project files, which are watched themselves.
 */
function packageJsonOf(file: string): string | undefined {
  const marker = `${path.sep}node_modules${path.sep}`;
  const at = file.lastIndexOf(marker);
  if (at < 0) return undefined;
  const rest = file.slice(at + marker.length).split(path.sep);
  const nameParts = rest[0]?.startsWith('@') ? 2 : 1;
  if (rest.length <= nameParts) return undefined;
  return path.join(file.slice(0, at + marker.length), ...rest.slice(0, nameParts), 'package.json');
}

/** Temp file + rename inside a real `.hookwise/cache`; the temp file is removed if a step fails. */
function writeAtomic(projectDir: string, file: string, contents: string | Uint8Array): void {
  writeFileAtomicInside(hookwiseDirOf(projectDir), file, contents);
}

function removeOldBundles(cacheDir: string, keep: string): void {
  for (const name of readdirSync(cacheDir)) {
    if (!name.startsWith(keep.replace(/\.cjs$/, '')) && /^run-[0-9a-f]{16}\.(cjs|v8cache)$/.test(name)) {
      try {
        unlinkSync(path.join(cacheDir, name));
      } catch {
        // a concurrent process may have removed it already
      }
    }
  }
}
