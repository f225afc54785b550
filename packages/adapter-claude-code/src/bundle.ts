import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The per-project run bundle: one CommonJS file under `.hookwise/cache/` holding this adapter's
 * run-time, @hookwise/core and the configured plugins as resolved from the project, so a hook
 * call loads one file and no ESM graph. The manifest beside it lists every file the bundle
 * was built from with its mtime and size; `bin/hookwise.cjs` checks those with `stat` on each
 * call and rebuilds (through this module) when one changed.
 *
 * Keep the manifest format in step with the freshness check in `bin/hookwise.cjs`.
 */
export const MANIFEST_FORMAT = 1;
export const MANIFEST_NAME = 'run-bundle.json';

export interface BundleManifest {
  format: typeof MANIFEST_FORMAT;
  /** `process.version` of the build: a bundle targets the Node that built it. */
  node: string;
  /** The adapter run-time the bundle includes (absolute path). */
  runtime: string;
  /** The config file the bundle was built for. */
  configFile: string;
  /** File name of the bundle in the cache folder; absent when the build failed. */
  bundle?: string;
  /** Why the last build failed: calls use the unbundled path until a watched file changes. */
  failed?: string;
  /** `[path, mtimeMs, size]` of every file whose change makes the bundle stale. */
  watched: Array<[string, number, number]>;
  builtAt: string;
  buildMs: number;
}

export function cacheDirOf(projectDir: string): string {
  return path.join(projectDir, '.hookwise', 'cache');
}

export function readManifest(projectDir: string): BundleManifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(path.join(cacheDirOf(projectDir), MANIFEST_NAME), 'utf8')) as BundleManifest;
    return manifest?.format === MANIFEST_FORMAT ? manifest : undefined;
  } catch {
    return undefined;
  }
}

/** The same test as `bin/hookwise.cjs`: same Node, run-time and config, and no watched file changed. */
export function isManifestFresh(manifest: BundleManifest, expected: { configFile: string; runtime: string }): boolean {
  if (manifest.node !== process.version || manifest.configFile !== expected.configFile || manifest.runtime !== expected.runtime) return false;
  for (const [file, mtimeMs, size] of manifest.watched) {
    try {
      const stats = statSync(file);
      if (stats.mtimeMs !== mtimeMs || stats.size !== size) return false;
    } catch {
      return false;
    }
  }
  return true;
}

const LAZY_CRYPTO = 'lazy-crypto';

export type BuildResult = { ok: true; bundlePath: string; manifest: BundleManifest } | { ok: false; reason: string; manifest?: BundleManifest };

/**
 * Builds the bundle for `configFile` and writes it and its manifest atomically (concurrent
 * hook processes may build at the same time; the last rename wins and both results are
 * equal). A failed build writes a manifest with `failed`, so later calls go straight to
 * the unbundled path instead of paying for another failed build.
 */
