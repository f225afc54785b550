import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { HostDoctorContext } from '@hookwise/cli';
import type { PointName } from '@hookwise/core';
import { checkHooksFile, checkRunBundle, readHooksFile } from '@hookwise/cli/command-hook';
import { EVENT_POINTS } from '../binding/events.js';
import { files } from '../hook-process/package-files.js';
import { settingsFileOf } from './gemini-files.js';

/** Why Gemini CLI 0.61.0 gives no hook for a point plugins use, said once per point in use (see the kit's `checkHooksFile`). */
const NOT_IN_GEMINI: Partial<Record<PointName, string>> = {
  'llm:before': 'Gemini lets no hook rewrite a model request: llm:before never runs, so nothing prunes the request',
  'phase:end': 'Gemini has no sub-agent hand-off event: phase:end never runs',
};

/**
 * `hookwise doctor --host gemini`: the settings (project and user) call hookwise once per needed
 * event with a command that resolves (a missing one is exit 127, which Gemini takes as a deny
 * that drops the turn), hooks are enabled, the project is trusted (project hooks run only in a
 * trusted folder), and what Gemini cannot do for the plugins in use.
 */
export async function checkGeminiSetup(context: HostDoctorContext): Promise<void> {
  const { projectDir, ok, problem, warn } = context;
  const reads = (['project', 'user'] as const).map((scope) => readHooksFile(settingsFileOf(scope, projectDir, context.home ?? '')));
  const list = reads.flatMap((read) => (read.ok ? [read.value] : []));
  if (list.some((settings) => (settings.hooksConfig as { enabled?: unknown } | undefined)?.enabled === false))
    problem('hooksConfig.enabled is false in the Gemini settings: no hook runs');
  checkHooksFile(context, {
    read: reads,
    label: 'the Gemini settings',
    eventPoints: EVENT_POINTS,
    always: ['SessionStart'],
    host: 'gemini',
    vars: { GEMINI_PROJECT_DIR: projectDir, CLAUDE_PROJECT_DIR: projectDir },
    programs: true,
    unresolvedMeans: 'Gemini takes its exit 127 as a deny and drops the turn',
    unserved: NOT_IN_GEMINI,
  });
  trust(context, list);
  if (context.pointsInUse.has('tool:after'))
    ok(
      'Gemini cannot replace a tool result with a shorter one (a hook can only turn it into an error): oversized outputs are not trimmed here',
    );
  if (context.configFile)
    await checkRunBundle({ projectDir, host: 'gemini', configFile: context.configFile, runtime: files.runtime }, { ok, warn });
}

/** What makes Gemini run project hooks: an env switch, folder trust turned off, or a trusted folder. */
function trust(context: HostDoctorContext, list: Record<string, unknown>[]): void {
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
