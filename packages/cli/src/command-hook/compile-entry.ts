import { readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CarriedConfig } from './checked-config.js';

/*
 * Compiling the run bundle: the generated entry module, esbuild's options, and the stand-ins for
 * built-ins a hook call should load only if it uses them. Writing it, the manifest and the
 * cache folder are bundle.ts's.
 */

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

type Esbuild = typeof import('esbuild');
export type CompiledEntry = import('esbuild').BuildResult<{ write: false; metafile: true }>;

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
 * The entry module: imports the run-time and exports `run(request)`. The config's modules are
 * `require`d inside loaders, which esbuild bundles as modules initialised on first call: the
 * run-time runs each one's top level under the call's deadline (see runtime.ts). JSON configs
 * name plugins by package; they resolve from the config's folder. `carried`: what the build
 * checked of a JSON config (checked-config.ts), handed to core as `checked`.
 */
export function generateEntry(configFile: string, runtime: string, carried?: CarriedConfig): string {
  const lines = [`import { runBundled } from ${JSON.stringify(runtime)};`];
  const loader = (specifier: string) => `() => require(${JSON.stringify(specifier)})`;
  if (configFile.endsWith('.json')) {
    const raw = JSON.parse(readFileSync(configFile, 'utf8')) as { plugins?: Record<string, unknown>; on?: unknown };
    const plugins: string[] = [];
    for (const [name, options] of Object.entries(raw?.plugins ?? {})) {
      if (options !== false) plugins.push(`${JSON.stringify(name)}: ${loader(name)}`);
    }
    const hooks: string[] = [];
    // The config's own hook modules (its `on`); an old `hooks` list is left to core, which refuses it and says what to write.
    for (const specifier of Array.isArray(raw?.on) ? (raw.on as unknown[]) : []) {
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
