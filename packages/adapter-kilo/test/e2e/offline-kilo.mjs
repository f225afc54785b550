// How the real Kilo runs offline here (see the adapter README, "Tests"): the binary installed by
// scripts/install-kilo.mjs, the environment that keeps it on loopback, a kilo.jsonc naming the
// stand-in model, and a run under `unshare -n` where the machine allows it. One copy for the
// end-to-end suite, the demo and the report's Kilo fixture.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { isolatedCommand, networkNamespaceAvailable } from '../../../../test-support/netns.mjs';

export { ensureKilo, KILO_VERSION } from '../../../../scripts/install-kilo.mjs';

/** A scratch home and XDG folders, and the switches that keep Kilo from reaching the network. */
export function offlineKiloEnv({ home, tmp }) {
  return {
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    TMPDIR: tmp,
    // Telemetry on makes every exit wait ~10 s for PostHog.
    KILO_TELEMETRY_LEVEL: 'off',
    KILO_DISABLE_MODELS_FETCH: '1',
    KILO_DISABLE_AUTOUPDATE: '1',
    KILO_DISABLE_SHARE: '1',
    KILO_DISABLE_LSP_DOWNLOAD: '1',
    KILO_DISABLE_CLAUDE_CODE: '1',
    KILO_DISABLE_EXTERNAL_SKILLS: '1',
    KILO_DISABLE_SESSION_INGEST: '1',
    // Drops the built-in @kilocode/kilo-indexing plugin.
    KILO_DISABLE_DEFAULT_PLUGINS: '1',
  };
}

/**
 * A project's kilo.jsonc (with a comment, as users write it) with the loopback stand-in as its
 * only model. `compaction.prune` off: Kilo's own pruning of old outputs would blur what hookwise did.
 */
export function standInKiloConfig(baseURL, { contextWindow = 200_000 } = {}) {
  const config = {
    $schema: 'https://app.kilo.ai/config.json',
    autoupdate: false,
    share: 'disabled',
    snapshot: false,
    compaction: { auto: true, prune: false },
    provider: {
      standin: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Loopback stand-in',
        options: { baseURL, apiKey: 'dummy-key' },
        models: { m: { name: 'Stand-in', tool_call: true, limit: { context: contextWindow, output: 8_192 } } },
      },
    },
    model: 'standin/m',
    small_model: 'standin/m',
    permission: { bash: 'allow', read: 'allow', edit: 'allow', external_directory: 'allow' },
  };
  return `// Kilo config of this project: the loopback stand-in model, nothing from the network.\n${JSON.stringify(config, null, 2)}\n`;
}

export { networkNamespaceAvailable };

/**
 * `kilo <args>` as a command line: inside its own network namespace with only loopback (the
 * stand-in reached through the bridge) when `isolate` gives the model's socket and port.
 */
export const kiloCommand = isolatedCommand;

/** `kilo <args>` to the end (killed after `timeoutMs`): exit code, output, the session id of `run --format json`. */
export function runKilo(kilo, args, { cwd, env, isolate, timeoutMs = 240_000 }) {
  const { command, args: commandArgs } = kiloCommand(kilo, args, isolate);
  return new Promise((resolve, reject) => {
    const child = spawn(command, commandArgs, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, sessionId: /"sessionID":"([^"]+)"/.exec(stdout)?.[1] });
    });
  });
}

/**
 * `kilo export <sessionId> > file`: into a file, as `>` does (through a pipe OpenCode, whose
 * export Kilo keeps, cuts it at a 64 KiB multiple). Export needs no model; it loads plugins.
 */
export function exportKiloSession(kilo, sessionId, file, { cwd, env }) {
  const output = openSync(file, 'w');
  try {
    return spawnSync(kilo, ['export', sessionId], { cwd, env, stdio: ['ignore', output, 'pipe'], encoding: 'utf8', timeout: 240_000 });
  } finally {
    closeSync(output);
  }
}
