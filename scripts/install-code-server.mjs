#!/usr/bin/env node
// Installs code-server (a whole VS Code server whose extension host runs real extensions) for the
// example extension's real-host tests, offline, into a cache outside the clone:
//
//   ${XDG_CACHE_HOME:-~/.cache}/hookwise/code-server-4.100.3
//
// A second run on the same machine finds it there and returns at once. Usage:
//
//   node scripts/install-code-server.mjs     # prints the code-server package folder on stdout
//
// or `import { ensureCodeServer } from './install-code-server.mjs'` (the test's global setup does).
//
// Why 4.100.3: it carries VS Code 1.100.3 and is the newest code-server that runs on Node 20
// (later ones need Node 22 or 24). The example's `engines.vscode` says the same version.
//
// What it takes to install offline (see shared/reference/vscode-real-host.md):
// - as root, code-server's postinstall refuses to run unless npm_config_unsafe_perm=true;
// - node-pty's postinstall runs `npx node-gyp`, which fails where npx may not prompt
//   (`yes=false` in the machine's npmrc) unless npm_config_yes=true;
// - argon2 and kerberos compile from source: python3, make, g++ and Kerberos headers
//   (Debian's libkrb5-dev, apt-installed here when running as root);
// - @vscode/ripgrep's postinstall downloads rg from GitHub, which is unreachable: its download
//   cache (os.tmpdir()/vscode-ripgrep-cache-<version>) is seeded with Debian's `ripgrep`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CODE_SERVER_VERSION = '4.100.3';
/** The VS Code inside it: what the example's engines.vscode and adapter-vscode's docs name. */
export const VSCODE_VERSION = '1.100.3';
// Pinned by code-server 4.100.3's own lockfile (lib/vscode): the cache folder and file name
// @vscode/ripgrep's postinstall looks for before it downloads.
const RIPGREP_PACKAGE_VERSION = '1.15.11';
const RIPGREP_RELEASE = 'v13.0.0-10';
const RIPGREP_TARGETS = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' };

const log = (message) => process.stderr.write(`install-code-server: ${message}\n`);

/** Where the install lives: a cache shared by every clone on the machine. */
export function codeServerCacheDir(env = process.env) {
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'hookwise', `code-server-${CODE_SERVER_VERSION}`);
}

/** The installed package's folder (bin in `out/node/entry.js`, the VS Code server in `lib/vscode`). */
export function codeServerPackageDir(cacheDir = codeServerCacheDir()) {
  return path.join(cacheDir, 'node_modules', 'code-server');
}

const MARKER = 'hookwise-install.json';

function installed(cacheDir) {
  const marker = path.join(cacheDir, MARKER);
  if (!existsSync(marker)) return false;
  try {
    const { version } = JSON.parse(readFileSync(marker, 'utf8'));
    const pkg = codeServerPackageDir(cacheDir);
    return version === CODE_SERVER_VERSION && existsSync(path.join(pkg, 'out', 'node', 'entry.js')) && existsSync(path.join(pkg, 'lib', 'vscode', 'out', 'server-main.js'));
  } catch {
    return false;
  }
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function which(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).stdout.trim() || undefined;
}

