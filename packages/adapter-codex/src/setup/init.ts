import type { HostInitContext, HostInitPlan } from '@hookwise/cli';
import { defaultCommandPrefix, planHooksFileInit } from '@hookwise/cli/command-hook';
import { EVENT_POINTS } from '../binding/events.js';
import { files } from '../hook-process/package-files.js';
import { readHooksFile, timeoutSecondsOf } from './codex-files.js';

/**
 * Codex's part of `hookwise init`: `<project>/.codex/hooks.json` calls this package's bin for each
 * event the plugins need. Codex names no project variable, so the path is absolute: the
 * project's install when there is one.
 */
export async function planCodexInit(context: HostInitContext): Promise<HostInitPlan> {
  const prefix = (context.options['command'] as string | undefined) ?? defaultCommandPrefix(files, context.projectDir, { allowed: true });
  const plan = await planHooksFileInit(context, {
    read: readHooksFile(context.projectDir),
    eventPoints: EVENT_POINTS,
    always: ['SessionStart'],
    commandFor: (event) => `${prefix} run ${event}`,
    timeoutOf: timeoutSecondsOf,
    runtime: files.runtime,
    host: 'codex',
  });
  if (plan.ok && plan.files.length > 0)
    context.stderr(
      'hookwise init: Codex runs these hooks once the project and the hooks are trusted; `hookwise doctor --host codex` says how.',
    );
  return plan;
}
