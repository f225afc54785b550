import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  eventsForPoints,
  findProjectConfig,
  hookwiseEventsIn,
  mergeHookwiseHooks,
  missingCommandFile,
  type HookSettings,
} from '@hookwise/core/command-hook';
import type { JsonObjectRead } from '@hookwise/core/host';
import type { HostDoctorContext, HostInitContext, HostInitPlan } from '../host-setup.js';
import { buildBundleIfStale } from './bundle.js';

// What `hookwise init` and `doctor` of a command-hook host share: the adapter's own files, the
// hooks settings file with one `hookwise run <Event>` per needed event, and its check.

/** A command-hook adapter's files from one of its modules' URL: the nearest folder above with a package.json (modules sit at several depths of dist/). */
export function adapterFiles(moduleUrl: string): { root: string; bin: string; runtime: string } {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return { root: dir, bin: path.join(dir, 'bin', 'hookwise.cjs'), runtime: path.join(dir, 'dist', 'hook-process', 'bundle-runtime.js') };
}

export interface HooksFileInit {
  /** The hooks settings file as read (absent: init writes it). */
  read: JsonObjectRead;
  /** The host's event map (events → points), in the order the file lists them. */
  eventPoints: Readonly<Record<string, readonly string[]>>;
  /** Events registered whatever the plugins use (SessionStart: plugin commands need the last session). */
  always: readonly string[];
  commandFor: (event: string) => string;
  /** The `timeout` written with each entry, in the host's unit. */
  timeoutOf: (event: string) => number;
  /** The adapter's bundle run-time (see `adapterFiles`). */
  runtime: string;
  /** The host's name (`CommandHookHost.name`, `--host <name>`): its run bundle's folder, and the messages. */
  host: string;
}

/**
 * `hookwise init` for a command-hook host: one `hookwise run <Event>` per event the plugins need,
 * merged into the hooks file (every other hook kept; nothing written when it is already right);
 * once written, the run bundle is built so the first hook call does not pay for it.
 */
export async function planHooksFileInit(context: HostInitContext, init: HooksFileInit): Promise<HostInitPlan> {
  const { projectDir, stderr, relative } = context;
  let events: string[];
  try {
    events = eventsForPoints(init.eventPoints, (await context.pointsInUse()).keys(), init.always);
  } catch (error) {
    events = Object.keys(init.eventPoints);
    stderr(
      `hookwise init: could not load the plugins (${String((error as Error)?.message ?? error).split('\n')[0]}); registering every event hookwise handles. Install the plugins, then run \`hookwise init --host ${init.host}\` again.`,
    );
  }
  const { read } = init;
  if (!read.ok) return { ok: false, message: `${read.message}; fix or remove it, then run init again` };
  const merged = mergeHookwiseHooks(read.value as HookSettings, events, init.commandFor, init.timeoutOf);
  const summary = `${read.text === undefined ? 'write' : 'update'} ${relative(read.file)}: hookwise runs on ${events.join(', ')}`;
  const after = `${JSON.stringify(merged.settings, null, 2)}\n`;
  return {
    ok: true,
    files: merged.changed ? [{ file: read.file, before: read.text, after, summary, backup: read.text !== undefined }] : [],
    finish: () =>
      buildBundleIfStale({ projectDir, host: init.host, configFile: findProjectConfig(projectDir), runtime: init.runtime }, stderr),
  };
}

/**
 * `hookwise doctor`'s check of a hooks file: it calls `hookwise run <Event>` exactly once for each
 * event the plugins need, with a bin that exists (`vars` expands `$NAME` in the command). Returns
 * the events registered.
 */
export function checkHooksFile(
  context: HostDoctorContext,
  check: {
    read: JsonObjectRead;
    label: string;
    eventPoints: Readonly<Record<string, readonly string[]>>;
    host: string;
    vars?: Record<string, string>;
  },
): Map<string, string[]> {
  const { ok, problem } = context;
  const needed = new Map<string, string[]>();
  for (const [point, plugins] of context.pointsInUse)
    for (const [event, points] of Object.entries(check.eventPoints))
      if (points.includes(point))
        needed.set(event, [...new Set([...(needed.get(event) ?? []), ...plugins.map((plugin) => `${plugin} (${point})`)])]);
  if (!check.read.ok) problem(check.read.message);
  const registered = hookwiseEventsIn(check.read.ok ? (check.read.value as HookSettings) : undefined);
  for (const [event, plugins] of needed) {
    const commands = registered.get(event);
    if (!commands)
      problem(
        `${check.label} does not call \`hookwise run ${event}\`, which ${plugins.join(', ')} need; run \`hookwise init --host ${check.host}\``,
      );
    else if (commands.length > 1)
      problem(`\`hookwise run ${event}\` is in ${check.label} ${commands.length} times; each call would run the plugins again — keep one`);
    else {
      const missing = missingCommandFile(commands[0]!, check.vars ?? {}, existsSync);
      if (missing) problem(`the ${event} hook runs ${missing}, which does not exist; run \`hookwise init --host ${check.host}\` again`);
    }
  }
  if (needed.size > 0 && [...needed.keys()].every((event) => registered.get(event)?.length === 1))
    ok(`${check.label} calls hookwise for ${[...needed.keys()].join(', ')}`);
  return registered;
}

/**
 * `hookwise run <args…>` through an adapter's bin, as if the host had called it (hooks written
 * with `--command "npx hookwise"`). The bin ends the process on every path: the promise never settles.
 */
export function runThroughBin(bin: string, args: readonly string[], require: (id: string) => unknown): Promise<never> {
  process.argv = [process.argv[0]!, bin, 'run', ...args];
  require(bin);
  return new Promise<never>(() => undefined);
}
