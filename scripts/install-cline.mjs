#!/usr/bin/env node
// Installs the Cline CLI for @hookwise/adapter-cline's real-host tests and the demo, into a cache
// outside the clone:
//
//   ${XDG_CACHE_HOME:-~/.cache}/hookwise/cline-<cline version>
//
// A second run on the same machine finds it there and returns at once. Usage:
//
//   node scripts/install-cline.mjs     # prints the cache folder on stdout
//
// or `import { ensureCline } from './install-cline.mjs'` (the adapter's test setup does).
//
// The CLI is a Bun-compiled binary (the optional dependency @cline/cli-linux-<arch>); its
// postinstall is not needed. It runs plugins in a separate Node process ($CLINE_JS_RUNTIME_PATH):
// @cline/core declares Node >= 22, so that is the Node 22 install-pi.mjs already brings.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCachedInstall, hookwiseCacheDir } from './cached-install.mjs';
import { ensurePi } from './install-pi.mjs';

export const CLINE_VERSION = '3.0.65';
const BINARY_PACKAGES = { x64: '@cline/cli-linux-x64', arm64: '@cline/cli-linux-arm64' };

const LABEL = 'install-cline';
const log = (message) => process.stderr.write(`${LABEL}: ${message}\n`);

/** Where the install lives: a cache shared by every clone on the machine. */
export function clineCacheDir(env = process.env) {
  return hookwiseCacheDir(`cline-${CLINE_VERSION}`, env);
}

/** The Cline binary in an install. */
export function clineBinary(cacheDir = clineCacheDir()) {
  const binaryPackage = BINARY_PACKAGES[process.arch] ?? BINARY_PACKAGES.x64;
  return path.join(cacheDir, 'node_modules', ...binaryPackage.split('/'), 'bin', 'cline');
}

/**
 * Makes sure Cline and a Node 22 for its plugin sandbox are installed; returns `{ cacheDir,
 * cline, node }`. Idempotent: with the installs in the cache it only checks markers and files.
 */
export function ensureCline({ cacheDir = clineCacheDir() } = {}) {
  if (process.platform !== 'linux') throw new Error(`Cline's real-host tests use its Linux binary; this is ${process.platform}`);
  const { node } = ensurePi();
  ensureCachedInstall({
    cacheDir,
    packages: [`cline@${CLINE_VERSION}`],
    marker: { cline: CLINE_VERSION },
    ready: (folder) => existsSync(clineBinary(folder)),
    needs: "Cline's binary",
    note: 'a 150 MB binary',
    label: LABEL,
  });
  return { cacheDir, cline: clineBinary(cacheDir), node };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const paths = ensureCline();
    process.stdout.write(`${paths.cacheDir}\n`);
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
