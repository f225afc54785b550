#!/usr/bin/env node
// Installs the Kilo CLI for @hookwise/adapter-kilo's real-host tests and the demo, into a cache
// outside the clone:
//
//   ${XDG_CACHE_HOME:-~/.cache}/hookwise/kilo-<cli version>-bin-<binary version>
//
// A second run on the same machine finds it there and returns at once. Usage:
//
//   node scripts/install-kilo.mjs     # prints the cache folder on stdout
//
// or `import { ensureKilo } from './install-kilo.mjs'` (the adapter's test setup does).
//
// Why two binary versions: @kilocode/cli's postinstall links the platform package of its own
// version, and the registry may not have it (7.8.1 had no @kilocode/cli-linux-x64 build), so the
// wrapper is installed without scripts and the binary package is the same version if the
// registry has it, else the newest Linux build known to work (7.7.9). Tests call the binary itself.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCachedInstall, hookwiseCacheDir } from './cached-install.mjs';

export const KILO_VERSION = '7.8.1';
export const KILO_BINARY_VERSIONS = [KILO_VERSION, '7.7.9'];
const BINARY_PACKAGE = '@kilocode/cli-linux-x64';

const LABEL = 'install-kilo';
const log = (message) => process.stderr.write(`${LABEL}: ${message}\n`);

/** Where an install lives: a cache shared by every clone on the machine. */
export function kiloCacheDir(binaryVersion, env = process.env) {
  return hookwiseCacheDir(`kilo-${KILO_VERSION}-bin-${binaryVersion}`, env);
}

/** The paths a test needs: the `kilo` binary and the version of its package. */
export function kiloPaths(cacheDir, binaryVersion) {
  return { cacheDir, binaryVersion, kilo: path.join(cacheDir, 'node_modules', ...BINARY_PACKAGE.split('/'), 'bin', 'kilo') };
}

const installed = (cacheDir) => {
  try {
    return (
      existsSync(path.join(cacheDir, 'hookwise-install.json')) &&
      JSON.parse(readFileSync(path.join(cacheDir, 'hookwise-install.json'), 'utf8')).cli === KILO_VERSION
    );
  } catch {
    return false;
  }
};

/**
 * Makes sure Kilo is installed and returns its paths: an install already in the cache first,
 * then each binary version in turn. Idempotent.
 */
export function ensureKilo() {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`Kilo's real-host tests use @kilocode/cli-linux-x64; this is ${process.platform}-${process.arch}`);
  for (const version of KILO_BINARY_VERSIONS) {
    const cacheDir = kiloCacheDir(version);
    if (installed(cacheDir) && existsSync(kiloPaths(cacheDir, version).kilo)) return kiloPaths(cacheDir, version);
  }
  const failures = [];
  for (const version of KILO_BINARY_VERSIONS) {
    const cacheDir = kiloCacheDir(version);
    try {
      ensureCachedInstall({
        cacheDir,
        // The wrapper's postinstall only links the binary package of its own version: skipped.
        packages: [`@kilocode/cli@${KILO_VERSION}`, `${BINARY_PACKAGE}@${version}`],
        marker: { cli: KILO_VERSION, binary: version },
        ready: (folder) => existsSync(kiloPaths(folder, version).kilo),
        needs: 'the kilo binary',
        label: LABEL,
        note: 'a 170 MB binary',
      });
      return kiloPaths(cacheDir, version);
    } catch (error) {
      failures.push(error instanceof Error ? error.message : String(error));
      log(`binary ${version} did not install; ${version === KILO_BINARY_VERSIONS.at(-1) ? 'giving up' : 'trying the next'}`);
    }
  }
  throw new Error(failures.join('\n'));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const paths = ensureKilo();
    process.stdout.write(`${paths.cacheDir}\n`);
  } catch (error) {
    log(error instanceof Error ? error.message : String(error));
    process.exit(1);
  }
}