/** Debian packages the build needs; installed only as root (CI and these machines), else named in the error. */
function ensureDebianPackages() {
  const missing = [];
  if (!which('rg')) missing.push('ripgrep');
  if (!existsSync('/usr/include/krb5.h') && !existsSync('/usr/include/krb5/krb5.h')) missing.push('libkrb5-dev');
  for (const [tool, pkg] of [['python3', 'python3'], ['make', 'make'], ['g++', 'g++']]) if (!which(tool)) missing.push(pkg);
  if (missing.length === 0) return;
  if (!isRoot() || !which('apt-get')) {
    throw new Error(`code-server's install needs these Debian packages: ${missing.join(' ')} (apt-get install -y ${missing.join(' ')})`);
  }
  log(`apt-get install ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: ['ignore', 'ignore', 'inherit'], env });
}

/** Puts Debian's rg where @vscode/ripgrep's postinstall looks before it downloads. */
function seedRipgrepCache(tmpDir) {
  const target = RIPGREP_TARGETS[process.arch];
  if (!target) throw new Error(`no ripgrep target known for ${process.arch}`);
  const rg = which('rg');
  if (!rg) throw new Error('rg (Debian package ripgrep) is needed to install code-server offline');
  const cacheDir = path.join(tmpDir, `vscode-ripgrep-cache-${RIPGREP_PACKAGE_VERSION}`);
  mkdirSync(cacheDir, { recursive: true });
  const archive = path.join(cacheDir, `ripgrep-${RIPGREP_RELEASE}-${target}.tar.gz`);
  execFileSync('tar', ['czf', archive, '-C', path.dirname(rg), path.basename(rg)]);
}

/** Staging folders of runs that were killed (their process is gone): 300 MB each, never reused. */
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

/** Headers for node-gyp; without a nodedir it would try to download them. */
function nodeDir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  const prefix = path.dirname(path.dirname(process.execPath));
  return existsSync(path.join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}

/**
 * Makes sure code-server is installed and returns its package folder. Idempotent: with the
 * install in the cache it only checks a marker file. An install is built in a staging folder
 * and renamed into place, so an interrupted one leaves nothing that looks installed.
 */
export function ensureCodeServer({ cacheDir = codeServerCacheDir() } = {}) {
  if (installed(cacheDir)) return codeServerPackageDir(cacheDir);

  const started = Date.now();
  ensureDebianPackages();
  removeAbandonedStaging(cacheDir);
  const staging = `${cacheDir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const tmpDir = path.join(staging, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  seedRipgrepCache(tmpDir);
  writeFileSync(path.join(staging, 'package.json'), `${JSON.stringify({ name: 'hookwise-code-server', private: true }, null, 2)}\n`);

  const env = {
    ...process.env,
    TMPDIR: tmpDir,
    npm_config_yes: 'true',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...(isRoot() ? { npm_config_unsafe_perm: 'true' } : {}),
  };
  const headers = nodeDir();
  if (headers) env.npm_config_nodedir = headers;

  log(`installing code-server@${CODE_SERVER_VERSION} into ${cacheDir} (1-3 minutes: native modules compile)`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(npm, ['install', '--no-save', '--no-package-lock', '--loglevel=error', `code-server@${CODE_SERVER_VERSION}`], {
    cwd: staging,
    env,
    stdio: ['ignore', process.stderr, process.stderr],
    timeout: 20 * 60_000, // a stalled registry should fail the run, not eat CI's 90 minutes
  });
  if (result.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`npm install code-server@${CODE_SERVER_VERSION} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}); see the output above`);
  }
  rmSync(tmpDir, { recursive: true, force: true });
  writeFileSync(path.join(staging, MARKER), `${JSON.stringify({ version: CODE_SERVER_VERSION, vscode: VSCODE_VERSION, installedAt: new Date().toISOString() }, null, 2)}\n`);
  if (!installed(staging)) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error('code-server installed but its entry points are missing (out/node/entry.js, lib/vscode/out/server-main.js)');
  }

  if (installed(cacheDir)) {
    // Another run finished first: keep its install, which a test may be using.
    rmSync(staging, { recursive: true, force: true });
    return codeServerPackageDir(cacheDir);
  }
  rmSync(cacheDir, { recursive: true, force: true }); // a stale or half-written one
  try {
    renameSync(staging, cacheDir);
  } catch (error) {
    // Another run renamed its install into place in between: keep that one.
    rmSync(staging, { recursive: true, force: true });
    if (!installed(cacheDir)) throw error;
  }
  log(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return codeServerPackageDir(cacheDir);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const started = Date.now();
    const dir = ensureCodeServer();
    log(`code-server ${CODE_SERVER_VERSION} (VS Code ${VSCODE_VERSION}) ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    process.stdout.write(`${dir}\n`);
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
