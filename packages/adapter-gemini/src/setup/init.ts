import { existsSync } from 'node:fs';
import path from 'node:path';
import type { HostInitContext, HostInitPlan } from '@hookwise/cli';
import { buildBundleIfStale } from '@hookwise/cli/command-hook';
import { findProjectConfig } from '@hookwise/core/command-hook';
import { geminiHost } from '../hook-process/hook-call.js';
import { EVENT_POINTS, eventsForPoints, type MappedEvent } from '../events.js';
import { binPath, runtimeFile } from '../hook-process/package-files.js';
import { mergeHookwiseHooks, readSettings, settingsFileOf } from './settings.js';

/**
 * `hookwise init --host gemini`: one `hookwise run <Event>` command per event the plugins need,
 * merged into `.gemini/settings.json` (a backup kept, every other hook and setting left as it
 * was); then the run bundle is built so the first hook call does not pay for it.
 */
export async function planGeminiInit(context: HostInitContext): Promise<HostInitPlan> {
  const { projectDir, stderr, relative } = context;
  const scope = context.options['scope'] === 'user' ? 'user' : 'project';
  let events: MappedEvent[];
  try {
    events = eventsForPoints((await context.pointsInUse()).keys());
  } catch (error) {
    events = Object.keys(EVENT_POINTS) as MappedEvent[];
    stderr(
      `hookwise init: could not load the plugins (${String((error as Error)?.message ?? error).split('\n')[0]}); registering every event hookwise handles.`,
    );
  }
  const file = settingsFileOf(scope, projectDir, context.home ?? '');
  const read = readSettings(file);
  if (!read.ok) return { ok: false, message: `${read.message}; fix it, then run init again` };
  const prefix = (context.options['command'] as string | undefined) ?? defaultCommandPrefix(projectDir, scope);
  const merged = mergeHookwiseHooks(read.value, events, (event) => `${prefix} run ${event}`);
  const files = merged.changed
    ? [
        {
          file,
          before: read.text,
          after: `${JSON.stringify(merged.settings, null, 2)}\n`,
          summary: `${read.text === undefined ? 'write' : 'update'} ${relative(file)}: hookwise runs on ${events.join(', ')}`,
          backup: read.text !== undefined,
        },
      ]
    : [];
  return {
    ok: true,
    files,
    finish: () =>
      buildBundleIfStale({ projectDir, host: geminiHost.name, configFile: findProjectConfig(projectDir), runtime: runtimeFile() }, stderr),
  };
}

/**
 * The project's own install when there is one (Gemini replaces `$GEMINI_PROJECT_DIR` with the
 * shell-quoted project path, so the settings file can be committed), else this bin's path.
 * `node` directly: a package-manager shim costs 100+ ms per call.
 */
export function defaultCommandPrefix(projectDir: string, scope: 'project' | 'user'): string {
  const local = path.join('node_modules', '@hookwise', 'adapter-gemini', 'bin', 'hookwise.cjs');
  if (scope === 'project' && existsSync(path.join(projectDir, local))) return `node $GEMINI_PROJECT_DIR/${local.split(path.sep).join('/')}`;
  return `node ${JSON.stringify(binPath())}`;
}
