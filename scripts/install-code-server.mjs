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
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCachedInstall, hookwiseCacheDir } from './cached-install.mjs';

export const CODE_SERVER_VERSION = '4.100.3';
/** The VS Code inside it: what the example's engines.vscode and adapter-vscode's docs name. */
export const VSCODE_VERSION = '1.100.3';
// Pinned by code-server 4.100.3's own lockfile (lib/vscode): the cache folder and file name
// @vscode/ripgrep's postinstall looks for before it downloads.
const RIPGREP_PACKAGE_VERSION = '1.15.11';
const RIPGREP_RELEASE = 'v13.0.0-10';
const RIPGREP_TARGETS = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' };

const LABEL = 'install-code-server';
const log = (message) => process.stderr.write(`${LABEL}: ${message}\n`);

/** Where the install lives: a cache shared by every clone on the machine. */
export function codeServerCacheDir(env = process.env) {
  return hookwiseCacheDir(`code-server-${CODE_SERVER_VERSION}`, env);
}

/** The installed package's folder (bin in `out/node/entry.js`, the VS Code server in `lib/vscode`). */
export function codeServerPackageDir(cacheDir = codeServerCacheDir()) {
  return path.join(cacheDir, 'node_modules', 'code-server');
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
  for (const [tool, pkg] of [
    ['python3', 'python3'],
    ['make', 'make'],
    ['g++', 'g++'],
  ])
    if (!which(tool)) missing.push(pkg);
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

/** Headers for node-gyp; without a nodedir it would try to download them. */
function nodeDir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  const prefix = path.dirname(path.dirname(process.execPath));
  return existsSync(path.join(prefix, 'include', 'node', 'node.h')) ? prefix : undefined;
}

/**
 * Makes sure code-server is installed and returns its package folder. Idempotent: with the
 * install in the cache it only checks a marker file and its entry points.
 */
export function ensureCodeServer({ cacheDir = codeServerCacheDir() } = {}) {
  const headers = nodeDir();
  ensureCachedInstall({
    cacheDir,
    packages: [`code-server@${CODE_SERVER_VERSION}`],
    marker: { version: CODE_SERVER_VERSION, vscode: VSCODE_VERSION },
    ready: (folder) => {
      const pkg = codeServerPackageDir(folder);
      return existsSync(path.join(pkg, 'out', 'node', 'entry.js')) && existsSync(path.join(pkg, 'lib', 'vscode', 'out', 'server-main.js'));
    },
    needs: 'its entry points (out/node/entry.js, lib/vscode/out/server-main.js)',
    prepare: (tmpDir) => {
      ensureDebianPackages();
      seedRipgrepCache(tmpDir);
    },
    // Native modules compile in postinstall scripts; node-pty's runs `npx node-gyp`.
    ignoreScripts: false,
    env: {
      npm_config_yes: 'true',
      ...(isRoot() ? { npm_config_unsafe_perm: 'true' } : {}),
      ...(headers ? { npm_config_nodedir: headers } : {}),
    },
    timeoutMs: 20 * 60_000,
    label: LABEL,
    note: '1-3 minutes: native modules compile',
  });
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
