#!/usr/bin/env node
// Installs the Codex CLI for @hookwise/adapter-codex's real-host tests and the demo, into a cache
// outside the clone:
//
//   ${XDG_CACHE_HOME:-~/.cache}/hookwise/codex-<codex version>
//
// A second run on the same machine finds it there and returns at once. Usage:
//
//   node scripts/install-codex.mjs     # prints the cache folder on stdout
//
// or `import { ensureCodex } from './install-codex.mjs'` (the adapter's test setup does).
//
// @openai/codex is a small JS launcher; its optional dependency @openai/codex-linux-x64 (an alias
// of @openai/codex@<version>-linux-x64) brings the static binary. No install script, no download
// at run time; Node 20 runs the launcher.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCachedInstall, hookwiseCacheDir } from './cached-install.mjs';

export const CODEX_PACKAGE = '@openai/codex';
export const CODEX_VERSION = '0.169.0';
const TRIPLES = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' };
const PLATFORM_PACKAGES = { x64: '@openai/codex-linux-x64', arm64: '@openai/codex-linux-arm64' };

const LABEL = 'install-codex';
const log = (message) => process.stderr.write(`${LABEL}: ${message}\n`);

/** Where the install lives: a cache shared by every clone on the machine. */
export function codexCacheDir(env = process.env) {
  return hookwiseCacheDir(`codex-${CODEX_VERSION}`, env);
}

/** The paths a test needs: the launcher (run with node) and the native binary it starts. */
export function codexPaths(cacheDir = codexCacheDir()) {
  const arch = TRIPLES[process.arch] ? process.arch : 'x64';
  const launcher = path.join(cacheDir, 'node_modules', ...CODEX_PACKAGE.split('/'), 'bin', 'codex.js');
  const binary = path.join(cacheDir, 'node_modules', ...PLATFORM_PACKAGES[arch].split('/'), 'vendor', TRIPLES[arch], 'bin', 'codex');
  return { cacheDir, launcher, binary };
}

/** Makes sure Codex is installed and returns its paths. Idempotent: a marker check when it is there. */
export function ensureCodex({ cacheDir = codexCacheDir() } = {}) {
  ensureCachedInstall({
    cacheDir,
    packages: [`${CODEX_PACKAGE}@${CODEX_VERSION}`],
    marker: { codex: CODEX_VERSION },
    ready: (folder) => existsSync(codexPaths(folder).launcher) && existsSync(codexPaths(folder).binary),
    needs: "Codex's launcher (bin/codex.js) and its native binary",
    prepare: () => {
      if (process.platform !== 'linux') throw new Error(`Codex's real-host tests use the linux binary; this is ${process.platform}`);
    },
    note: 'the native binary is ~300 MB',
    label: LABEL,
  });
  return codexPaths(cacheDir);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const paths = ensureCodex();
    process.stdout.write(`${paths.cacheDir}\n`);
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
