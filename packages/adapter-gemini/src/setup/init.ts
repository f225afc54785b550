import { existsSync } from 'node:fs';
import path from 'node:path';
import type { HostInitContext, HostInitPlan } from '@hookwise/cli';
import { planHooksFileInit } from '@hookwise/cli/command-hook';
import { EVENT_POINTS } from '../binding/events.js';
import { binPath, runtimeFile } from '../hook-process/package-files.js';
import { ENTRY_FIELDS, HOOK_TIMEOUT_MS, readSettings, settingsFileOf } from './gemini-files.js';

/**
 * `hookwise init --host gemini`: one `hookwise run <Event>` command per event the plugins need,
 * merged into `.gemini/settings.json` (or the user's with `--scope user`), every other hook and
 * setting kept; then the run bundle is built so the first hook call does not pay for it.
 */
export async function planGeminiInit(context: HostInitContext): Promise<HostInitPlan> {
  const scope = context.options['scope'] === 'user' ? 'user' : 'project';
  const prefix = (context.options['command'] as string | undefined) ?? defaultCommandPrefix(context.projectDir, scope);
  return planHooksFileInit(context, {
    read: readSettings(settingsFileOf(scope, context.projectDir, context.home ?? '')),
    eventPoints: EVENT_POINTS,
    always: ['SessionStart'],
    commandFor: (event) => `${prefix} run ${event}`,
    timeoutOf: () => HOOK_TIMEOUT_MS,
    fields: ENTRY_FIELDS,
    runtime: runtimeFile,
    host: 'gemini',
  });
}

/**
 * The project's own install when there is one (Gemini replaces `$GEMINI_PROJECT_DIR` with the
 * shell-quoted project path, so the settings file can be committed), else this bin's path.
 * `node` directly: a package-manager shim costs 100+ ms per call.
 */
export function defaultCommandPrefix(projectDir: string, scope: 'project' | 'user'): string {
  const local = path.join('node_modules', '@hookwise', 'adapter-gemini', 'bin', 'hookwise.cjs');
  if (scope === 'project' && existsSync(path.join(projectDir, local))) return `node $GEMINI_PROJECT_DIR/${local.split(path.sep).join('/')}`;
  return `node ${JSON.stringify(binPath)}`;
}
