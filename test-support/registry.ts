import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { networkNamespaceAvailable } from './netns.mjs';

/**
 * A local npm registry for the tests that install hookwise the way users do: Verdaccio from
 * npm on 127.0.0.1, the workspace's packages packed (workspace ranges rewritten) and published
 * to it, then installed by name and version with npm or pnpm. Only the `@hookwise` scope is
 * served from it; third-party dependencies come from the usual registry.
 */
const workspaceRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const packagesDir = path.join(workspaceRoot, 'packages');
export const PNPM = ['-y', 'pnpm@10.34.9'] as const;

export interface LocalRegistry {
  url: string;
  /** `.npmrc` lines that send the `@hookwise` scope to this registry. */
  npmrc: string;
  stop(): Promise<void>;
}

export type InstallKind = 'npm' | 'pnpm';

/** A port nothing listens on now, on 127.0.0.1 (for a server a test starts). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForPing(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`verdaccio exited with ${child.exitCode}: ${output()}`);
    try {
      if ((await fetch(`${url}-/ping`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`verdaccio did not answer within 60 s: ${output()}`);
}

/** Starts Verdaccio in a folder of its own and publishes the given workspace packages (folders under packages/). */
export async function startRegistry(packageFolders: readonly string[]): Promise<LocalRegistry> {
  const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-registry-')));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = path.join(home, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(path.join(home, 'storage'))}`,
      'auth:',
      '  htpasswd:',
      `    file: ${JSON.stringify(path.join(home, 'htpasswd'))}`,
      '    max_users: 10',
      'uplinks: {}',
      'packages:',
      "  '@hookwise/*':",
      '    access: $all',
      '    publish: $authenticated',
      "  '**':",
      '    access: $all',
      'log: { type: stdout, format: pretty, level: warn }',
      '',
    ].join('\n'),
  );
  const bin = path.join(workspaceRoot, 'node_modules', 'verdaccio', 'bin', 'verdaccio');
  const child = spawn(process.execPath, [bin, '--config', config, '--listen', `127.0.0.1:${port}`], {
    cwd: home,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NODE_OPTIONS: '' },
  });
  let log = '';
  child.stdout!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4_000)));
  child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4_000)));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(home, { recursive: true, force: true });
  };
  try {
    await waitForPing(url, child, () => log);
    const user = await fetch(`${url}-/user/org.couchdb.user:hookwise-test`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'hookwise-test', password: 'hookwise-test-password' }),
    });
    const { token } = (await user.json()) as { token?: string };
    if (!user.ok || !token) throw new Error(`verdaccio refused the test user (${user.status})`);
    const authLine = `//127.0.0.1:${port}/:_authToken=${token}`;
    const npmrc = `@hookwise:registry=${url}\n${authLine}\n`;
    const tarballs = path.join(home, 'tarballs');
    mkdirSync(tarballs);
    // pnpm pack rewrites workspace: ranges to the versions, as `pnpm publish` would.
    for (const folder of packageFolders)
      execFileSync('npx', [...PNPM, 'pack', '--pack-destination', tarballs], {
        cwd: path.join(workspaceRoot, 'packages', folder),
        stdio: 'pipe',
      });
    const publishRc = path.join(home, 'publish.npmrc');
    writeFileSync(publishRc, `registry=${url}\n${authLine}\n`);
    for (const tarball of readdirSync(tarballs)) {
      execFileSync(
        'npm',
        ['publish', path.join(tarballs, tarball), '--userconfig', publishRc, '--registry', url, '--loglevel=error', '--ignore-scripts'],
        { cwd: home, stdio: 'pipe', timeout: 120_000 },
      );
    }
    return { url, npmrc, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Names of the published packages, `@hookwise/<folder>@<version>`. */
export function specifiersOf(packageFolders: readonly string[], version = '0.0.0'): string[] {
  return packageFolders.map((folder) => `@hookwise/${folder}@${version}`);
}

/**
 * A fresh project outside the workspace with `packages` installed from the registry by name,
 * with npm or with pnpm (whose node_modules/@hookwise/* are links into node_modules/.pnpm).
 */
export function installProject(
  kind: InstallKind,
  registry: LocalRegistry,
  project: string,
  packages: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
): void {
  mkdirSync(project, { recursive: true });
  writeFileSync(
    path.join(project, 'package.json'),
    `${JSON.stringify({ name: `consumer-${kind}`, version: '1.0.0', private: true }, null, 2)}\n`,
  );
  writeFileSync(path.join(project, '.npmrc'), registry.npmrc);
  const options = { cwd: project, stdio: 'pipe' as const, timeout: 600_000, env };
  if (kind === 'npm') execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', '--save-dev', ...packages], options);
  else execFileSync('npx', [...PNPM, 'add', '--save-dev', '--config.confirmModulesPurge=false', ...packages], options);
}

export interface RegistryInstall {
  root: string;
  /** Where the packages were installed by name; projects live below it. */
  installDir: string;
  /** Whether the host can run under `unshare -n` here (see netns.mjs). */
  isolated: boolean;
  /** The registry, running until `remove()` (undefined with `keepRegistry: false`). */
  registry: LocalRegistry | undefined;
  remove(): Promise<void>;
}

/**
 * What a user of `host` has: a fresh folder with the workspace's `packageFolders` installed by
 * name with npm from a local Verdaccio. The registry keeps running for `hookwise init` and the
 * host's own installs unless `keepRegistry` is false. `HOOKWISE_E2E_KEEP=1` keeps the folder.
 */
export async function installFromRegistry(
  host: string,
  packageFolders: readonly string[],
  options: { env: NodeJS.ProcessEnv | Record<string, string>; keepRegistry?: boolean; beforeRemove?: (root: string) => void },
): Promise<RegistryInstall> {
  const missing = packageFolders.filter((folder) => !existsSync(path.join(packagesDir, folder, 'dist', 'index.js')));
  if (missing.length > 0) throw new Error(`packages ${missing.join(', ')} have no dist/ yet; build first (CI runs build before test)`);
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), `hookwise-${host}-`)));
  const installDir = path.join(root, 'install');
  let registry: LocalRegistry | undefined = await startRegistry(packageFolders);
  try {
    installProject('npm', registry, installDir, specifiersOf(packageFolders), options.env as NodeJS.ProcessEnv);
  } catch (error) {
    await registry.stop();
    throw error;
  }
  if (options.keepRegistry === false) {
    await registry.stop();
    registry = undefined;
  }
  return {
    root,
    installDir,
    isolated: networkNamespaceAvailable(),
    registry,
    async remove() {
      await registry?.stop();
      options.beforeRemove?.(root);
      if (!process.env['HOOKWISE_E2E_KEEP']) rmSync(root, { recursive: true, force: true });
    },
  };
}
