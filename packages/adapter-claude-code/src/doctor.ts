import { accessSync, constants, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '@hookwise/core/host';
import { buildRunBundle, bundlePathOf, isManifestFresh, readManifest, recentWriteFailure } from './bundle.js';
import { POINT_EVENTS } from './events.js';
import { loadProjectEngine, pointsInUse, readSettings } from './project.js';
import { checkOpenCodePlugin } from './opencode-setup.js';
import { findProjectConfig } from './run.js';
import { hookwiseEventsIn, settingsFileOf, type Settings } from './settings.js';

export interface DoctorOptions {
  projectDir: string;
  home?: string | undefined;
  runtime: string;
  /** Which agent's setup to check: Claude Code's settings hooks (default) or OpenCode's opencode.json. */
  host?: 'claude-code' | 'opencode' | undefined;
  stdout: (text: string) => void;
}

const MINIMUM_NODE = [20, 19] as const;

/**
 * `hookwise doctor`: one line per check, `✗` lines are problems (exit 1), `!` lines are
 * warnings that do not fail it (the unbundled fallback works, only slower).
 */
export async function doctor(options: DoctorOptions): Promise<number> {
  const { projectDir, stdout } = options;
  let problems = 0;
  const ok = (text: string) => stdout(`✓ ${text}\n`);
  const problem = (text: string) => {
    problems++;
    stdout(`✗ ${text}\n`);
  };
  const warn = (text: string) => stdout(`! ${text}\n`);

  const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
  if (major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1])) ok(`Node ${process.versions.node}`);
  else problem(`Node ${process.versions.node} is too old: hookwise needs ${MINIMUM_NODE.join('.')} or newer`);
  if (process.env.NODE_EXTRA_CA_CERTS && major < 22) warn('NODE_EXTRA_CA_CERTS is set: on Node 20 it makes every hook call start about 3× slower (see the README)');

  const configFile = findProjectConfig(projectDir);
  let needed = new Map<string, string[]>();
  let stateDir = path.join(projectDir, '.hookwise');
  let logFile = path.join(stateDir, 'logs', 'events.jsonl');
  if (!configFile) {
    problem(`no hookwise config in ${projectDir}; run \`hookwise init\``);
  } else {
    try {
      const loaded = await loadConfig(projectDir);
      ok(`config ${path.relative(projectDir, configFile)} is valid`);
      const { engine } = await loadProjectEngine(projectDir, { inMemory: true });
      ok(`plugins resolve from the project: ${engine.plugins.map((plugin) => `${plugin.name}@${plugin.version}`).join(', ') || 'none configured'}`);
      for (const [point, plugins] of pointsInUse(engine)) {
        for (const event of POINT_EVENTS[point]) needed.set(event, [...new Set([...(needed.get(event) ?? []), ...plugins.map((plugin) => `${plugin} (${point})`)])]);
      }
      await engine.dispose();
      if (loaded.config.stateDir) stateDir = path.resolve(projectDir, loaded.config.stateDir);
      logFile = path.resolve(projectDir, loaded.config.eventLog?.path ?? path.join(stateDir, 'logs', 'events.jsonl'));
    } catch (error) {
      needed = new Map();
      // Config errors name the file, the plugin and the path; keep them on one line.
      problem(String((error as Error).message).replace(/\s*\n\s*/g, ' | '));
    }
  }

  if (options.host === 'opencode') {
    const plugin = checkOpenCodePlugin(projectDir);
    for (const line of plugin.ok) ok(line);
    for (const line of plugin.problems) problem(line);
  } else {
    // Settings: every settings file Claude Code merges.
    const settingsList: Settings[] = [];
    for (const scope of ['project', 'local', 'user'] as const) {
      const file = settingsFileOf(scope, projectDir, options.home);
      const read = readSettings(file);
      if (!read.ok) problem(read.message);
      else settingsList.push(read.value);
    }
    const registered = hookwiseEventsIn(...settingsList);
    for (const [event, plugins] of needed) {
      const commands = registered.get(event);
      if (!commands) problem(`the settings do not call \`hookwise run ${event}\`, which ${plugins.join(', ')} need; run \`hookwise init\``);
      else if (commands.length > 1) problem(`\`hookwise run ${event}\` is registered ${commands.length} times across the settings files; each call would run the plugins again — keep one`);
      else {
        const missing = missingBin(commands[0]!, projectDir);
        if (missing) problem(`the ${event} hook runs ${missing}, which does not exist; run \`hookwise init\` again`);
      }
    }
    if (needed.size > 0 && [...needed.keys()].every((event) => registered.get(event)?.length === 1)) ok(`settings call hookwise for ${[...needed.keys()].join(', ')}`);
  }

  for (const [what, directory] of [
    ['state', path.join(stateDir, 'state')],
    ['logs', path.dirname(logFile)],
  ] as const) {
    const why = writable(directory);
    if (why) problem(`${what} folder ${directory} is not writable: ${why}`);
    else ok(`${what} folder ${path.relative(projectDir, directory) || directory} is writable`);
  }

  // The run bundle only serves Claude Code's hook processes; OpenCode loads hookwise in-process.
  if (configFile && options.host !== 'opencode') {
    // Report what hook calls actually do, which the manifest records (hook calls read it
    // too): a failed build there means every call takes the unbundled path, whatever a
    // rebuild in this process would do. Then try a rebuild, so doctor also fixes it.
    const manifest = readManifest(projectDir);
    const fresh = manifest !== undefined && isManifestFresh(manifest, { configFile, runtime: options.runtime });
    if (fresh && manifest.bundle && bundlePathOf(projectDir, manifest)) ok(`hook calls use the cached run bundle (.hookwise/cache/${manifest.bundle})`);
    else {
      // Only lasting causes are recorded (a race with another build is not): calls stop building until a watched file changes.
      if (fresh && manifest.failed) warn(`hook calls use the unbundled path (about 4× slower to start): the last build failed: ${manifest.failed} (a lasting cause: calls do not build again until the config or a package it uses changes)`);
      else if (recentWriteFailure(projectDir)) warn('the last build could not be written (a full, read-only or forbidden disk): hook calls use the unbundled path and try again after a minute');
      else if (fresh && manifest.bundle) warn(`the manifest names .hookwise/cache/${manifest.bundle}, which is missing or not a regular file`);
      else warn(manifest ? 'the run bundle is out of date (a watched file changed); the next hook call rebuilds it' : 'no run bundle has been built yet');
      const built = await buildRunBundle({ projectDir, configFile, runtime: options.runtime });
      if (built.ok) ok(`rebuilt the run bundle: hook calls now use .hookwise/cache/${built.manifest.bundle}`);
      else warn(`rebuilding the run bundle failed, hook calls keep the unbundled path: ${built.reason}`);
    }
  }

  stdout(problems === 0 ? 'No problems found.\n' : `${problems} problem${problems === 1 ? '' : 's'} found.\n`);
  return problems === 0 ? 0 : 1;
}

/** The file a `node "<file>" run …` command names, when it does not exist. */
function missingBin(command: string, projectDir: string): string | undefined {
  const match = /^\s*node\s+("([^"]+)"|'([^']+)'|(\S+))/.exec(command);
  const file = match?.[2] ?? match?.[3] ?? match?.[4];
  if (!file) return undefined;
  const expanded = file.replace(/\$\{?CLAUDE_PROJECT_DIR\}?/g, projectDir);
  return existsSync(expanded) ? undefined : expanded;
}

function writable(directory: string): string | undefined {
  try {
    mkdirSync(directory, { recursive: true });
    accessSync(directory, constants.W_OK);
    const probe = path.join(directory, `.doctor-${process.pid}.tmp`);
    writeFileSync(probe, '');
    rmSync(probe);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}
