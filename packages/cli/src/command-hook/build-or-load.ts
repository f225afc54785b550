import { createRequire } from 'node:module';
import path from 'node:path';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import {
  escapeControl,
  findProjectConfig,
  logCliRecord,
  realExit,
  runHookProcess,
  type CommandHookHost,
  type RunRequest,
} from '@hookwise/core/command-hook';
import { acquireFileLock, checkDirectoryChain, type HeldLock } from '@hookwise/core/fs';
import {
  buildRunBundle,
  bundlePathOf,
  cacheDirOf,
  isManifestFresh,
  MANIFEST_NAME,
  markFailed,
  readManifest,
  recentWriteFailure,
  type BundleManifest,
} from './bundle.js';

/** A command-hook host as the run bundle needs it: the host, and its run-time module (see runtime.ts). */
export interface BundledHost<Input = unknown> {
  readonly host: CommandHookHost<Input>;
  /** The host's run-time module (absolute path): binds runtime.ts's `runBundled` to `host`; the bundle includes it. */
  readonly runtime: string;
}

/**
 * What a command-hook adapter's `src/hook-process/hook-call.ts` exports as `commandHook`: the
 * host, its title in `run --help` and its hook events. The adapter build (tsup.shared.ts's
 * `commandHookAdapterBuild`) makes the entries its bin loads from it.
 */
export interface CommandHookAdapter<Input = unknown> {
  readonly host: CommandHookHost<Input>;
  /** The host's name in the help (`Claude Code`). */
  readonly title: string;
  /** Its hook events (the first four are shown in the help). */
  readonly events: readonly string[];
}

/**
 * The path a host's bin takes when the project's bundle is missing or stale: build it, then run
 * the call through it; if it cannot be built, run unbundled (every plugin loaded as ESM through
 * `loadConfig`, several times slower to start, same behaviour).
 */
export async function runBuildOrLoad<Input>(
  target: BundledHost<Input>,
  request: RunRequest,
  options: { bundleFailed?: boolean } = {},
): Promise<never> {
  const { host, runtime } = target;
  const projectDir = host.projectDirOf(request.env, payloadOf(request.stdin), request.cwd);
  const configFile = findProjectConfig(projectDir);
  if (configFile) {
    const linked = linkedHookwiseDir(projectDir);
    if (linked) {
      // Nothing may be read, written or loaded through it: state, log and the run bundle (code
      // hookwise would run) would all live wherever it points.
      process.stderr.write(
        `${escapeControl(`hookwise run ${request.event ?? ''}: refused ${linked}; hookwise never follows links inside its folder — remove it; nothing done`)}\n`,
      );
      return realExit(0);
    }
  }
  if (configFile && request.env.HOOKWISE_NO_BUNDLE !== '1') {
    const bundle = await bundleForCall({ projectDir, host: host.name, configFile, runtime }, options.bundleFailed === true);
    if (bundle) return bundle.run(request);
  }
  return runUnbundled(host, request);
}

interface LoadedBundle {
  run(request: RunRequest): Promise<never>;
}

// How long a call waits for another process's build before it runs unbundled (the call's own
// deadline starts once it runs). The first burst
// of a fresh install (a host runs the hooks of parallel tool calls at once) has one
// process build while the others wait and then load what it built.
const BUILD_WAIT_MS = 20_000;
const LOCK_OPTIONS = { maxWaitMs: 0, staleMs: 60_000, minDelayMs: 1, maxDelayMs: 1 };

/**
 * The project's run bundle for this call: the fresh one, else one this call builds, else one a
 * concurrent call is building (waited for, within the call's deadline). One process builds at
 * a time (a lock beside the manifest), so a burst of first calls builds once. Undefined when the
 * call must run unbundled: a build that failed for a lasting cause (recorded in the manifest
 * until a watched file changes), a disk that took no write a minute ago, or no bundle in time.
 */
