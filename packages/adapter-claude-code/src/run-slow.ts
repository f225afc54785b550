import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { lstatSync, readlinkSync } from 'node:fs';
import { buildRunBundle, bundlePathOf, isManifestFresh, markFailed, readManifest, recentWriteFailure, type BundleManifest } from './bundle.js';
import { escapeControl, findProjectConfig, resolveProjectDir, runHookProcess, runHookWithinDeadline, type RunRequest } from './run.js';

/** The run-time file the per-project bundle includes: `dist/runtime.js` beside this module. */
export function runtimeFile(): string {
  return path.join(path.dirname(fileURLToPath(import.meta.url)), 'runtime.js');
}

/**
 * The path `bin/hookwise.cjs` takes when the project's bundle is missing or stale: build it,
 * then run the call through it; if it cannot be built, run unbundled (every plugin loaded as
 * ESM through `loadConfig`, several times slower to start, same behaviour).
 */
export async function runSlow(request: RunRequest, options: { bundleFailed?: boolean } = {}): Promise<never> {
  const projectDir = resolveProjectDir(request.env, peekCwd(request.stdin, request.env), request.cwd);
  const configFile = findProjectConfig(projectDir);
  const runtime = runtimeFile();
  if (configFile) {
    const linked = linkedHookwiseDir(projectDir);
    if (linked) {
      // Nothing may be read, written or loaded through it: state, log and the run bundle (code
      // hookwise would run) would all live wherever it points.
      process.stderr.write(`${escapeControl(`hookwise run ${request.event ?? ''}: refused ${linked}; hookwise never follows links inside its folder — remove it; nothing done`)}\n`);
      return (((globalThis as Record<symbol, unknown>)[Symbol.for('hookwise.exit')] as ((code: number) => never) | undefined) ?? process.exit)(0);
    }
  }
  if (configFile && request.env.HOOKWISE_NO_BUNDLE !== '1') {
    const manifest = readManifest(projectDir);
    const fresh = manifest && isManifestFresh(manifest, { configFile, runtime });
    // A fresh bundle the bin could not load is rebuilt once; a failed build is not retried
    // until a watched file changes (the manifest records the failure), nor for a minute after
    // a build that could not be written (full disk).
    if ((!fresh || (manifest?.bundle && options.bundleFailed)) && !recentWriteFailure(projectDir)) {
      const built = await buildRunBundle({ projectDir, configFile, runtime });
      const bundle = built.ok ? loadBundle(projectDir, built.manifest, built.bundlePath) : undefined;
      if (bundle) return bundle.run(request);
    } else if (fresh && manifest?.bundle) {
      const file = bundlePathOf(projectDir, manifest);
      const bundle = file ? loadBundle(projectDir, manifest, file) : undefined;
      if (bundle) return bundle.run(request);
    }
  }
  return runUnbundled(request);
}

function loadBundle(projectDir: string, manifest: BundleManifest, bundlePath: string): { run(request: RunRequest): Promise<never> } | undefined {
  try {
    return createRequire(import.meta.url)(bundlePath) as { run(request: RunRequest): Promise<never> };
  } catch (error) {
    markFailed(projectDir, manifest, `the bundle does not load: ${(error as Error).message.split('\n')[0]}`);
    return undefined;
  }
}

export async function runUnbundled(request: RunRequest): Promise<never> {
  const { createEngine, loadConfig } = await import('@hookwise/core');
  return runHookProcess(request, async (projectDir) => {
    const loaded = await loadConfig(projectDir);
    if (!loaded.file) return undefined;
    // Hooks are stopped at their deadline as in the bundle; a config module that loops at import
    // is not (an ESM import cannot be run under vm's timeout): this path runs only when no bundle
    // can be built.
    return createEngine({ config: loaded.config, projectDir, host: 'claude-code', runSync: runHookWithinDeadline });
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

/** The payload's cwd, needed only when `$CLAUDE_PROJECT_DIR` is unset. */
function peekCwd(stdin: Uint8Array, env: Record<string, string | undefined>): unknown {
  if (env.CLAUDE_PROJECT_DIR) return undefined;
  try {
    return (JSON.parse(Buffer.from(stdin).toString('utf8')) as { cwd?: unknown })?.cwd;
  } catch {
    return undefined;
  }
}
