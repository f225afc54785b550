import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureCline } from '../../../../scripts/install-cline.mjs';
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
 * Runs the real Cline CLI (3.0.65, its binary installed into ~/.cache/hookwise by
 * scripts/install-cline.mjs; its plugin sandbox on install-pi.mjs's Node 22) offline against the
 * loopback stand-in model, with hookwise installed from the local Verdaccio registry by name and
 * set up by `hookwise init --host cline`. Cline runs under `unshare -n` (only loopback, reaching
 * the stand-in through test-support/netns.mjs) where the machine allows it.
 *
 * When a scenario fails: `HOOKWISE_E2E_KEEP=1` keeps the scratch folder.
 */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The workspace packages a Cline user installs (@hookwise/cli brings `hookwise init`). */
export const PUBLISHED = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'adapter-cline', 'cli'] as const;

export interface ScratchInstall extends RegistryInstall {
  cline: { cline: string; node: string };
}

export async function createScratchInstall(): Promise<ScratchInstall> {
  const cline = ensureCline();
  // The registry is needed only to install: Cline loads the plugin from the project.
  const install = await installFromRegistry('cline', PUBLISHED, { env: shellEnv(), keepRegistry: false, beforeRemove: killLeftovers });
  return { ...install, cline };
}

/** Ends, by pid, any process whose arguments name the scratch folder (a plugin sandbox left behind). */
function killLeftovers(root: string): void {
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (Number(pid) !== process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(root)) process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone already, or not ours to read.
    }
  }
}

export interface Project {
  dir: string;
  home: string;
  hookwise(args: string[]): string;
  /** `cline --json <prompt>` in the project, to its end. */
  run(prompt: string, options?: { compaction?: 'agentic' | 'off' }): Promise<HostRun>;
  /** Cline's stored transcript of the newest session (Anthropic-style blocks). */
  storedMessages(): Array<Record<string, any>>;
  events(): Array<Record<string, any>>;
}

export interface ProjectOptions extends ProjectFiles {
  model: { port: number; socketPath?: string };
  init?: boolean;
}

/** A project below the install with a scratch HOME whose only provider is the stand-in; then `hookwise init --host cline`. */
export function createProject(install: ScratchInstall, name: string, options: ProjectOptions): Project {
  const dir = path.join(install.installDir, name);
  const home = path.join(install.root, 'home', name);
  const tmp = path.join(install.root, 'tmp', name);
  for (const folder of [dir, home, tmp]) mkdirSync(folder, { recursive: true });
  writeProjectFiles(dir, options);
  const env: Record<string, string> = {
    ...shellEnv(),
    HOME: home,
    TMPDIR: tmp,
    CLINE_SESSION_BACKEND_MODE: 'local',
    CLINE_NO_AUTO_UPDATE: '1',
    CLINE_JS_RUNTIME_PATH: install.cline.node,
    CLINE_PLUGIN_IMPORT_TIMEOUT_MS: '30000',
    CLINE_MESSAGE_BUILDER_MAX_TOOL_RESULT_CHARS: '200000',
  };
  const auth = spawnSync(
    install.cline.cline,
    ['auth', '-p', 'openai-compatible', '-k', 'dummy-key', '-m', 'standin-model', '-b', `http://127.0.0.1:${options.model.port}/v1`],
    { cwd: dir, env, encoding: 'utf8' },
  );
  if (auth.status !== 0) throw new Error(`cline auth failed: ${auth.stderr}`);
  const sessionsDir = path.join(home, '.cline', 'data', 'sessions');
  const project: Project = {
    dir,
    home,
    hookwise: installedHookwise(install.installDir, dir, shellEnv()),
    run(prompt, runOptions = {}) {
      const args = ['--json', '--compaction', runOptions.compaction ?? 'off', prompt];
      const isolate =
        install.isolated && options.model.socketPath ? { socketPath: options.model.socketPath, port: options.model.port } : undefined;
      const command = isolatedCommand(install.cline.cline, args, isolate);
      return runHost(command.command, command.args, dir, env);
    },
    storedMessages() {
      const ids = readdirSync(sessionsDir).sort();
      const id = ids.at(-1)!;
      return JSON.parse(readFileSync(path.join(sessionsDir, id, `${id}.messages.json`), 'utf8')).messages;
    },
    events: () => readJsonLines(path.join(dir, '.hookwise', 'logs', 'events.jsonl')),
  };
  if (options.init !== false) project.hookwise(['init', '--host', 'cline']);
  return project;
}
