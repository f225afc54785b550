import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readdirSync, unlinkSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
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
import { checkJsonConfig } from './checked-config.js';
import { compileRunEntry, generateEntry, importEsbuild, type CompiledEntry } from './compile-entry.js';

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
