import { existsSync } from 'node:fs';
import path from 'node:path';
import type { HostInitContext, HostInitPlan } from '@hookwise/cli';
import { buildRunBundle, isManifestFresh, readManifest } from '@hookwise/cli/command-hook';
import { eventsForPoints, findProjectConfig, mergeHookwiseHooks } from '@hookwise/core/command-hook';
import { EVENT_POINTS, type MappedEvent } from '../binding/events.js';
import { binPath, runtimeFile } from '../hook-process/package-files.js';
import { readHooksFile, timeoutSecondsOf } from './codex-files.js';

/**
 * Codex's part of `hookwise init`: one `hookwise run <Event>` command hook per event the plugins
 * need, merged into `<project>/.codex/hooks.json` (keeping every other hook); once written, the
 * run bundle is built so the first hook call does not pay for it.
 */
export async function planCodexInit(context: HostInitContext): Promise<HostInitPlan> {
  const { projectDir, stderr, relative } = context;
  let events: MappedEvent[];
  try {
    events = eventsForPoints(EVENT_POINTS, (await context.pointsInUse()).keys(), ['SessionStart']);
  } catch (error) {
    events = Object.keys(EVENT_POINTS) as MappedEvent[];
    stderr(
      `hookwise init: could not load the plugins (${String((error as Error)?.message ?? error).split('\n')[0]}); registering every event hookwise handles. Install the plugins, then run \`hookwise init --host codex\` again.`,
    );
  }
  const read = readHooksFile(projectDir);
  if (!read.ok) return { ok: false, message: `${read.message}; fix or remove it, then run init again` };
  const prefix = (context.options['command'] as string | undefined) ?? `node ${JSON.stringify(localBin(projectDir) ?? binPath())}`;
  const merged = mergeHookwiseHooks(read.value, events, (event) => `${prefix} run ${event}`, timeoutSecondsOf);
  const files = merged.changed
    ? [
        {
          file: read.file,
          before: read.text,
          after: `${JSON.stringify(merged.settings, null, 2)}\n`,
          summary: `${read.text === undefined ? 'write' : 'update'} ${relative(read.file)}: hookwise runs on ${events.join(', ')}`,
          backup: read.text !== undefined,
        },
      ]
    : [];
  return {
    ok: true,
    files,
    finish: async () => {
      const configFile = findProjectConfig(projectDir);
      const manifest = readManifest(projectDir);
      if (configFile && !(manifest?.bundle && isManifestFresh(manifest, { configFile, runtime: runtimeFile() }))) {
        const built = await buildRunBundle({ projectDir, configFile, runtime: runtimeFile() });
        if (!built.ok) stderr(`hookwise init: hook calls will use the slower unbundled path: ${built.reason}`);
      }
      stderr('hookwise init: Codex runs these hooks once the project and the hooks are trusted; `hookwise doctor --host codex` says how.');
    },
  };
}

/** This package's bin inside the project, when installed there. Codex names no project variable, so the path is absolute. */
function localBin(projectDir: string): string | undefined {
  const local = path.join(projectDir, 'node_modules', '@hookwise', 'adapter-codex', 'bin', 'hookwise.cjs');
  return existsSync(local) ? local : undefined;
}
