import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
  if (missing.length > 0) throw new Error(`these packages have no dist/ yet: ${missing.join(', ')}. Build first (CI runs build before test)`);
}

/**
 * The environment child processes get: only what a shell would have. Vitest adds variables of
 * its own (NODE_ENV, TEST, BASE_URL, MODE…) and the real OpenCode must not see them.
 */
function cleanEnv(): Record<string, string | undefined> {
  const keep = ['PATH', 'LANG', 'LC_ALL', 'TERM', 'SHELL', 'USER', 'LOGNAME', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'npm_config_registry', 'npm_config_cache'];
  const env: Record<string, string | undefined> = {};
  for (const key of keep) if (process.env[key] !== undefined) env[key] = process.env[key];
  // npm needs its cache and user config from the real home; OpenCode gets a scratch one (below).
  env['npm_config_cache'] ??= path.join(os.homedir(), '.npm');
  env['npm_config_userconfig'] ??= path.join(os.homedir(), '.npmrc');
  return env;
}

export interface ScratchInstall {
  root: string;
  /** Where the tarballs were installed; projects live below it and resolve packages from here. */
  installDir: string;
  home: string;
  env: Record<string, string | undefined>;
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
  for (const folder of PACKED) execFileSync(pnpm, ['pack', '--pack-destination', tarballs], { cwd: path.join(packagesDir, folder), stdio: 'pipe', env: cleanEnv() as NodeJS.ProcessEnv });
  writeFileSync(path.join(installDir, 'package.json'), `${JSON.stringify({ name: 'opencode-user', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
  const files = readdirSync(tarballs).map((name) => path.join(tarballs, name));
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], { cwd: installDir, stdio: 'pipe', timeout: 600_000, env: cleanEnv() as NodeJS.ProcessEnv });

  // OpenCode's user config folder, with the three files that stop it from installing
  // @opencode-ai/plugin there (offline that waits ~75 s, then goes on).
  stubConfigFolder(path.join(home, '.config', 'opencode'));
  const env: Record<string, string | undefined> = { ...cleanEnv(), ...offlineEnv({ home, tmp: path.join(root, 'tmp') }) };

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

export interface OpenCodeRun {
  code: number | null;
  stdout: string;
  stderr: string;
  events: Array<{ type: string; sessionID?: string; part?: Record<string, any> }>;
  sessionId: string | undefined;
}

/**
 * A project below the install: `opencode.json` with the stand-in model, the three stub files,
 * the recorder, then `hookwise init --host opencode` to add the plugin as a user would.
 */
export function createProject(install: ScratchInstall, name: string, options: { baseURL: string; hookwiseConfig: string | object; configName?: string; files?: Record<string, string>; init?: boolean }): Project {
  const dir = path.join(install.installDir, name);
  mkdirSync(path.join(dir, '.opencode', 'plugins'), { recursive: true });
  stubConfigFolder(path.join(dir, '.opencode'));
  writeFileSync(path.join(dir, '.opencode', 'plugins', 'recorder.js'), RECORDER);
  writeFileSync(
    path.join(dir, 'opencode.json'),
    `${JSON.stringify(standInOpencodeConfig(options.baseURL, { bash: 'allow', read: 'allow', edit: 'allow', external_directory: 'allow' }), null, 2)}\n`,
  );
  const configName = options.configName ?? 'hookwise.config.json';
  writeFileSync(path.join(dir, configName), typeof options.hookwiseConfig === 'string' ? options.hookwiseConfig : `${JSON.stringify(options.hookwiseConfig, null, 2)}\n`);
  for (const [file, content] of Object.entries(options.files ?? {})) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  const cli = path.join(install.installDir, 'node_modules', '@hookwise', 'cli', 'bin', 'hookwise.js');
  const binary = opencodeBinary(packageRoot);
  const project: Project = {
    dir,
    hookwise: (args) => execFileSync(process.execPath, [cli, ...args], { cwd: dir, encoding: 'utf8', env: install.env as NodeJS.ProcessEnv, stdio: 'pipe' }),
    run: (args) => runProcess(binary, ['run', '--format', 'json', ...(process.env.HOOKWISE_E2E_LOGS ? ['--print-logs'] : []), ...args], dir, install.env),
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

function readJsonLines(file: string): Array<Record<string, any>> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}

function runProcess(command: string, args: string[], cwd: string, env: Record<string, string | undefined>): Promise<OpenCodeRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const events = stdout
        .split('\n')
        .filter((line) => line.startsWith('{"type"'))
        .map((line) => JSON.parse(line) as OpenCodeRun['events'][number]);
      resolve({ code, stdout, stderr, events, sessionId: events.find((event) => event.sessionID)?.sessionID });
    });
  });
}
