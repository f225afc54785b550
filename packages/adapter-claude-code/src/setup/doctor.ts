import { existsSync } from 'node:fs';
import type { HostDoctorContext } from '@hookwise/cli';
import { POINT_EVENTS } from '../binding/events.js';
import { missingCommandFile } from '@hookwise/core/command-hook';
import { buildRunBundle, bundlePathOf, isManifestFresh, readManifest, recentWriteFailure } from '@hookwise/cli/command-hook';
import { runtimeFile } from '../hook-process/package-files.js';
import { hookwiseEventsIn, readSettings, settingsFileOf, type Settings } from './settings.js';

/**
 * Claude Code's part of `hookwise doctor`: every settings file Claude Code merges calls
 * `hookwise run <Event>` once for each event the plugins need, with a bin that exists; and the
 * run bundle is fresh (warnings only: the unbundled fallback works, only slower).
 */
export async function checkClaudeCodeSetup(context: HostDoctorContext): Promise<void> {
  const { projectDir, ok, problem, warn } = context;
  const needed = new Map<string, string[]>();
  for (const [point, plugins] of context.pointsInUse) {
    for (const event of POINT_EVENTS[point])
      needed.set(event, [...new Set([...(needed.get(event) ?? []), ...plugins.map((plugin) => `${plugin} (${point})`)])]);
  }

  const settingsList: Settings[] = [];
  for (const scope of ['project', 'local', 'user'] as const) {
    const read = readSettings(settingsFileOf(scope, projectDir, context.home));
    if (!read.ok) problem(read.message);
    else settingsList.push(read.value);
  }
  const registered = hookwiseEventsIn(...settingsList);
  for (const [event, plugins] of needed) {
    const commands = registered.get(event);
    if (!commands) problem(`the settings do not call \`hookwise run ${event}\`, which ${plugins.join(', ')} need; run \`hookwise init\``);
    else if (commands.length > 1)
      problem(
        `\`hookwise run ${event}\` is registered ${commands.length} times across the settings files; each call would run the plugins again — keep one`,
      );
    else {
      const missing = missingBin(commands[0]!, projectDir);
      if (missing) problem(`the ${event} hook runs ${missing}, which does not exist; run \`hookwise init\` again`);
    }
  }
  if (needed.size > 0 && [...needed.keys()].every((event) => registered.get(event)?.length === 1))
    ok(`settings call hookwise for ${[...needed.keys()].join(', ')}`);

  const { configFile } = context;
  if (!configFile) return;
  // Report what hook calls actually do, which the manifest records (hook calls read it
  // too): a failed build there means every call takes the unbundled path, whatever a
  // rebuild in this process would do. Then try a rebuild, so doctor also fixes it.
  const runtime = runtimeFile();
  const manifest = readManifest(projectDir);
  const fresh = manifest !== undefined && isManifestFresh(manifest, { configFile, runtime });
  if (fresh && manifest.bundle && bundlePathOf(projectDir, manifest)) {
    ok(`hook calls use the cached run bundle (.hookwise/cache/${manifest.bundle})`);
    return;
  }
  // Only lasting causes are recorded (a race with another build is not): calls stop building until a watched file changes.
  if (fresh && manifest.failed)
    warn(
      `hook calls use the unbundled path (about 4× slower to start): the last build failed: ${manifest.failed} (a lasting cause: calls do not build again until the config or a package it uses changes)`,
    );
  else if (recentWriteFailure(projectDir))
    warn(
      'the last build could not be written (a full, read-only or forbidden disk): hook calls use the unbundled path and try again after a minute',
    );
  else if (fresh && manifest.bundle) warn(`the manifest names .hookwise/cache/${manifest.bundle}, which is missing or not a regular file`);
  else
    warn(
      manifest
        ? 'the run bundle is out of date (a watched file changed); the next hook call rebuilds it'
        : 'no run bundle has been built yet',
    );
  const built = await buildRunBundle({ projectDir, configFile, runtime });
  if (built.ok) ok(`rebuilt the run bundle: hook calls now use .hookwise/cache/${built.manifest.bundle}`);
  else warn(`rebuilding the run bundle failed, hook calls keep the unbundled path: ${built.reason}`);
}

/** The file a `node "<file>" run …` command names, when it does not exist. */
const missingBin = (command: string, projectDir: string): string | undefined =>
  missingCommandFile(command, { CLAUDE_PROJECT_DIR: projectDir }, existsSync);
