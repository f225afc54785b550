import { existsSync } from 'node:fs';
import type { HostDoctorContext } from '@hookwise/cli';
import { POINT_EVENTS } from '../binding/events.js';
import { missingCommandFile } from '@hookwise/core/command-hook';
import { checkRunBundle } from '@hookwise/cli/command-hook';
import { claudeCodeHost } from '../hook-process/hook-call.js';
import { files } from '../hook-process/package-files.js';
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
  await checkRunBundle({ projectDir, host: claudeCodeHost.name, configFile, runtime: files.runtime }, { ok, warn });
}

/** The file a `node "<file>" run …` command names, when it does not exist. */
const missingBin = (command: string, projectDir: string): string | undefined =>
  missingCommandFile(command, { CLAUDE_PROJECT_DIR: projectDir }, existsSync);
