import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePi, newestSessionFile, writeAgentDir } from './offline-pi.mjs';
import {
  installedHookwise,
  readJsonLines,
  runHost,
  shellEnv,
  writeProjectFiles,
  type HostRun,
  type ProjectFiles,
} from '../../../../test-support/host-e2e.js';
import { isolatedCommand } from '../../../../test-support/netns.mjs';
import { installFromRegistry, type RegistryInstall } from '../../../../test-support/registry.js';

/**
 * Runs the real pi (1.5.2, installed with its Node 22 into ~/.cache/hookwise by
 * scripts/install-pi.mjs) offline against the loopback stand-in model, with hookwise installed
 * from the local Verdaccio registry by name — what a user has. One install serves every project
 * of a suite. pi runs under `unshare -n` (only loopback, reaching the stand-in through
 * test-support/netns.mjs) where the machine allows it, else on the host's loopback.
 *
 * When a scenario fails: `HOOKWISE_E2E_KEEP=1` keeps the scratch folder.
 */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The workspace packages a pi user installs (@hookwise/cli brings `hookwise init`). */
export const PUBLISHED = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'adapter-pi', 'cli'] as const;

interface PiPaths {
  piCli: string;
  nodeBinDir: string;
}

export interface ScratchInstall extends RegistryInstall {
  pi: PiPaths;
}

/** Installs pi (cached), starts Verdaccio with the workspace's packages and installs them by name. */
export async function createScratchInstall(): Promise<ScratchInstall> {
  const pi = ensurePi() as PiPaths;
  return { ...(await installFromRegistry('pi', PUBLISHED, { env: shellEnv() })), pi };
}

export type PiRun = HostRun;

export interface Project {
  dir: string;
  agentDir: string;
  hookwise(args: string[]): string;
  /** `pi -p <prompt> [<prompt>…]` to the end: each prompt after the previous one settled. */
  run(prompts: string[]): Promise<PiRun>;
  /** pi's session file of this project (the newest). */
  sessionFile(): string;
  sessionEntries(): Array<Record<string, any>>;
  events(): Array<Record<string, any>>;
}

export interface ProjectOptions extends ProjectFiles {
  model: { port: number; socketPath?: string };
  contextWindow?: number;
  compaction?: { reserveTokens: number; keepRecentTokens: number };
  init?: boolean;
}

/**
 * A project below the install with its own pi agent folder (`PI_CODING_AGENT_DIR`: the stand-in
 * as its only model, projects trusted), then `hookwise init --host pi` as a user runs it.
 */
export function createProject(install: ScratchInstall, name: string, options: ProjectOptions): Project {
  const dir = path.join(install.installDir, name);
  const agentDir = path.join(install.root, 'agents', name);
  const tmp = path.join(install.root, 'tmp', name);
  const home = path.join(install.root, 'home');
  for (const folder of [dir, agentDir, tmp, home]) mkdirSync(folder, { recursive: true });
  // The same agent folder the demo gives pi.
  writeAgentDir(agentDir, {
    baseURL: `http://127.0.0.1:${options.model.port}/v1`,
    contextWindow: options.contextWindow ?? 32_000,
    ...(options.compaction ? { compaction: options.compaction } : {}),
  });
  writeProjectFiles(dir, options);
  const env: Record<string, string> = {
    ...shellEnv(),
    PATH: `${install.pi.nodeBinDir}${path.delimiter}${process.env['PATH'] ?? '/usr/bin:/bin'}`,
    HOME: home,
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: '1',
    PI_TELEMETRY: '0',
    PI_SKIP_VERSION_CHECK: '1',
    TMPDIR: tmp,
  };
  const project: Project = {
    dir,
    agentDir,
    hookwise: installedHookwise(install.installDir, dir, shellEnv()),
    run(prompts) {
      const piArgs = [install.pi.piCli, '-p', ...prompts];
      const isolate =
        install.isolated && options.model.socketPath ? { socketPath: options.model.socketPath, port: options.model.port } : undefined;
      const command = isolatedCommand(path.join(install.pi.nodeBinDir, 'node'), piArgs, isolate);
      return runHost(command.command, command.args, dir, env);
    },
    sessionFile: () => newestSessionFile(agentDir),
    sessionEntries: () => readJsonLines(project.sessionFile()),
    events: () => readJsonLines(path.join(dir, '.hookwise', 'logs', 'events.jsonl')),
  };
  if (options.init !== false) project.hookwise(['init', '--host', 'pi']);
  return project;
}
