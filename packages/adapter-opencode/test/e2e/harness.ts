import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  installedHookwise,
  readJsonLines,
  runHost,
  shellEnv,
  writeProjectFiles,
  type HostRun,
  type ProjectFiles,
} from '../../../../test-support/host-e2e.js';
import { offlineEnv, opencodeBinary, standInOpencodeConfig, stubConfigFolder } from './offline-opencode.mjs';

/**
 * Runs the real OpenCode (the pinned `opencode-ai` devDependency) offline against the loopback
 * stand-in model, with hookwise installed from packed tarballs into a scratch folder with plain
 * npm — what a user has. One install serves every project of a suite.
 *
 * When a scenario fails: `HOOKWISE_E2E_KEEP=1` keeps the scratch folder (and writes the child
 * environment to `env.json` there), `HOOKWISE_E2E_LOGS=1` adds OpenCode's `--print-logs`.
 */
export { OPENCODE_VERSION, stubConfigFolder } from './offline-opencode.mjs';
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const packagesDir = path.resolve(packageRoot, '..');
const workspaceRoot = path.resolve(packagesDir, '..');

/** The workspace packages a user installs for OpenCode (@hookwise/cli brings `hookwise init` and the plugins' commands). */
export const PACKED = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'adapter-opencode', 'cli'] as const;

export function assertBuilt(): void {
  const missing = PACKED.filter((folder) => !existsSync(path.join(packagesDir, folder, 'dist', 'index.js')));
  if (missing.length > 0)
    throw new Error(`these packages have no dist/ yet: ${missing.join(', ')}. Build first (CI runs build before test)`);
}

/** Only what a shell would have, with the terminal's variables OpenCode looks at. */
const cleanEnv = () => shellEnv(['TERM', 'SHELL']);

export interface ScratchInstall {
  root: string;
  /** Where the tarballs were installed; projects live below it and resolve packages from here. */
  installDir: string;
  home: string;
  env: Record<string, string>;
  remove(): void;
}

/** Packs the workspace packages and installs the tarballs with npm into a fresh folder. */
export function createScratchInstall(prefix = 'hookwise-opencode-'): ScratchInstall {
  assertBuilt();
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  const tarballs = path.join(root, 'tarballs');
  const installDir = path.join(root, 'install');
  const home = path.join(root, 'home');
  for (const dir of [tarballs, installDir, home, path.join(root, 'tmp')]) mkdirSync(dir, { recursive: true });
  const pnpm = path.join(workspaceRoot, 'node_modules', '.bin', 'pnpm');
  for (const folder of PACKED)
    execFileSync(pnpm, ['pack', '--pack-destination', tarballs], { cwd: path.join(packagesDir, folder), stdio: 'pipe', env: cleanEnv() });
  writeFileSync(
    path.join(installDir, 'package.json'),
    `${JSON.stringify({ name: 'opencode-user', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`,
  );
  const files = readdirSync(tarballs).map((name) => path.join(tarballs, name));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], {
    cwd: installDir,
    stdio: 'pipe',
    timeout: 600_000,
    env: cleanEnv(),
  });

  // OpenCode's user config folder, with the three files that stop it from installing
  // @opencode-ai/plugin there (offline that waits ~75 s, then goes on).
  stubConfigFolder(path.join(home, '.config', 'opencode'));
  const env: Record<string, string> = { ...cleanEnv(), ...offlineEnv({ home, tmp: path.join(root, 'tmp') }) };

  if (process.env.HOOKWISE_E2E_KEEP) writeFileSync(path.join(root, 'env.json'), JSON.stringify(env, null, 2));
  return { root, installDir, home, env, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** A recorder plugin: writes the events a test looks for (toasts) to `<project>/recorded.jsonl`. */
const RECORDER = `import { appendFileSync } from 'node:fs';
export const Recorder = async ({ directory }) => ({
  event: async ({ event }) => {
    if (event.type === 'tui.toast.show' || event.type === 'session.compacted') appendFileSync(directory + '/recorded.jsonl', JSON.stringify(event) + '\\n');
  },
});
`;

export interface Project {
  dir: string;
  /** The hookwise CLI as installed (`hookwise init`, `hookwise intent select`). */
  hookwise(args: string[]): string;
  /** Runs `opencode run --format json …` to the end. */
  run(args: string[]): Promise<OpenCodeRun>;
  /** `opencode export <session>`: the stored session. */
  exportSession(sessionId: string): Promise<{ messages: Array<{ info: { id: string; role: string }; parts: Array<Record<string, any>> }> }>;
  recorded(): Array<{ type: string; properties: Record<string, any> }>;
  events(): Array<Record<string, any>>;
}

export interface OpenCodeRun extends HostRun {
  events: Array<{ type: string; sessionID?: string; part?: Record<string, any> }>;
  sessionId: string | undefined;
}

/**
 * A project below the install: `opencode.json` with the stand-in model, the three stub files,
 * the recorder, then `hookwise init --host opencode` to add the plugin as a user would.
 */
export function createProject(install: ScratchInstall, name: string, options: ProjectFiles & { baseURL: string; init?: boolean }): Project {
  const dir = path.join(install.installDir, name);
  mkdirSync(path.join(dir, '.opencode', 'plugins'), { recursive: true });
  stubConfigFolder(path.join(dir, '.opencode'));
  writeFileSync(path.join(dir, '.opencode', 'plugins', 'recorder.js'), RECORDER);
  writeFileSync(
    path.join(dir, 'opencode.json'),
    `${JSON.stringify(standInOpencodeConfig(options.baseURL, { bash: 'allow', read: 'allow', edit: 'allow', external_directory: 'allow' }), null, 2)}\n`,
  );
  writeProjectFiles(dir, options);
  const binary = opencodeBinary(packageRoot);
  const project: Project = {
    dir,
    hookwise: installedHookwise(install.installDir, dir, install.env),
    run: (args) =>
      runProcess(
        binary,
        ['run', '--format', 'json', ...(process.env.HOOKWISE_E2E_LOGS ? ['--print-logs'] : []), ...args],
        dir,
        install.env,
      ),
    async exportSession(sessionId) {
      const result = await runProcess(binary, ['export', sessionId], dir, install.env);
      const start = result.stdout.indexOf('{');
      return JSON.parse(result.stdout.slice(start));
    },
    recorded: () => readJsonLines(path.join(dir, 'recorded.jsonl')) as Array<{ type: string; properties: Record<string, any> }>,
    events: () => readJsonLines(path.join(dir, '.hookwise', 'logs', 'events.jsonl')),
  };
  // As a user sets it up: the plugin entry comes from `hookwise init --host opencode`.
  if (options.init !== false) project.hookwise(['init', '--host', 'opencode']);
  return project;
}

async function runProcess(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<OpenCodeRun> {
  const run = await runHost(command, args, cwd, env);
  const events = run.stdout
    .split('\n')
    .filter((line) => line.startsWith('{"type"'))
    .map((line) => JSON.parse(line) as OpenCodeRun['events'][number]);
  return { ...run, events, sessionId: events.find((event) => event.sessionID)?.sessionID };
}
