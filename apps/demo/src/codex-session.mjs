// Part of `npm run demo`: a real Codex CLI session (0.169.0, installed once into ~/.cache/hookwise
// by scripts/install-codex.mjs) runs with @hookwise/adapter-codex's command hooks against a
// loopback stand-in of the Responses API. Codex compacts when a response reports more usage
// than its limit; what hookwise added to each request is shown, then the compaction log and
// `hookwise report` on Codex's rollout file.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CODEX_VERSION, codexPaths, ensureCodex } from '../../../scripts/install-codex.mjs';
import { itemText, startStandInResponses } from '../../../test-support/stand-in-responses.mjs';
import { demoProject, format, hookwiseEvents, hookwiseInit, textFiles } from './live-session.mjs';

const demoDir = fileURLToPath(new URL('..', import.meta.url));
const INSTALL_SCRIPT = fileURLToPath(new URL('../../../scripts/install-codex.mjs', import.meta.url));
const RULES = 'REVIEW RULES: run the tests after every edit; never push to main.';
const shell = (cmd) => ({ name: 'exec_command', arguments: { cmd, yield_time_ms: 60_000 } });
const REPLIES = [
  { toolCalls: [shell('wc -l src/a.txt'), shell('wc -l src/b.txt')], inputTokens: 24_000, cachedTokens: 20_000 },
  { toolCalls: [shell('head -3 src/a.txt')], inputTokens: 61_000, cachedTokens: 23_500 },
  { toolCalls: [shell('tail -3 src/b.txt')], inputTokens: 104_000, cachedTokens: 60_500 },
  { text: 'Reviewed both files against the rules.', inputTokens: 9_000 },
];

function installCodex(print) {
  const cached = codexPaths();
  if (!existsSync(cached.launcher) || !existsSync(cached.binary)) {
    print(`installing Codex CLI ${CODEX_VERSION} into ${cached.cacheDir} (once, from npm, ~300 MB)…`);
    const install = spawnSync(process.execPath, [INSTALL_SCRIPT], {
      encoding: 'utf8',
      env: { ...process.env, npm_config_fetch_retries: '1' },
    });
    if (install.status !== 0) {
      print(
        `Codex part skipped: Codex ${CODEX_VERSION} could not be installed (${install.stderr.trim().split('\n').at(-1) ?? `exit ${install.status}`})`,
      );
      return undefined;
    }
  }
  return ensureCodex();
}

const newestRollout = (folder) => {
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else if (entry.name.startsWith('rollout-')) files.push(path.join(dir, entry.name));
  };
  walk(folder);
  return files.sort().at(-1);
};

/** Runs the Codex part; never throws for a machine without Codex: it says so in one line. */
export async function runCodexSession({ print }) {
  const codex = installCodex(print);
  if (!codex) return undefined;
  const root = path.join(demoDir, 'out', 'codex-demo');
  const project = demoProject(root, {
    files: {
      ...textFiles(['a', 'b'], 40, (name) => name),
      '.codex/prompts/review-rules.md': `Review the change against the rules.\n\n<!-- COMPACT_SUMMARY_START -->\n${RULES}\n<!-- COMPACT_SUMMARY_END -->\n`,
    },
    plugins: { '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': { toolCalls: 3, toolCallStep: 100 } },
  });
  const codexHome = path.join(root, 'codex-home');
  mkdirSync(codexHome, { recursive: true });
  // Codex takes the enclosing git repository's root as the project (its .codex/ and its trust):
  // the demo's project below this clone is made a repository of its own.
  spawnSync('git', ['init', '-q'], { cwd: project });
  const hookwise = hookwiseInit(project, 'codex', print);

  let turn = 0;
  const model = await startStandInResponses((_body, kind) =>
    kind === 'compaction'
      ? { text: 'Summary: both files were read.', inputTokens: 104_500 }
      : REPLIES[Math.min(turn++, REPLIES.length - 1)],
  );
  try {
    writeFileSync(
      path.join(codexHome, 'config.toml'),
      `model = "gpt-standin"\nmodel_provider = "standin"\napproval_policy = "never"\nsandbox_mode = "danger-full-access"\nmodel_auto_compact_token_limit = 100000\nmodel_context_window = 200000\ncheck_for_update_on_startup = false\nallow_login_shell = false\n\n[model_providers.standin]\nname = "loopback stand-in"\nbase_url = "${model.baseURL}"\nwire_api = "responses"\n\n[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n`,
    );
    const prompt = '/review-rules check src/';
    print(
      `\n$ codex exec --dangerously-bypass-hook-trust "${prompt}"   (Codex ${CODEX_VERSION}, model: the loopback stand-in; compacts past 100,000 tokens)`,
    );
    const started = Date.now();
    const child = spawn(
      process.execPath,
      [codex.launcher, 'exec', '--dangerously-bypass-approvals-and-sandbox', '--dangerously-bypass-hook-trust', '--json', prompt],
      {
        cwd: project,
        env: { ...process.env, CODEX_HOME: codexHome },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.stdout.resume();
    const code = await new Promise((resolve) => child.on('close', resolve));
    if (code !== 0) throw new Error(`codex exited ${code}: ${stderr.slice(-800)}`);

    print(
      `\n${model.requests.length} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; what hookwise's hooks added to each (Codex sends hook context as developer messages):`,
    );
    for (const [index, request] of model.requests.entries()) {
      const added = request.body.input
        .filter(
          (item) =>
            item.role === 'developer' &&
            item.internal_chat_message_metadata_passthrough === undefined &&
            /hookwise|RULES|Consider/.test(itemText(item)),
        )
        .map((item) =>
          itemText(item)
            .split('\n')
            .find((text) => /RULES|Consider|hookwise/.test(text)),
        );
      print(
        `  ${String(index + 1).padStart(2)}. ${request.kind.padEnd(10)} ${added.length ? added.map((text) => `+ ${text.slice(0, 110)}`).join(' | ') : '(nothing added)'}`,
      );
    }
    const events = hookwiseEvents(project).filter((event) => event.type !== 'hook:error');
    print(`\nhookwise events: ${events.map((event) => event.type).join(', ') || 'none'}`);
    const log = path.join(project, '.hookwise', 'logs', 'compaction.jsonl');
    for (const record of existsSync(log)
      ? readFileSync(log, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line))
      : [])
      print(
        `compaction log: ${record.trigger}, ${format(record.tokensBefore ?? 0)} → ${format(record.tokensAfter ?? 0)} tokens, preserved ${(record.preserved ?? []).join(', ') || 'nothing'}`,
      );
    const rollout = newestRollout(path.join(codexHome, 'sessions'));
    if (rollout) {
      const report = spawnSync(process.execPath, [hookwise, 'report', rollout], { cwd: project, encoding: 'utf8' });
      print(`\n$ hookwise report ${path.relative(root, rollout)}\n${report.stdout.trim().split('\n').slice(0, 24).join('\n')}`);
    }
  } finally {
    await model.close();
  }
  return { project };
}
