import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  eventsForPoints,
  findProjectConfig,
  hookwiseEventsIn,
  mergeHookwiseHooks,
  missingCommandFile,
  missingProgram,
  type HookSettings,
} from '@hookwise/core/command-hook';
import { readJsonObject, type JsonObjectRead } from '@hookwise/core/host';
import type { PointName } from '@hookwise/core';
import type { HostDoctorContext, HostInitContext, HostInitPlan, HostOption, HostSetup } from '../host-setup.js';
import { buildBundleIfStale } from './bundle.js';

// What `hookwise init` and `doctor` of a command-hook host share: the adapter's own files, the
// hooks settings file with one `hookwise run <Event>` per needed event, and its check.

/** A command-hook adapter's own files: its folder, its bin (the command the host runs) and the run-time its run bundle includes. */
export interface AdapterFiles {
  root: string;
  bin: string;
  runtime: string;
}

/** A command-hook adapter's files from one of its modules' URL: the nearest folder above with a package.json (modules sit at several depths of dist/). */
export function adapterFiles(moduleUrl: string): AdapterFiles {
  let dir = path.dirname(fileURLToPath(moduleUrl));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return { root: dir, bin: path.join(dir, 'bin', 'hookwise.cjs'), runtime: path.join(dir, 'dist', 'hook-process', 'bundle-runtime.js') };
}

const packageJsonOf = (root: string): { name?: string; bin?: Record<string, string> } =>
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name?: string; bin?: Record<string, string> };

/**
 * The command prefix `init` writes unless `--command` says otherwise: `node` and the adapter's bin
 * as installed in the project when `local` allows it and it is there (through the host's project
 * variable when it has one, so the file can be committed; `varQuotedByHost` when the host puts
 * the value in shell-quoted itself), else this bin's own path. `node` directly: a
 * package-manager shim costs 100+ ms per call.
 */
export function defaultCommandPrefix(
  files: Pick<AdapterFiles, 'root' | 'bin'>,
  projectDir: string,
  local: { allowed: boolean; projectVar?: string; varQuotedByHost?: boolean },
): string {
  const installed = ['node_modules', packageJsonOf(files.root).name ?? '', 'bin', 'hookwise.cjs'].join('/');
  if (!local.allowed || !existsSync(path.join(projectDir, installed))) return `node ${JSON.stringify(files.bin)}`;
  if (!local.projectVar) return `node ${JSON.stringify(path.join(projectDir, installed))}`;
  const file = `$${local.projectVar}/${installed}`;
  return `node ${local.varQuotedByHost ? file : `"${file}"`}`;
}

/**
 * A command-hook adapter's `HostSetup` (package.json's `"hookwise"` field points the CLI to it):
 * its `init` and `doctor`, its own init options, the `--command <prefix>` option every such host
 * takes, and `hookwise run` through its bin (see {@link runThroughBin}).
 */
export function commandHookSetup(
  files: AdapterFiles,
  setup: Pick<HostSetup, 'host' | 'describe' | 'init' | 'doctor'> & { initOptions?: readonly HostOption[] },
): HostSetup {
  const bin = Object.keys(packageJsonOf(files.root).bin ?? {})[0] ?? 'hookwise';
  const command = {
    flags: '--command <prefix>',
    description: `command prefix the hooks call, e.g. "npx ${bin}" (default: node and the path of this adapter's bin)`,
  };
  return { ...setup, initOptions: [...(setup.initOptions ?? []), command], run: (args) => runThroughBin(files.bin, args) };
}

/**
 * Reads a host's JSON hooks file (absent: init writes it); an empty one is `{}`. Some hosts
 * accept comments there (Gemini CLI); hookwise writes plain JSON, so a file with comments is
 * refused, with what is wrong, rather than rewritten without them.
 */