async function bundleForCall(
  target: { projectDir: string; host: string; configFile: string; runtime: string },
  bundleFailed: boolean,
): Promise<LoadedBundle | undefined> {
  const { projectDir, host } = target;
  const waitUntil = Date.now() + BUILD_WAIT_MS;
  // The bin could not load the bundle the manifest names: rebuild it once, unless it changed meanwhile.
  let unloadable = bundleFailed ? readManifest(projectDir, host)?.bundle : undefined;
  for (;;) {
    const manifest = readManifest(projectDir, host);
    const fresh = manifest !== undefined && isManifestFresh(manifest, target);
    if (fresh && manifest.failed) return undefined;
    if (fresh && manifest.bundle && manifest.bundle !== unloadable) {
      const loaded = loadBundle(projectDir, host, manifest);
      if (loaded !== 'missing') return loaded;
      // Gone: replaced by a concurrent build (the next look finds the new manifest) or removed; else rebuilt.
      unloadable = manifest.bundle;
      continue;
    } else {
      if (recentWriteFailure(projectDir, host)) return undefined;
      const lock = await tryBuildLock(projectDir, host);
      if (lock !== 'busy') {
        try {
          const current = readManifest(projectDir, host);
          // Built by another process between our look and our lock: use that.
          if (lock && current && isManifestFresh(current, target) && (current.failed || current.bundle !== unloadable)) continue;
          const built = await buildRunBundle(target);
          // Builds are rare (a fresh install, a changed config or package): each one is recorded.
          await logCliRecord(
            undefined,
            projectDir,
            built.ok
              ? { bundle: built.manifest.bundle, buildMs: built.manifest.buildMs }
              : { reason: built.reason, recorded: built.manifest?.failed !== undefined },
            built.ok ? 'cli:bundle-built' : 'cli:bundle-failed',
          );
          if (!built.ok) return undefined;
          unloadable = undefined;
          const loaded = loadBundle(projectDir, host, built.manifest, built.bundlePath);
          return loaded === 'missing' ? undefined : loaded;
        } finally {
          lock?.release();
        }
      }
    }
    if (Date.now() >= waitUntil) return undefined;
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
  }
}

/**
 * The build lock; `'busy'` while another live process builds; undefined when no lock can be
 * taken at all (a full or read-only disk, a linked folder): the build then runs without one and
 * says why it cannot write, which is recorded as a lasting cause where it is one.
 */
async function tryBuildLock(projectDir: string, host: string): Promise<HeldLock | 'busy' | undefined> {
  try {
    checkDirectoryChain(path.join(projectDir, '.hookwise'), cacheDirOf(projectDir, host), true);
    return await acquireFileLock(path.join(cacheDirOf(projectDir, host), MANIFEST_NAME), LOCK_OPTIONS);
  } catch (error) {
    return (error as { code?: unknown }).code === 'HW_STATE_LOCK' ? 'busy' : undefined;
  }
}

/**
 * Loads a built bundle. `'missing'` when its file is not there (a concurrent build replaced it:
 * a race, not a reason to stop building); undefined when it does not load for a lasting cause,
 * which the manifest records so that calls stop trying until a watched file changes.
 */
function loadBundle(
  projectDir: string,
  host: string,
  manifest: BundleManifest,
  bundlePath = bundlePathOf(projectDir, host, manifest),
): LoadedBundle | 'missing' | undefined {
  if (bundlePath === undefined) return 'missing';
  try {
    return createRequire(import.meta.url)(bundlePath) as LoadedBundle;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if ((code === 'MODULE_NOT_FOUND' || code === 'ENOENT') && !existsSync(bundlePath)) return 'missing';
    markFailed(projectDir, host, manifest, `the bundle does not load: ${(error as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

/** A hook call of `host` with no bundle: the config and plugins loaded as ESM. */
export async function runUnbundled<Input>(host: CommandHookHost<Input>, request: RunRequest): Promise<never> {
  const { createEngine, loadConfig } = await import('@hookwise/core/host');
  return runHookProcess(host, request, async (projectDir, scope) => {
    const loaded = await loadConfig(projectDir);
    if (!loaded.file) return undefined;
    // Hooks are stopped at their deadline as in the bundle; a config module that loops at import
    // is not (an ESM import cannot be run under vm's timeout): this path runs only when no bundle
    // can be built.
    return createEngine({ config: loaded.config, projectDir, host: host.name, runSync: scope.runSync });
  });
}

/** `.hookwise is a symbolic link (to "…")` when it is one; undefined otherwise. */
function linkedHookwiseDir(projectDir: string): string | undefined {
  const directory = path.join(projectDir, '.hookwise');
  try {
    if (!lstatSync(directory).isSymbolicLink()) return undefined;
  } catch {
    return undefined;
  }
  let target = '?';
  try {
    target = readlinkSync(directory);
  } catch {
    // keep "?"
  }
  return `${directory}: it is a symbolic link (to ${JSON.stringify(target)})`;
}

/** The payload as an object, for the host's project-dir rule; empty when it is not one (the call then reports it). */
function payloadOf(stdin: Uint8Array): Record<string, unknown> {
  try {
    const payload = JSON.parse(Buffer.from(stdin).toString('utf8')) as unknown;
    return typeof payload === 'object' && payload !== null && !Array.isArray(payload) ? (payload as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
