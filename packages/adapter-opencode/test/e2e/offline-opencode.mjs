// How the real OpenCode runs offline here (see the adapter README, "Tests"): the pinned binary
// from the workspace install, the stub files that skip its plugin install, the environment that
// keeps it on loopback, and an opencode.json naming the stand-in model. One copy for the
// end-to-end suite, the demo and the report's OpenCode fixture.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const OPENCODE_VERSION = '1.18.33';

/** The OpenCode binary installed for the package at `fromDir`; runs its postinstall when an install skipped it. */
export function opencodeBinary(fromDir) {
  let manifest;
  try {
    manifest = createRequire(path.join(fromDir, 'package.json')).resolve('opencode-ai/package.json');
  } catch {
    throw new Error(`opencode-ai ${OPENCODE_VERSION} is not installed for ${fromDir}; run npx -y pnpm@10.34.9 install`);
  }
  const folder = path.dirname(manifest);
  const binary = path.join(folder, 'bin', 'opencode.exe');
  // The postinstall only links the platform package's binary into bin/ (nothing is downloaded).
  if (!existsSync(binary)) execFileSync(process.execPath, ['postinstall.mjs'], { cwd: folder, stdio: 'pipe' });
  return binary;
}

/**
 * Before loading plugins OpenCode installs @opencode-ai/plugin into each config folder and waits
 * for it; offline that fails after ~75 s. These three files make it skip the install.
 */
export function stubConfigFolder(folder) {
  mkdirSync(path.join(folder, 'node_modules'), { recursive: true });
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ dependencies: { '@opencode-ai/plugin': OPENCODE_VERSION } }));
  writeFileSync(
    path.join(folder, 'package-lock.json'),
    JSON.stringify({ lockfileVersion: 3, packages: { '': { dependencies: { '@opencode-ai/plugin': OPENCODE_VERSION } } } }),
  );
}

/** A scratch home and XDG folders, and the switches that keep OpenCode from reaching the network. */
export function offlineEnv({ home, tmp }) {
  return {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    // Every OpenCode start leaves a ~5.5 MB shared object in TMPDIR.
    TMPDIR: tmp,
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
    OPENCODE_DISABLE_SHARE: '1',
    OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
    OPENCODE_DISABLE_CLAUDE_CODE: '1',
    OPENCODE_DISABLE_EXTERNAL_SKILLS: '1',
  };
}

/** A project's opencode.json with the loopback stand-in as its only model. */
export function standInOpencodeConfig(baseURL, permission) {
  return {
    $schema: 'https://opencode.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    provider: {
      standin: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Loopback stand-in',
        options: { baseURL, apiKey: 'x' },
        models: { m: { name: 'Stand-in', tool_call: true, limit: { context: 200_000, output: 8_192 } } },
      },
    },
    model: 'standin/m',
    small_model: 'standin/m',
    permission,
  };
}

/**
 * A scratch folder for one OpenCode session: `project` (with `src/`) and `home`, both config
 * folders stubbed, and `tmp`; pass `home` and `tmp` to {@link offlineEnv}.
 */
export function scratchOpenCodeFolders(root) {
  const project = path.join(root, 'project');
  const home = path.join(root, 'home');
  const tmp = path.join(root, 'tmp');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  mkdirSync(tmp, { recursive: true });
  stubConfigFolder(path.join(project, '.opencode'));
  stubConfigFolder(path.join(home, '.config', 'opencode'));
  return { project, home, tmp };
}

/** `opencode <args>` to the end: its exit code, output, and the session id of `run --format json`. */
export function runOpenCode(binary, args, { cwd, env }) {
  return new Promise((resolve) => {
    const child = spawn(binary, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr, sessionId: /"sessionID":"([^"]+)"/.exec(stdout)?.[1] }));
  });
}

/**
 * `opencode export <sessionId> > file`. Into a file, as `>` does: through a pipe OpenCode 1.18.33
 * cuts the export at a 64 KiB multiple. Gives spawnSync's result (status, stderr).
 */
export function exportOpenCodeSession(binary, sessionId, file, { cwd, env }) {
  const output = openSync(file, 'w');
  try {
    return spawnSync(binary, ['export', sessionId], { cwd, env, stdio: ['ignore', output, 'pipe'], encoding: 'utf8' });
  } finally {
    closeSync(output);
  }
}
