import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { HostDoctorContext } from '@hookwise/cli';
import type { PointName } from '@hookwise/core';
import { checkRunBundle } from '@hookwise/cli/command-hook';
import { eventsForPoints } from '../events.js';
import { geminiHost } from '../hook-process/hook-call.js';
import { runtimeFile } from '../hook-process/package-files.js';
import { hookwiseEventsIn, readSettings, settingsFileOf, type Settings } from './settings.js';

/** What plugins ask of a point that Gemini CLI 0.61.0 gives no hook, said once per point in use. */
const NOT_IN_GEMINI: Partial<Record<PointName, string>> = {
  'llm:before': 'Gemini lets no hook rewrite a model request: llm:before never runs, so nothing prunes the request',
  'phase:end': 'Gemini has no sub-agent hand-off event: phase:end never runs',
};

/**
 * `hookwise doctor --host gemini`: the settings call hookwise once per needed event with a
 * command that resolves (a missing one is exit 127, which Gemini takes as a deny that drops the
 * turn), hooks are enabled, the project is trusted (project hooks run only in a trusted folder),
 * and what Gemini cannot do for the plugins in use.
 */
export async function checkGeminiSetup(context: HostDoctorContext): Promise<void> {
  const { projectDir, ok, problem, warn } = context;
  const home = context.home ?? '';
  const list: Settings[] = [];
  for (const scope of ['project', 'user'] as const) {
    const read = readSettings(settingsFileOf(scope, projectDir, home));
    if (read.ok) list.push(read.value);
    else problem(read.message);
  }
  if (list.some((settings) => (settings.hooksConfig as { enabled?: unknown } | undefined)?.enabled === false))
    problem('hooksConfig.enabled is false in the Gemini settings: no hook runs');
  const registered = hookwiseEventsIn(...list);
  const needed = eventsForPoints(context.pointsInUse.keys());
  for (const event of needed) {
    const commands = registered.get(event);
    if (!commands) problem(`the Gemini settings do not call \`hookwise run ${event}\`; run \`hookwise init --host gemini\``);
    else if (commands.length > 1)
      problem(`\`hookwise run ${event}\` is registered ${commands.length} times; each would run the plugins again — keep one`);
    else {
      const missing = unresolved(commands[0]!, projectDir);
      if (missing)
        problem(
          `the ${event} hook runs ${missing}, which does not resolve: Gemini takes its exit 127 as a deny and drops the turn; run \`hookwise init --host gemini\` again`,
        );
    }
  }
  if (needed.every((event) => registered.get(event)?.length === 1)) ok(`Gemini settings call hookwise for ${needed.join(', ')}`);
  trust(context, list);
  for (const [point, plugins] of context.pointsInUse) {
    const why = NOT_IN_GEMINI[point];
    if (why) warn(`${why} (${plugins.join(', ')})`);
  }
  if (context.pointsInUse.has('tool:after'))
    ok(
      'Gemini cannot replace a tool result with a shorter one (a hook can only turn it into an error): oversized outputs are not trimmed here',
    );
  if (context.configFile)
    await checkRunBundle({ projectDir, host: geminiHost.name, configFile: context.configFile, runtime: runtimeFile() }, { ok, warn });
}

/** What makes Gemini run project hooks: an env switch, folder trust turned off, or a trusted folder. */
function trust(context: HostDoctorContext, list: Settings[]): void {
  const how =
    'trust it in Gemini (`/permissions`, or `~/.gemini/trustedFolders.json`), or run with `--skip-trust` / GEMINI_CLI_TRUST_WORKSPACE=true';
  if (process.env.GEMINI_CLI_TRUST_WORKSPACE === 'true') return context.ok('GEMINI_CLI_TRUST_WORKSPACE=true: Gemini trusts this folder');
  if (list.some((settings) => (settings.security as { folderTrust?: { enabled?: unknown } } | undefined)?.folderTrust?.enabled === false))
    return context.ok('folder trust is off in the Gemini settings: project hooks run');
  const file = process.env.GEMINI_CLI_TRUSTED_FOLDERS_PATH ?? path.join(context.home ?? '', '.gemini', 'trustedFolders.json');
  let folders: Record<string, unknown> = {};
  try {
    if (existsSync(file)) folders = JSON.parse(readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '')) as Record<string, unknown>;
  } catch {
    return context.problem(`${file} is not valid JSON: Gemini stops with a config error`);
  }
  const project = path.resolve(context.projectDir);
  const within = (folder: string) => project === folder || project.startsWith(`${folder}${path.sep}`);
  let level: unknown;
  for (const [folder, value] of Object.entries(folders)) {
    const base = value === 'TRUST_PARENT' ? path.dirname(path.resolve(folder)) : path.resolve(folder);
    if (within(base)) level = value === 'DO_NOT_TRUST' ? value : (level ?? value);
  }
  if (level === 'DO_NOT_TRUST') context.problem(`${file} marks this folder DO_NOT_TRUST: Gemini blocks every project hook; ${how}`);
  else if (level) context.ok(`${file} trusts this folder: project hooks run`);
  else context.warn(`this folder is not trusted yet: Gemini blocks project hooks in an untrusted folder; ${how}`);
}

/** The file a `node <file>` command names, or the program another command starts, when it does not resolve. */
function unresolved(command: string, projectDir: string): string | undefined {
  const expanded = command.replace(/\$\{?(GEMINI_PROJECT_DIR|CLAUDE_PROJECT_DIR)\}?/g, projectDir);
  const words = /^\s*(\S+)(?:\s+("([^"]+)"|'([^']+)'|(\S+)))?/.exec(expanded);
  if (!words) return command;
  if (words[1] === 'node') {
    const file = words[3] ?? words[4] ?? words[5];
    return file && existsSync(file) ? undefined : (file ?? command);
  }
  const program = words[1]!;
  const found = (
    program.includes('/') ? [program] : (process.env.PATH ?? '').split(path.delimiter).map((dir) => path.join(dir, program))
  ).some((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return found ? undefined : program;
}
