// The real pi run offline, for `npm run demo` and the report's pi fixture (plain ESM, no build):
// an agent folder whose only model is the loopback stand-in, a scratch HOME and TMPDIR, pi's
// own Node 22 (scripts/install-pi.mjs) first on PATH. The e2e suite's harness.ts does the same
// with the hookwise install from the local registry and `unshare -n`.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export { ensurePi, PI_VERSION } from '../../../../scripts/install-pi.mjs';

/** `models.json` (the stand-in as provider `standin`, model `m`) and `settings.json` (trusted projects, no retries, compaction on) in `agentDir`. */
export function writeAgentDir(
  agentDir,
  { baseURL, contextWindow = 32_000, compaction = { reserveTokens: 4_000, keepRecentTokens: 20_000 } },
) {
  mkdirSync(agentDir, { recursive: true });
  const model = {
    id: 'm',
    name: 'Stand-in',
    reasoning: false,
    input: ['text'],
    contextWindow,
    maxTokens: 4_096,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  };
  writeFileSync(
    path.join(agentDir, 'models.json'),
    JSON.stringify({ providers: { standin: { baseUrl: baseURL, api: 'openai-completions', apiKey: 'x', models: [model] } } }),
  );
  writeFileSync(
    path.join(agentDir, 'settings.json'),
    JSON.stringify({
      defaultProvider: 'standin',
      defaultModel: 'm',
      defaultProjectTrust: 'always',
      retry: { enabled: false },
      compaction: { enabled: true, ...compaction },
    }),
  );
}

/** The environment pi runs in: nothing of the caller's but PATH (pi's Node first) and the locale. */
export function offlinePiEnv({ nodeBinDir, agentDir, home, tmp }) {
  for (const folder of [home, tmp]) mkdirSync(folder, { recursive: true });
  const env = {
    PATH: `${nodeBinDir}${path.delimiter}${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: home,
    TMPDIR: tmp,
    PI_CODING_AGENT_DIR: agentDir,
    PI_OFFLINE: '1',
    PI_TELEMETRY: '0',
    PI_SKIP_VERSION_CHECK: '1',
  };
  for (const key of ['LANG', 'LC_ALL', 'USER', 'LOGNAME']) if (process.env[key] !== undefined) env[key] = process.env[key];
  return env;
}

/** `pi -p <prompt>…` to the end (each prompt after the previous one settled), stdin closed: an open pipe makes pi wait for it. */
export function runPi(pi, prompts, { cwd, env, timeoutMs = 120_000 }) {
  return new Promise((resolve, reject) => {
    const child = spawn(pi.node, [pi.piCli, '-p', ...prompts], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The newest session file pi wrote under `agentDir`. */
export function newestSessionFile(agentDir) {
  const sessions = path.join(agentDir, 'sessions');
  const files = readdirSync(sessions, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.jsonl'))
    .map((file) => path.join(sessions, file))
    .sort();
  if (files.length === 0) throw new Error(`no pi session file under ${sessions}`);
  return files.at(-1);
}