export async function buildRunBundle(options: { projectDir: string; configFile: string; runtime: string }): Promise<BuildResult> {
  const started = performance.now();
  const { projectDir, configFile, runtime } = options;
  const cacheDir = cacheDirOf(projectDir);
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch (error) {
    return { ok: false, reason: `esbuild is not available (${(error as Error).message.split('\n')[0]})` };
  }
  const watchedFiles = new Set<string>([configFile, runtime]);
  const finish = (manifest: Omit<BundleManifest, 'watched' | 'builtAt' | 'buildMs' | 'format' | 'node' | 'runtime' | 'configFile'>): BundleManifest => ({
    format: MANIFEST_FORMAT,
    node: process.version,
    runtime,
    configFile,
    ...manifest,
    watched: [...watchedFiles].flatMap((file) => {
      try {
        const stats = statSync(file);
        return [[file, stats.mtimeMs, stats.size] as [string, number, number]];
      } catch {
        return [];
      }
    }),
    builtAt: new Date().toISOString(),
    buildMs: Math.round(performance.now() - started),
  });
  const fail = (reason: string): BuildResult => {
    const manifest = finish({ failed: reason });
    try {
      writeAtomic(path.join(cacheDir, MANIFEST_NAME), JSON.stringify(manifest, null, 1));
    } catch {
      // an unwritable cache only means the next call tries again
    }
    return { ok: false, reason, manifest };
  };

  let entry: string;
  try {
    entry = generateEntry(configFile, runtime);
  } catch (error) {
    return fail((error as Error).message);
  }
  const coreEntry = resolveCore(projectDir, runtime);
  let output: import('esbuild').BuildResult<{ write: false; metafile: true }>;
  try {
    output = await esbuild.build({
      stdin: { contents: entry, resolveDir: path.dirname(configFile), sourcefile: 'hookwise-run-entry.mjs', loader: 'js' },
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      write: false,
      metafile: true,
      treeShaking: true,
      // Hook names come from class names; keep them through the bundler's renaming.
      keepNames: true,
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
          // node:crypto costs about 1 ms to load and the run path never hashes (core uses it to
          // cache TypeScript configs, which the bundle has compiled already): load it on first use.
          name: 'hookwise-lazy-crypto',
          setup(build: import('esbuild').PluginBuild) {
            build.onResolve({ filter: /^(node:)?crypto$/ }, (args) => (args.importer.endsWith(LAZY_CRYPTO) ? { path: 'node:crypto', external: true } : { path: LAZY_CRYPTO, namespace: 'hookwise' }));
            build.onLoad({ filter: /.*/, namespace: 'hookwise' }, () => ({
              contents: "const load = () => require('node:crypto');\nexport const createHash = (...args) => load().createHash(...args);\nexport const randomUUID = (...args) => load().randomUUID(...args);\nexport const randomBytes = (...args) => load().randomBytes(...args);\nexport default new Proxy({}, { get: (_target, key) => load()[key] });\n",
              loader: 'js',
            }));
          },
        },
        {
          // One core (and so one tsyringe container) for the adapter and every plugin.
          name: 'hookwise-one-core',
          setup(build: import('esbuild').PluginBuild) {
            if (!coreEntry) return;
            build.onResolve({ filter: /^@hookwise\/core$/ }, () => ({ path: coreEntry }));
          },
        },
      ],
    });
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
    mkdirSync(cacheDir, { recursive: true });
    writeAtomic(bundlePath, code);
    const manifest = finish({ bundle: bundleName });
    writeAtomic(path.join(cacheDir, MANIFEST_NAME), JSON.stringify(manifest, null, 1));
    removeOldBundles(cacheDir, bundleName);
    return { ok: true, bundlePath, manifest };
  } catch (error) {
    return { ok: false, reason: `could not write the bundle to ${cacheDir}: ${(error as Error).message}` };
  }
}

/** Records that a built bundle cannot be used, so calls take the unbundled path until a watched file changes. */
export function markFailed(projectDir: string, manifest: BundleManifest, reason: string): void {
  const { bundle: _bundle, ...rest } = manifest;
  try {
    writeAtomic(path.join(cacheDirOf(projectDir), MANIFEST_NAME), JSON.stringify({ ...rest, failed: reason }, null, 1));
  } catch {
    // an unwritable cache only means the next call tries again
  }
}

/**
 * The entry module: imports the run-time and the config's modules statically and exports
 * `run(request)`. JSON configs name plugins by package; they resolve from the config's folder.
 */
export function generateEntry(configFile: string, runtime: string): string {
  const lines = [`import { runBundled } from ${JSON.stringify(runtime)};`];
  if (configFile.endsWith('.json')) {
    const raw = JSON.parse(readFileSync(configFile, 'utf8')) as { plugins?: Record<string, unknown>; hooks?: unknown };
    const plugins: string[] = [];
    Object.entries(raw?.plugins ?? {}).forEach(([name, options], index) => {
      if (options === false) return;
      lines.push(`import * as plugin${index} from ${JSON.stringify(name)};`);
      plugins.push(`${JSON.stringify(name)}: plugin${index}`);
    });
    const hooks: string[] = [];
    (Array.isArray(raw?.hooks) ? (raw.hooks as unknown[]) : []).forEach((specifier, index) => {
      if (typeof specifier !== 'string') return;
      lines.push(`import * as hooks${index} from ${JSON.stringify(path.resolve(path.dirname(configFile), specifier))};`);
      hooks.push(`${JSON.stringify(specifier)}: hooks${index}`);
    });
    lines.push(
      `export function run(request) {`,
      `  return runBundled(request, { kind: 'json', file: ${JSON.stringify(configFile)}, plugins: { ${plugins.join(', ')} }, hookModules: { ${hooks.join(', ')} } });`,
      `}`,
    );
  } else {
    lines.push(
      `import * as configModule from ${JSON.stringify(configFile)};`,
      `export function run(request) {`,
      `  return runBundled(request, { kind: 'module', file: ${JSON.stringify(configFile)}, module: configModule });`,
      `}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** @hookwise/core as the project resolves it, else as the adapter does. */
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

function writeAtomic(file: string, contents: string | Uint8Array): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  writeFileSync(temporary, contents);
  renameSync(temporary, file);
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
