import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { installedHookwise, readJsonLines, shellEnv, writeProjectFiles, type ProjectFiles } from '../../../../test-support/host-e2e.js';
import { installFromRegistry, type RegistryInstall } from '../../../../test-support/registry.js';
import { ensureKilo, exportKiloSession, offlineKiloEnv, runKilo, standInKiloConfig, type KiloRun } from './offline-kilo.mjs';

/**
 * Runs the real Kilo (installed into ~/.cache/hookwise by scripts/install-kilo.mjs) offline
 * against the loopback stand-in model, with hookwise installed from the local Verdaccio registry
 * by name — what a user has. One install serves every project of a suite. Kilo runs under
 * `unshare -n` (only loopback; the stand-in reached through a bridge) where the machine allows it.
 *
 * When a scenario fails: `HOOKWISE_E2E_KEEP=1` keeps the scratch folder, `HOOKWISE_E2E_LOGS=1`
 * adds Kilo's `--print-logs` (stderr).
 */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The workspace packages a Kilo user installs (@hookwise/cli brings `hookwise init`). */
export const PUBLISHED = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'adapter-kilo', 'cli'] as const;

export interface ScratchInstall extends RegistryInstall {
  kilo: string;
  /** The version of the binary that runs (the wrapper's platform package may be older). */
  kiloVersion: string;
}

/** Installs Kilo (cached), starts Verdaccio with the workspace's packages and installs them by name. */
export async function createScratchInstall(): Promise<ScratchInstall> {
  const kilo = ensureKilo() as { kilo: string; binaryVersion: string };
  return { ...(await installFromRegistry('kilo', PUBLISHED, { env: shellEnv() })), kilo: kilo.kilo, kiloVersion: kilo.binaryVersion };
}

export interface StoredSession {
  info: { id: string };
  messages: Array<{ info: { id: string; role: string; summary?: boolean }; parts: Array<Record<string, any>> }>;
}

export interface Project {
  dir: string;
  hookwise(args: string[]): string;
  /** `kilo run --format json <words…>` to the end. */
  run(args: string[]): Promise<KiloRun & { events: Array<Record<string, any>> }>;
  /** `kilo export <session>` into `<project>/export.json`: the stored session. */
  exportSession(sessionId: string): { file: string; session: StoredSession };
  events(): Array<Record<string, any>>;
}

export interface ProjectOptions extends ProjectFiles {
  model: { baseURL: string; port: number; socketPath?: string };
  init?: boolean;
}

/** A project below the install: kilo.jsonc with the stand-in, then `hookwise init --host kilo` as a user runs it. */
export function createProject(install: ScratchInstall, name: string, options: ProjectOptions): Project {
  const dir = path.join(install.installDir, name);
  const home = path.join(install.root, 'home', name);
  const tmp = path.join(install.root, 'tmp', name);
  for (const folder of [dir, home, tmp]) mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(dir, 'kilo.jsonc'), standInKiloConfig(options.model.baseURL));
  writeProjectFiles(dir, options);
  const env = { ...shellEnv(['TERM', 'SHELL']), ...offlineKiloEnv({ home, tmp }) };
  const isolate =
    install.isolated && options.model.socketPath ? { socketPath: options.model.socketPath, port: options.model.port } : undefined;
  const project: Project = {
    dir,
    hookwise: installedHookwise(install.installDir, dir, shellEnv()),
    async run(args) {
      const run = await runKilo(
        install.kilo,
        ['run', '--format', 'json', ...(process.env['HOOKWISE_E2E_LOGS'] ? ['--print-logs'] : []), ...args],
        {
          cwd: dir,
          env,
          isolate,
        },
      );
      const events = run.stdout
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, any>);
      return { ...run, events };
    },
    exportSession(sessionId) {
      const file = path.join(dir, 'export.json');
      const result = exportKiloSession(install.kilo, sessionId, file, { cwd: dir, env });
      if (result.status !== 0) throw new Error(`kilo export ${sessionId} exited with ${result.status}: ${result.stderr.slice(-1500)}`);
      return { file, session: JSON.parse(readFileSync(file, 'utf8')) as StoredSession };
    },
    events: () => readJsonLines(path.join(dir, '.hookwise', 'logs', 'events.jsonl')),
  };
  if (options.init !== false) project.hookwise(['init', '--host', 'kilo']);
  return project;
}
