import { existsSync, readFileSync } from 'node:fs';
import type { HostInitContext, HostInitPlan } from '@hookwise/cli';
import { buildBundleIfStale, defaultCommandPrefix } from '@hookwise/cli/command-hook';
import { claudeCodeHost, findProjectConfig } from '../hook-process/hook-call.js';
import { EVENT_POINTS, type MappedEvent } from '../binding/events.js';
import { eventsForPoints, mergeHookwiseHooks, readSettings, settingsFileOf, type SettingsScope } from './settings.js';
import { files } from '../hook-process/package-files.js';

/**
 * Claude Code's part of `hookwise init`: one `hookwise run <Event>` command hook per event the
 * plugins need, merged into the settings file of the scope (keeping a backup and every other
 * hook); once written, the run bundle is built so the first hook call does not pay for it.
 */
export async function planClaudeCodeInit(context: HostInitContext): Promise<HostInitPlan> {
  const { projectDir, stderr, relative } = context;
  const scope = (context.options['scope'] as SettingsScope | undefined) ?? 'project';
  const command = context.options['command'] as string | undefined;

  let events: MappedEvent[];
  try {
    events = eventsForPoints((await context.pointsInUse()).keys());
  } catch (error) {
    events = Object.keys(EVENT_POINTS) as MappedEvent[];
    stderr(
      `hookwise init: could not load the plugins (${firstLine(error)}); registering every event hookwise handles. Install the plugins, then run \`hookwise init\` again or \`hookwise doctor\`.`,
    );
  }

  const settingsFile = settingsFileOf(scope, projectDir, context.home);
  const settings = readSettings(settingsFile);
  if (!settings.ok) return { ok: false, message: `${settings.message}; fix or remove it, then run init again` };
  // The project's install through "$CLAUDE_PROJECT_DIR" (the settings file can be committed), else this bin.
  const prefix = command ?? defaultCommandPrefix(files, projectDir, { allowed: scope !== 'user', projectVar: 'CLAUDE_PROJECT_DIR' });
  const merged = mergeHookwiseHooks(settings.value, events, (event) => `${prefix} run ${event}`);
  const planned = [];
  if (merged.changed) {
    const before = existsSync(settingsFile) ? readFileSync(settingsFile, 'utf8') : undefined;
    planned.push({
      file: settingsFile,
      before,
      after: `${JSON.stringify(merged.settings, null, 2)}\n`,
      summary: `${before === undefined ? 'write' : 'update'} ${relative(settingsFile)}: hookwise runs on ${events.join(', ')}`,
      backup: before !== undefined,
    });
  }
  return {
    ok: true,
    files: planned,
    finish: () =>
      buildBundleIfStale(
        { projectDir, host: claudeCodeHost.name, configFile: findProjectConfig(projectDir), runtime: files.runtime },
        stderr,
      ),
  };
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0] ?? '';
}
