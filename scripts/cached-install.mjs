// npm packages installed once per machine into a cache outside the clone,
//
//   ${XDG_CACHE_HOME:-~/.cache}/hookwise/<name>
//
// and reused by every later run and every clone. Used by install-code-server.mjs, install-pi.mjs
// and ai-sdk's end-to-end suites. An install is built in a staging folder beside the cache folder
// and renamed into place, so a run killed half-way leaves nothing that looks installed, and of two
// runs at once the one that finishes first wins.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** `${XDG_CACHE_HOME:-~/.cache}/hookwise/<name>`: a cache shared by every clone on the machine. */
export function hookwiseCacheDir(name, env = process.env) {
  const cache = env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'hookwise', name);
}

const MARKER = 'hookwise-install.json';

/**
 * Whether `folder` holds a finished install: the marker records the same fields as `marker`
 * (when one is asked for) and `ready(folder)` holds.
 */
function usable(folder, { marker, ready }) {
  try {
    if (marker) {
      const file = path.join(folder, MARKER);
      if (!existsSync(file)) return false;
      const recorded = JSON.parse(readFileSync(file, 'utf8'));
      if (Object.entries(marker).some(([key, value]) => recorded[key] !== value)) return false;
    }
    return existsSync(folder) && ready(folder);
  } catch {
    return false;
  }
}

/** Staging folders of runs that were killed (their process is gone): never reused. */
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
 * Makes sure `packages` (npm specs) are installed in `cacheDir` and returns `cacheDir`.
 * Idempotent: with a usable install there it only checks it.
 *
 * - `ready(folder)`: whether an install in `folder` works (its entry files exist, its binary runs);
 * - `marker`: fields recorded in `hookwise-install.json` on install and required to match on reuse;
 * - `prepare(tmpDir)`: runs before npm, on a miss only (system packages, seeded download caches);
 * - `env`: extra environment for npm; `ignoreScripts` (default true); `timeoutMs`;
 * - `label`: the prefix of the log lines on stderr; `note`: why an install may take a while;
 *   `needs`: what `ready` checks, for the error when a fresh install fails it.
 */
export function ensureCachedInstall({
  cacheDir,
  packages,
  ready,
  marker,
  prepare,
  env = {},
  ignoreScripts = true,
  timeoutMs = 10 * 60_000,
  label,
  note,
  needs = 'its files',
}) {
  const check = { marker, ready };
  if (usable(cacheDir, check)) return cacheDir;
  const log = (message) => process.stderr.write(`${label}: ${message}\n`);

  const started = Date.now();
  removeAbandonedStaging(cacheDir);
  const staging = `${cacheDir}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  const tmpDir = path.join(staging, 'tmp');
  mkdirSync(tmpDir, { recursive: true });
  try {
    prepare?.(tmpDir);
  } catch (error) {
    rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  writeFileSync(
    path.join(staging, 'package.json'),
    `${JSON.stringify({ name: `hookwise-${path.basename(cacheDir)}`, private: true }, null, 2)}\n`,
  );

  log(`installing ${packages.join(' and ')} into ${cacheDir}${note ? ` (${note})` : ''}`);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const args = [
    'install',
    '--no-save',
    '--no-package-lock',
    ...(ignoreScripts ? ['--ignore-scripts'] : []),
    '--loglevel=error',
    ...packages,
  ];
  const result = spawnSync(npm, args, {
    cwd: staging,
    env: {
      ...process.env,
      TMPDIR: tmpDir,
      npm_config_audit: 'false',
      npm_config_fund: 'false',
      npm_config_update_notifier: 'false',
      ...env,
    },
    // npm's stdout goes to stderr: a script's stdout is the path it prints.
    stdio: ['ignore', 2, 2],
    timeout: timeoutMs, // a stalled registry should fail the run, not eat CI's time
  });
  if (result.status !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(
      `npm install ${packages.join(' ')} failed (${result.error?.message ?? `exit ${result.status ?? result.signal}`}); see the output above`,
    );
  }
  rmSync(tmpDir, { recursive: true, force: true });
  if (marker)
    writeFileSync(path.join(staging, MARKER), `${JSON.stringify({ ...marker, installedAt: new Date().toISOString() }, null, 2)}\n`);
  if (!usable(staging, check)) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(`${packages.join(' ')} installed, but the check of ${needs} failed`);
  }

  if (usable(cacheDir, check)) {
    // Another run finished first: keep its install, which a test may be using.
    rmSync(staging, { recursive: true, force: true });
    return cacheDir;
  }
  rmSync(cacheDir, { recursive: true, force: true }); // a stale or half-written one
  try {
    renameSync(staging, cacheDir);
  } catch (error) {
    // Another run renamed its install into place in between: keep that one.
    rmSync(staging, { recursive: true, force: true });
    if (!usable(cacheDir, check)) throw error;
  }
  log(`installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return cacheDir;
}
