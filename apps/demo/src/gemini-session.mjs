// Part 6 of `npm run demo`: a real Gemini CLI session (0.61.0, installed once into ~/.cache/hookwise
// by scripts/install-gemini.mjs) with @hookwise/adapter-gemini's command hooks, against a loopback
// stand-in of the Gemini API: a custom command, then a resumed turn whose first answer reports
// 900,000 prompt tokens, so Gemini compresses; what each request carried, the compaction hookwise
// logged, then Gemini's session file through `hookwise report`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellCall, startGeminiStandIn } from '../../../packages/adapter-gemini/test/e2e/stand-in-gemini.mjs';
import { GEMINI_VERSION, geminiPaths } from '../../../scripts/install-gemini.mjs';
import { demoProject, format, hookwiseInit } from './live-session.mjs';

const demoDir = fileURLToPath(new URL('..', import.meta.url));
const INSTALL_SCRIPT = fileURLToPath(new URL('../../../scripts/install-gemini.mjs', import.meta.url));
const RULES = 'BABYSIT RULES: run the tests after every edit; never push to main.';

function installGemini(print) {
  if (existsSync(geminiPaths().geminiCli)) return geminiPaths();
  print(`installing Gemini CLI ${GEMINI_VERSION} into ${geminiPaths().cacheDir} (once, from npm)…`);
  const install = spawnSync(process.execPath, [INSTALL_SCRIPT], {
    encoding: 'utf8',
    env: { ...process.env, npm_config_fetch_retries: '1' },
  });
  if (install.status === 0 && existsSync(geminiPaths().geminiCli)) return geminiPaths();
  print(
    `Gemini part skipped: Gemini CLI ${GEMINI_VERSION} could not be installed (${install.stderr.trim().split('\n').at(-1) ?? `exit ${install.status}`})`,
  );
  return undefined;
}

const isToolResult = (body) => body.contents.at(-1)?.parts?.some((part) => part.functionResponse) === true;

/** Runs the Gemini part; a machine without Gemini CLI (no network to install it) gets one line and undefined. */
export async function runGeminiSession({ print }) {
  const gemini = installGemini(print);
  if (!gemini) return undefined;
  const root = path.join(demoDir, 'out', 'gemini-demo');
  const project = demoProject(root, {
    files: {
      '.gemini/commands/babysit.toml': `description = "Keep an eye on the build"\nprompt = """\nWatch the build and report.\n\n<!-- COMPACT_SUMMARY_START -->\n${RULES}\n<!-- COMPACT_SUMMARY_END -->\n"""\n`,
    },
    plugins: { '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': { toolCalls: 3 } },
  });
  const home = path.join(root, 'home');
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  writeFileSync(
    path.join(home, '.gemini', 'settings.json'),
    JSON.stringify({
      security: { auth: { selectedType: 'gemini-api-key' } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
    }),
  );
  const hookwise = hookwiseInit(project, 'gemini', print);

  let plan = () => undefined;
  const standIn = await startGeminiStandIn({ answer: (request) => plan(request) });
  // Only what a shell has: a proxy variable would send the loopback calls elsewhere.
  const env = {
    PATH: process.env.PATH,
    LANG: process.env.LANG ?? 'C.UTF-8',
    HOME: home,
    GOOGLE_GEMINI_BASE_URL: `http://127.0.0.1:${standIn.port}`,
    GEMINI_API_KEY: 'dummy',
    GEMINI_CLI_TRUST_WORKSPACE: 'true',
  };
  // Asynchronous: the stand-in answers from this process.
  const run = async (prompt, resume) => {
    print(
      `\n$ gemini -p "${prompt}"${resume ? ' --resume latest' : ''} -y -m gemini-2.5-flash   (Gemini CLI ${GEMINI_VERSION}, model: the loopback stand-in)`,
    );
    const args = [
      gemini.geminiCli,
      '-p',
      prompt,
      '--output-format',
      'json',
      '-y',
      '-m',
      'gemini-2.5-flash',
      ...(resume ? ['--resume', 'latest'] : []),
    ];
    const result = await new Promise((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout, stderr }));
    });
    if (result.status !== 0) throw new Error(`gemini exited ${result.status}: ${result.stderr.slice(-800)}`);
    for (const line of result.stderr.split('\n').filter((text) => text.startsWith('Hook system message:'))) print(`  ${line}`);
    print(`  → ${JSON.parse(result.stdout).response}`);
  };
  const started = Date.now();
  let first = 0;
  try {
    plan = ({ body }) =>
      isToolResult(body)
        ? { parts: [{ text: 'Watched: all green.' }] }
        : { parts: [shellCall('a1', 'echo build ok'), shellCall('b1', 'echo tests ok')] };
    await run('/babysit', false);
    first = standIn.requests.filter((request) => request.kind === 'stream').length;
    plan = ({ index, body }) => {
      if (index === first) return { parts: [shellCall('c2', 'echo big log')], promptTokens: 900_000 };
      if (index === first + 1) return { parts: [shellCall('d2', 'echo after')] };
      return isToolResult(body) ? { parts: [{ text: 'Resumed: still green.' }] } : undefined;
    };
    await run('keep watching', true);
  } finally {
    await standIn.close();
  }
  const seconds = (Date.now() - started) / 1000;
  print('\nrequest  kind                                   prompt tokens (reported)   carries the babysit rules');
  let agent = 0;
  for (const request of standIn.requests) {
    const kind = request.kind === 'stream' ? `agent #${++agent}` : 'compression (generateContent)';
    const usage = request.kind === 'stream' && agent === first + 1 ? '900,000 (its answer)' : '';
    print(
      `${String(standIn.requests.indexOf(request) + 1).padEnd(8)} ${kind.padEnd(38)} ${usage.padEnd(26)} ${request.text.includes(RULES) ? 'yes' : '—'}`,
    );
  }
  const log = path.join(project, '.hookwise', 'logs', 'compaction.jsonl');
  const compactions = existsSync(log)
    ? readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
    : [];
  for (const entry of compactions)
    print(
      `\ncompaction logged by hook-suggest: ${entry.trigger}, ${format(entry.tokensBefore)} → ${format(entry.tokensAfter)} tokens, preserved ${entry.preserved.join(', ') || 'nothing'} (PreCompress fired before every request; only this one compressed)`,
    );
  print(`${standIn.requests.length} requests to the stand-in, two Gemini runs in ${seconds.toFixed(1)} s.`);

  const chats = path.join(home, '.gemini', 'tmp', path.basename(project), 'chats');
  // --resume also leaves a 2-line stub file (0.61.0): the session is the biggest file.
  const files = readdirSync(chats)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => path.join(chats, name));
  const sessionFile = files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
  print(`\n$ hookwise report ${path.relative(project, sessionFile)}`);
  const report = spawnSync(process.execPath, [hookwise, 'report', sessionFile], { cwd: project, encoding: 'utf8' });
  if (report.status !== 0)
    throw new Error(`hookwise report on Gemini's session failed (exit ${report.status}): ${report.stderr.slice(-500)}`);
  print(report.stdout.trimEnd());
  return { compactions, requests: standIn.requests.length, reportText: report.stdout };
}
