#!/usr/bin/env node
// Installs Gemini CLI for @hookwise/adapter-gemini's real-host tests into a cache outside the
// clone:
//
//   ${XDG_CACHE_HOME:-~/.cache}/hookwise/gemini-cli-<version>
//
// A second run on the same machine finds it there and returns at once. Usage:
//
//   node scripts/install-gemini.mjs     # prints the cache folder on stdout
//
// or `import { ensureGemini } from './install-gemini.mjs'` (the adapter's e2e setup does).
// Gemini CLI is one bundled package that runs on Node 20; its optional native modules
// (keytar, node-pty) are not needed, so no install script runs.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCachedInstall, hookwiseCacheDir } from './cached-install.mjs';

export const GEMINI_PACKAGE = '@google/gemini-cli';
export const GEMINI_VERSION = '0.61.0';

const LABEL = 'install-gemini';

/** Where the install lives: a cache shared by every clone on the machine. */
export function geminiCacheDir(env = process.env) {
  return hookwiseCacheDir(`gemini-cli-${GEMINI_VERSION}`, env);
}

/** Gemini CLI's entry (run it with `node`). */
export function geminiPaths(cacheDir = geminiCacheDir()) {
  const geminiDir = path.join(cacheDir, 'node_modules', ...GEMINI_PACKAGE.split('/'));
  return { cacheDir, geminiDir, geminiCli: path.join(geminiDir, 'bundle', 'gemini.js') };
}

/** Makes sure Gemini CLI is installed and returns its paths. Idempotent. */
export function ensureGemini({ cacheDir = geminiCacheDir() } = {}) {
  ensureCachedInstall({
    cacheDir,
    packages: [`${GEMINI_PACKAGE}@${GEMINI_VERSION}`],
    marker: { gemini: GEMINI_VERSION },
    ready: (folder) => existsSync(geminiPaths(folder).geminiCli),
    needs: "Gemini CLI's bundle/gemini.js",
    label: LABEL,
    note: '100 MB, 20-50 s',
  });
  return geminiPaths(cacheDir);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    process.stdout.write(`${ensureGemini().cacheDir}\n`);
  } catch (error) {
    process.stderr.write(`${LABEL}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
