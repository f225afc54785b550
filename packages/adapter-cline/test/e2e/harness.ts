import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
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
import { installProject, specifiersOf, startRegistry, type LocalRegistry } from '../../../../test-support/registry.js';

/**
 * Runs the real Cline CLI (3.0.65, its binary installed into ~/.cache/hookwise by
 * scripts/install-cline.mjs; its plugin sandbox on install-pi.mjs's Node 22) offline against the
 * loopback stand-in model, with hookwise installed from the local Verdaccio registry by name and
 * set up by `hookwise init --host cline`. Cline runs under `unshare -n` (only loopback, reaching
 * the stand-in through adapter-pi's netns-bridge.mjs) where the machine allows it.
 *
 * When a scenario fails: `HOOKWISE_E2E_KEEP=1` keeps the scratch folder.
 */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BRIDGE = path.join(packageRoot, '..', 'adapter-pi', 'test', 'e2e', 'netns-bridge.mjs');

/** The workspace packages a Cline user installs (@hookwise/cli brings `hookwise init`). */
export const PUBLISHED = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'adapter-cline', 'cli'] as const;

export function networkNamespaceAvailable(): boolean {
  return spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' }).status === 0;
}

export interface ScratchInstall {
  root: string;
  installDir: string;
  cline: { cline: string; node: string };
  isolated: boolean;
  remove(): Promise<void>;
}

export async function createScratchInstall(): Promise<ScratchInstall> {
  const cline = ensureCline();
  for (const folder of PUBLISHED)
    if (!existsSync(path.join(packageRoot, '..', folder, 'dist', 'index.js')))
      throw new Error(`packages/${folder} has no dist/ yet; build first (CI runs build before test)`);
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-cline-')));
  const installDir = path.join(root, 'install');
  const registry: LocalRegistry = await startRegistry(PUBLISHED);
  try {
    installProject('npm', registry, installDir, specifiersOf(PUBLISHED), shellEnv());
  } finally {
    await registry.stop();
  }
  return {
    root,
    installDir,
    cline,
    isolated: networkNamespaceAvailable(),
    async remove() {
      killLeftovers(root);
      if (!process.env['HOOKWISE_E2E_KEEP']) rmSync(root, { recursive: true, force: true });
    },
  };
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
      if (install.isolated && options.model.socketPath) {
        const quoted = [install.cline.cline, ...args].map((arg) => JSON.stringify(arg)).join(' ');
        const script = `ip link set lo up && exec node ${JSON.stringify(BRIDGE)} ${JSON.stringify(options.model.socketPath)} ${options.model.port} ${quoted}`;
        return runHost('unshare', ['-n', 'sh', '-c', script], dir, env);
      }
      return runHost(install.cline.cline, args, dir, env);
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