export function readHooksFile(file: string): JsonObjectRead {
  const read = readJsonObject(file);
  if (read.ok) return read;
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return { ok: true, file, value: {}, text };
  return /^\s*\/\/|\/\*/m.test(text)
    ? { ok: false, file, message: `${file} is not plain JSON (it has comments, which hookwise would not keep)` }
    : read;
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
  /** Further fields each entry carries (a `name` the host shows). */
  fields?: Readonly<Record<string, unknown>>;
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
  const merged = mergeHookwiseHooks(read.value as HookSettings, events, init.commandFor, init.timeoutOf, init.fields);
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
 * `hookwise doctor`'s check of the hooks files a host reads: together they call `hookwise run
 * <Event>` exactly once for each event the plugins need (and each of `always`), with a command
 * that resolves (`vars` expands `$NAME` in it; with `programs`, a program other than node must be
 * on PATH; `unresolvedMeans` says what the host does then). Returns the events registered.
 */
export function checkHooksFile(
  context: HostDoctorContext,
  check: {
    read: JsonObjectRead | readonly JsonObjectRead[];
    label: string;
    eventPoints: Readonly<Record<string, readonly string[]>>;
    host: string;
    vars?: Record<string, string>;
    always?: readonly string[];
    programs?: boolean;
    unresolvedMeans?: string;
    /**
     * Warn of each point in use that no event of `eventPoints` feeds (it never runs under this
     * host), in the host's words when a text is given for the point.
     */
    unserved?: Partial<Record<PointName, string>>;
  },
): Map<string, string[]> {
  const { ok, problem } = context;
  // In the host's event order: the plugins (and points) that need each event.
  const needed = new Map<string, string[]>();
  for (const [event, points] of Object.entries(check.eventPoints)) {
    const plugins = [...context.pointsInUse].flatMap(([point, names]) =>
      points.includes(point) ? names.map((name) => `${name} (${point})`) : [],
    );
    if (plugins.length > 0 || check.always?.includes(event)) needed.set(event, [...new Set(plugins)]);
  }
  const reads = Array.isArray(check.read) ? (check.read as readonly JsonObjectRead[]) : [check.read as JsonObjectRead];
  for (const read of reads) if (!read.ok) problem(read.message);
  const registered = hookwiseEventsIn(...reads.map((read) => (read.ok ? (read.value as HookSettings) : undefined)));
  const again = `run \`hookwise init --host ${check.host}\``;
  for (const [event, plugins] of needed) {
    const commands = registered.get(event);
    const which = plugins.length > 0 ? `, which ${plugins.join(', ')} need` : '';
    if (!commands) problem(`the hooks in ${check.label} do not call \`hookwise run ${event}\`${which}; ${again}`);
    else if (commands.length > 1)
      problem(`\`hookwise run ${event}\` is in ${check.label} ${commands.length} times; each call would run the plugins again — keep one`);
    else {
      const missing =
        missingCommandFile(commands[0]!, check.vars ?? {}, existsSync) ??
        (check.programs ? missingProgram(commands[0]!, process.env.PATH ?? '', isExecutable) : undefined);
      const means = check.unresolvedMeans ? `: ${check.unresolvedMeans}` : '';
      if (missing) problem(`the ${event} hook runs ${missing}, which does not resolve${means}; ${again} again`);
    }
  }
  if (needed.size > 0 && [...needed.keys()].every((event) => registered.get(event)?.length === 1))
    ok(`the hooks in ${check.label} call hookwise for ${[...needed.keys()].join(', ')}`);
  const fed = new Set(Object.values(check.eventPoints).flat());
  if (check.unserved)
    for (const [point, plugins] of context.pointsInUse)
      if (!fed.has(point))
        context.warn(
          `${check.unserved[point] ?? `no ${check.host} hook event feeds ${point}: it never runs there`} (${plugins.join(', ')})`,
        );
  return registered;
}

function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `hookwise run <args…>` through an adapter's bin, as if the host had called it (hooks written
 * with `--command "npx hookwise"`). The bin ends the process on every path: the promise never settles.
 */
export function runThroughBin(
  bin: string,
  args: readonly string[],
  require: (id: string) => unknown = createRequire(import.meta.url),
): Promise<never> {
  process.argv = [process.argv[0]!, bin, 'run', ...args];
  require(bin);
  return new Promise<never>(() => undefined);
}
