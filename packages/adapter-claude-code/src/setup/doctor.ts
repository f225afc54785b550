import type { HostDoctorContext } from '@hookwise/cli';
import { checkHooksFile, checkRunBundle, readHooksFile } from '@hookwise/cli/command-hook';
import { EVENT_POINTS } from '../binding/events.js';
import { claudeCodeHost } from '../hook-process/hook-call.js';
import { files } from '../hook-process/package-files.js';
import { settingsFileOf } from './settings.js';

/**
 * Claude Code's part of `hookwise doctor`: the settings files Claude Code merges (project, local,
 * user) call `hookwise run <Event>` once for each event the plugins need, with a bin that exists;
 * and the run bundle is fresh (warnings only: the unbundled fallback works, only slower).
 */
export async function checkClaudeCodeSetup(context: HostDoctorContext): Promise<void> {
  const { projectDir, ok, warn } = context;
  checkHooksFile(context, {
    read: (['project', 'local', 'user'] as const).map((scope) => readHooksFile(settingsFileOf(scope, projectDir, context.home))),
    label: 'the Claude Code settings',
    eventPoints: EVENT_POINTS,
    always: ['SessionStart'],
    host: claudeCodeHost.name,
    vars: { CLAUDE_PROJECT_DIR: projectDir },
  });
  const { configFile } = context;
  if (configFile) await checkRunBundle({ projectDir, host: claudeCodeHost.name, configFile, runtime: files.runtime }, { ok, warn });
}
