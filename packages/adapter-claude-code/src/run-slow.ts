import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRunBundle, isManifestFresh, markFailed, readManifest, type BundleManifest } from './bundle.js';
import { findProjectConfig, resolveProjectDir, runHookProcess, type RunRequest } from './run.js';

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
  if (configFile && request.env.HOOKWISE_NO_BUNDLE !== '1') {
    const manifest = readManifest(projectDir);
    const fresh = manifest && isManifestFresh(manifest, { configFile, runtime });
    // A fresh bundle the bin could not load is rebuilt once; a failed build is not retried
    // until a watched file changes (the manifest records the failure).
    if (!fresh || (manifest?.bundle && options.bundleFailed)) {
      const built = await buildRunBundle({ projectDir, configFile, runtime });
      const bundle = built.ok ? loadBundle(projectDir, built.manifest, built.bundlePath) : undefined;
      if (bundle) return bundle.run(request);
    } else if (manifest?.bundle) {
      const bundle = loadBundle(projectDir, manifest, path.join(projectDir, '.hookwise', 'cache', manifest.bundle));
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
    return createEngine({ config: loaded.config, projectDir, host: 'claude-code' });
  });
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
