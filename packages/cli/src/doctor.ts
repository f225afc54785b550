import { accessSync, constants, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HookwiseError, type PointName } from '@hookwise/core';
import { loadConfig } from '@hookwise/core/host';
import type { HostSetup } from './host-setup.js';
import { findProjectConfig, loadProjectEngine, pointsInUse } from './project.js';

export interface DoctorOptions {
  projectDir: string;
  home?: string | undefined;
  /** The host adapter's setup, or why there is none (reported as a problem). */
  setup: HostSetup | { missing: string };
  stdout: (text: string) => void;
}

const MINIMUM_NODE = [20, 19] as const;

/**
 * `hookwise doctor`: one line per check, `✗` lines are problems (exit 1), `!` lines are
 * warnings that do not fail it. The CLI checks Node, the config, the plugins and the state
 * folders; the host adapter then checks its own setup.
 */
export async function doctor(options: DoctorOptions): Promise<number> {
  const { projectDir, stdout, setup } = options;
  const host = 'missing' in setup ? undefined : setup;
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
  // Only a host that starts a process per event (its adapter has a hook command) pays it.
  if (process.env.NODE_EXTRA_CA_CERTS && major < 22 && host?.run)
    warn('NODE_EXTRA_CA_CERTS is set: on Node 20 it makes every hook process start about 3× slower (see the README)');
  if (!host) problem((setup as { missing: string }).missing);

  const configFile = findProjectConfig(projectDir);
  let used: ReadonlyMap<PointName, readonly string[]> = new Map();
  let stateDir = path.join(projectDir, '.hookwise');
  let logFile = path.join(stateDir, 'logs', 'events.jsonl');
  if (!configFile) {
    problem(`no hookwise config in ${projectDir}; run \`hookwise init\``);
  } else {
    try {
      const loaded = await loadConfig(projectDir);
      ok(`config ${path.relative(projectDir, configFile)} is valid`);
      const { engine } = await loadProjectEngine(projectDir, { inMemory: true, host: host?.host ?? 'cli' });
      ok(
        `plugins resolve from the project: ${engine.plugins.map((plugin) => `${plugin.name}@${plugin.version}`).join(', ') || 'none configured'}`,
      );
      used = pointsInUse(engine);
      await engine.dispose();
      if (loaded.config.stateDir) stateDir = path.resolve(projectDir, loaded.config.stateDir);
      logFile = path.resolve(projectDir, loaded.config.eventLog?.path ?? path.join(stateDir, 'logs', 'events.jsonl'));
    } catch (error) {
      used = new Map();
      // Config errors name the file, the line or the plugin and the path; keep them on one line.
      const message = String((error as Error).message).replace(/\s*\n\s*/g, ' | ');
      problem(HookwiseError.isInstance(error) && error.code === 'HW_CONFIG' ? `error in your hookwise config: ${message}` : message);
    }
  }

  for (const [what, directory] of [
    ['state', path.join(stateDir, 'state')],
    ['logs', path.dirname(logFile)],
  ] as const) {
    const why = writable(directory);
    if (why) problem(`${what} folder ${directory} is not writable: ${why}`);
    else ok(`${what} folder ${path.relative(projectDir, directory) || directory} is writable`);
  }

  if (host) await host.doctor({ projectDir, home: options.home, configFile, pointsInUse: used, stdout, stderr: stdout, ok, problem, warn });

  stdout(problems === 0 ? 'No problems found.\n' : `${problems} problem${problems === 1 ? '' : 's'} found.\n`);
  return problems === 0 ? 0 : 1;
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
