import type { HostInitContext, HostInitPlan } from '@hookwise/cli';
import { defaultCommandPrefix, planHooksFileInit, readHooksFile } from '@hookwise/cli/command-hook';
import { EVENT_POINTS } from '../binding/events.js';
import { files } from '../hook-process/package-files.js';
import { ENTRY_FIELDS, HOOK_TIMEOUT_MS, settingsFileOf } from './gemini-files.js';

/**
 * `hookwise init --host gemini`: one `hookwise run <Event>` command per event the plugins need,
 * merged into `.gemini/settings.json` (or the user's with `--scope user`), every other hook and
 * setting kept; then the run bundle is built so the first hook call does not pay for it.
 */
export async function planGeminiInit(context: HostInitContext): Promise<HostInitPlan> {
  const scope = context.options['scope'] === 'user' ? 'user' : 'project';
  // The project's install through `$GEMINI_PROJECT_DIR`, which Gemini replaces with the shell-quoted project path.
  const local = { allowed: scope === 'project', projectVar: 'GEMINI_PROJECT_DIR', varQuotedByHost: true };
  const prefix = (context.options['command'] as string | undefined) ?? defaultCommandPrefix(files, context.projectDir, local);
  return planHooksFileInit(context, {
    read: readHooksFile(settingsFileOf(scope, context.projectDir, context.home ?? '')),
    eventPoints: EVENT_POINTS,
    always: ['SessionStart'],
    commandFor: (event) => `${prefix} run ${event}`,
    timeoutOf: () => HOOK_TIMEOUT_MS,
    fields: ENTRY_FIELDS,
    runtime: files.runtime,
    host: 'gemini',
  });
}
