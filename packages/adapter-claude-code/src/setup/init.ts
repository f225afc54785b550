import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { HostInitContext, HostInitPlan } from '@hookwise/cli';
import { buildBundleIfStale } from '@hookwise/cli/command-hook';
import { claudeCodeHost, findProjectConfig } from '../hook-process/hook-call.js';
import { EVENT_POINTS, type MappedEvent } from '../binding/events.js';
import { eventsForPoints, mergeHookwiseHooks, readSettings, settingsFileOf, type SettingsScope } from './settings.js';
import { binPath, runtimeFile } from '../hook-process/package-files.js';

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
  const prefix = command ?? defaultCommandPrefix(projectDir, binPath(), scope);
  const merged = mergeHookwiseHooks(settings.value, events, (event) => `${prefix} run ${event}`);
  const files = [];
  if (merged.changed) {
    const before = existsSync(settingsFile) ? readFileSync(settingsFile, 'utf8') : undefined;
    files.push({
      file: settingsFile,
      before,
      after: `${JSON.stringify(merged.settings, null, 2)}\n`,
      summary: `${before === undefined ? 'write' : 'update'} ${relative(settingsFile)}: hookwise runs on ${events.join(', ')}`,
      backup: before !== undefined,
    });
  }
  return {
    ok: true,
    files,
    finish: () =>
      buildBundleIfStale(
        { projectDir, host: claudeCodeHost.name, configFile: findProjectConfig(projectDir), runtime: runtimeFile() },
        stderr,
      ),
  };
}

/**
 * The command settings run: this package's bin inside the project when it is installed there
 * (so the settings file can be committed and works on every checkout), else this bin by its
 * absolute path. `node` is named directly: a package-manager shim (npx) costs 100+ ms per call.
 */
export function defaultCommandPrefix(projectDir: string, bin: string, scope: SettingsScope): string {
  const local = path.join(projectDir, 'node_modules', '@hookwise', 'adapter-claude-code', 'bin', 'hookwise.cjs');
  if (scope !== 'user' && existsSync(local))
    return 'node "$CLAUDE_PROJECT_DIR/node_modules/@hookwise/adapter-claude-code/bin/hookwise.cjs"';
  return `node ${JSON.stringify(bin)}`;
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0] ?? '';
}
