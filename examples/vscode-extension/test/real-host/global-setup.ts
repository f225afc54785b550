import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
// The same installer .ci/run calls: on a machine where CI (or a developer) already ran it, this
// only checks a marker file; on a fresh one it installs, so `npm test` works there too.
import { ensureCodeServer } from '../../../../scripts/install-code-server.mjs';

const run = promisify(execFile);
const exampleDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const packagesDir = path.resolve(exampleDir, '../../packages');

/** What the test workspace installs, as a user would from npm: the packed packages. */
const PACKED = ['core', 'hook-suggest', 'hook-prune'];

/**
 * The workspace's config. hook-suggest suggests after 3 tool calls and every 3 after that, so a
 * task of three calls and each follow-up of three more show one suggestion each; hook-prune runs
 * its window policy with zero thresholds so that the short example task has something to prune
 * (the default keeps the reads of files in use, which a task this short never leaves).
 */
const CONFIG = {
  plugins: {
    // A reminder every 3 calls however small the scripted context: the dismissal has one to quiet.
    '@hookwise/hook-suggest': { toolCalls: 3, toolCallStep: 3, toolCallBackoff: 1, quietBelowPercent: 0 },
    '@hookwise/hook-prune': { policy: 'window', protectTokens: 0, minimumTokens: 0 },
  },
  on: ['./hooks/example-hooks.mjs'],
};

// The project's own hooks: the intent summary the Roo fork prepended, and a hook that throws on
// the first model request of every task (the adapter must log it and let the task go on).
const HOOKS = `const failedOnce = new Set();

export default {
  'llm:before': [
    {
      name: 'intent-summary',
      handler: (payload) => (payload.intentId ? { context: '## Active intent\\n' + payload.intentId } : undefined),
    },
    {
      name: 'flaky',
      handler: (payload) => {
        if (failedOnce.has(payload.sessionId)) return undefined;
        failedOnce.add(payload.sessionId);
        throw new Error('flaky hook failed on purpose');
      },
    },
  ],
};
`;

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const codeServerDir = ensureCodeServer();
  const scratchRoot = await mkdtemp(path.join(os.tmpdir(), 'hw-rh-')); // short: unix socket paths live under it

  // The extension, built and laid out as installing its .vsix would: package.json, README and
  // dist/ in `<publisher>.<name>-<version>`. (vsce refuses the scoped name, so no .vsix is made.)
  await run(process.execPath, ['bundle.mjs'], { cwd: exampleDir });
  const manifest = JSON.parse(await readFile(path.join(exampleDir, 'package.json'), 'utf8')) as {
    name: string;
    publisher: string;
    version: string;
  };
  const installedExtensionDir = path.join(
    scratchRoot,
    'extension',
    `${manifest.publisher}.${manifest.name.replace(/^@[^/]+\//, '')}-${manifest.version}`,
  );
  await mkdir(installedExtensionDir, { recursive: true });
  for (const entry of ['package.json', 'README.md', 'dist'])
    await cp(path.join(exampleDir, entry), path.join(installedExtensionDir, entry), { recursive: true });

  // The hookwise packages as npm would deliver them: packed (workspace: ranges rewritten by pnpm)
  // and installed with plain npm into a workspace outside the monorepo.
  const tarballs = path.join(scratchRoot, 'tarballs');
  await mkdir(tarballs);
  for (const folder of PACKED) {
    if (!existsSync(path.join(packagesDir, folder, 'dist')))
      throw new Error(`packages/${folder} is not built: run the build first (npm test builds everything)`);
  }
  // One pnpm for all three (each start of pnpm through npx costs a second or two).
  const filters = PACKED.flatMap((folder) => ['--filter', `@hookwise/${folder}`]);
  await run('npx', ['-y', 'pnpm@10.34.9', ...filters, 'pack', '--pack-destination', tarballs], { cwd: path.dirname(packagesDir) });
  const workspaceTemplate = path.join(scratchRoot, 'workspace');
  await mkdir(path.join(workspaceTemplate, 'hooks'), { recursive: true });
  await writeFile(
    path.join(workspaceTemplate, 'package.json'),
    `${JSON.stringify({ name: 'hookwise-real-host-workspace', private: true, type: 'module' }, null, 2)}\n`,
  );
  const files = PACKED.map((folder) => path.join(tarballs, `hookwise-${folder}-0.0.0.tgz`));
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], { cwd: workspaceTemplate, timeout: 300_000 });
  await writeFile(path.join(workspaceTemplate, 'hookwise.config.json'), `${JSON.stringify(CONFIG, null, 2)}\n`);
  await writeFile(path.join(workspaceTemplate, 'hooks', 'example-hooks.mjs'), HOOKS);
  await writeFile(path.join(workspaceTemplate, 'README.md'), '# A throwaway workspace for the real-host tests\n');

  // The suite that runs inside the extension host: CommonJS, `vscode` from the host.
  const inHostSuite = path.join(scratchRoot, 'in-host', 'suite.cjs');
  await build({
    entryPoints: [path.join(exampleDir, 'test', 'real-host', 'in-host', 'suite.ts')],
    outfile: inHostSuite,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['vscode'],
    logLevel: 'warning',
  });

  project.provide('codeServerDir', codeServerDir);
  project.provide('installedExtensionDir', installedExtensionDir);
  project.provide('workspaceTemplate', workspaceTemplate);
  project.provide('inHostSuite', inHostSuite);
  project.provide('scratchRoot', scratchRoot);
  console.log(
    `real-host setup: code-server ${codeServerDir}, scratch ${scratchRoot}, ready in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );

  return async () => {
    if (process.env.HOOKWISE_KEEP_REAL_HOST === '1') console.log(`real-host: kept ${scratchRoot}`);
    else await rm(scratchRoot, { recursive: true, force: true });
  };
}
