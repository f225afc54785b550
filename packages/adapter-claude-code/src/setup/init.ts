import type { HostInitContext, HostInitPlan } from '@hookwise/cli';
import { defaultCommandPrefix, planHooksFileInit, readHooksFile } from '@hookwise/cli/command-hook';
import { EVENT_POINTS, type MappedEvent } from '../binding/events.js';
import { claudeCodeHost } from '../hook-process/hook-call.js';
import { files } from '../hook-process/package-files.js';
import { DEFAULT_TIMEOUT_SECONDS, EVENT_TIMEOUTS, settingsFileOf, type SettingsScope } from './settings.js';

/**
 * Claude Code's part of `hookwise init`: one `hookwise run <Event>` command hook per event the
 * plugins need, merged into the settings file of the scope (keeping a backup and every other
 * hook); once written, the run bundle is built so the first hook call does not pay for it.
 */
export async function planClaudeCodeInit(context: HostInitContext): Promise<HostInitPlan> {
  const scope = (context.options['scope'] as SettingsScope | undefined) ?? 'project';
  // The project's install through "$CLAUDE_PROJECT_DIR" (the settings file can be committed), else this bin.
  const local = { allowed: scope !== 'user', projectVar: 'CLAUDE_PROJECT_DIR' };
  const prefix = (context.options['command'] as string | undefined) ?? defaultCommandPrefix(files, context.projectDir, local);
  return planHooksFileInit(context, {
    read: readHooksFile(settingsFileOf(scope, context.projectDir, context.home)),
    eventPoints: EVENT_POINTS,
    always: ['SessionStart'],
    commandFor: (event) => `${prefix} run ${event}`,
    timeoutOf: (event) => EVENT_TIMEOUTS[event as MappedEvent] ?? DEFAULT_TIMEOUT_SECONDS,
    runtime: files.runtime,
    host: claudeCodeHost.name,
  });
}
