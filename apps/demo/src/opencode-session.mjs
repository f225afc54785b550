// Part 3 of `npm run demo`: a real OpenCode session (the pinned opencode-ai from the workspace
// install) runs through hookwise's OpenCode plugin against a loopback stand-in model, and every
// request OpenCode sent is shown with what hook-prune took out of it; then the session, exported
// with `opencode export`, goes through `hookwise report`.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultTokenCounter } from '@hookwise/core/host';
// The stand-in model of the adapter's end-to-end suite: one copy for the tests and the demo.
import { contentText, sinceLastUser, startStandInModel } from '../../../packages/adapter-opencode/test/e2e/stand-in-model.mjs';
import { OPENCODE_VERSION, offlineEnv, opencodeBinary, standInOpencodeConfig, stubConfigFolder } from '../../../packages/adapter-opencode/test/e2e/offline-opencode.mjs';

const require = createRequire(import.meta.url);
const demoDir = fileURLToPath(new URL('..', import.meta.url));
const FILES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];

function run(binary, args, cwd, env) {
  return new Promise((resolve) => {
    const child = spawn(binary, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr, sessionId: /"sessionID":"([^"]+)"/.exec(stdout)?.[1] }));
  });
}

const format = (value) => Math.round(value).toLocaleString('en-US');

/**
 * Runs two prompts of one OpenCode session. The project lives in `out/opencode-project` so its
 * hookwise.config.json resolves the plugins installed for the demo. Returns the figures.
 */
export async function runOpenCodeSession({ print }) {
  const root = path.join(demoDir, 'out', 'opencode-demo');
  rmSync(root, { recursive: true, force: true });
  const project = path.join(root, 'project');
  const home = path.join(root, 'home');
  mkdirSync(path.join(project, 'src'), { recursive: true });
  mkdirSync(path.join(root, 'tmp'), { recursive: true });
  stubConfigFolder(path.join(project, '.opencode'));
  stubConfigFolder(path.join(home, '.config', 'opencode'));
  for (const name of FILES) writeFileSync(path.join(project, 'src', `${name}.txt`), Array.from({ length: 200 }, (_, line) => `${name} line ${line + 1}: ${'lorem ipsum '.repeat(6)}`).join('\n'));

  const model = await startStandInModel((body, kind) => {
    if (kind !== 'turn') return undefined;
    const users = body.messages.filter((message) => message.role === 'user');
    const prompt = contentText(users.at(-1));
    const step = sinceLastUser(body).filter((message) => message.role === 'assistant').length;
    const reads = prompt.includes('explore') ? FILES.slice(0, 5) : prompt.includes('last') ? FILES.slice(5) : [];
    const file = reads[step];
    return file ? { toolCalls: [{ name: 'read', arguments: { filePath: path.join(project, 'src', `${file}.txt`) } }] } : { text: `Read ${reads.length} file(s).` };
  });
  try {
    writeFileSync(
      path.join(project, 'opencode.json'),
      `${JSON.stringify(standInOpencodeConfig(model.baseURL, { read: 'allow', external_directory: 'allow' }), null, 2)}\n`,
    );
    // Six reads of six files: hook-prune's default (cache-aware) policy keeps the reads of files
    // in use, so a session this short prunes nothing. The window policy with small thresholds
    // shows the mechanics on the real host; the demo says so.
    writeFileSync(path.join(project, 'hookwise.config.json'), `${JSON.stringify({ plugins: { '@hookwise/hook-prune': { policy: 'window', protectTokens: 4_000, minimumTokens: 2_000 }, '@hookwise/hook-suggest': {} } }, null, 2)}\n`);
    print("hookwise.config.json: hook-prune with policy 'window' and small thresholds (its default, cache-aware, keeps the reads of files in use: in a session of six reads it prunes nothing)");
    const cli = require.resolve('@hookwise/cli/package.json');
    const hookwise = path.join(path.dirname(cli), JSON.parse(readFileSync(cli, 'utf8')).bin.hookwise);
    const init = spawnSync(process.execPath, [hookwise, 'init', '--host', 'opencode'], { cwd: project, encoding: 'utf8' });
    print(`$ hookwise init --host opencode\n${init.stdout.trim()}`);
    if (init.status !== 0) throw new Error(`hookwise init failed: ${init.stderr}`);

    const env = { PATH: process.env.PATH, ...offlineEnv({ home, tmp: path.join(root, 'tmp') }) };
    const binary = opencodeBinary(demoDir);
    const started = Date.now();
    print(`\n$ opencode run "explore the five files"   (OpenCode ${OPENCODE_VERSION}, model: the loopback stand-in)`);
    const first = await run(binary, ['run', '--format', 'json', 'explore', 'the', 'five', 'files'], project, env);
    if (first.code !== 0 || !first.sessionId) throw new Error(`opencode run failed (exit ${first.code}): ${first.stderr.slice(-500)}`);
    print(`$ opencode run --session ${first.sessionId} "read the last one"`);
    const second = await run(binary, ['run', '--format', 'json', '--session', first.sessionId, 'read', 'the', 'last', 'one'], project, env);
    if (second.code !== 0) throw new Error(`opencode run --session failed (exit ${second.code}): ${second.stderr.slice(-500)}`);
    const seconds = (Date.now() - started) / 1000;

    // Request by request: each tool result as sent; a result first seen whole and later sent
    // shorter is what hook-prune took out of that request.
    print('\nrequest  tool results sent (chars)                                      pruned from this request');
    const original = new Map();
    const figures = [];
    for (const request of model.requests.filter((entry) => entry.kind === 'turn')) {
      const cells = [];
      let prunedTokens = 0;
      let prunedCount = 0;
      for (const message of request.body.messages) {
        if (message.role !== 'tool') continue;
        const text = contentText(message);
        const before = original.get(message.tool_call_id);
        if (before === undefined) original.set(message.tool_call_id, text);
        if (before !== undefined && text.length < before.length) {
          prunedCount++;
          prunedTokens += defaultTokenCounter.count(before) - defaultTokenCounter.count(text);
          cells.push(`✂${format(text.length)}`);
        } else cells.push(format(text.length));
      }
      figures.push({ request: request.index, prunedCount, prunedTokens });
      const label = `#${String(request.index + 1).padEnd(3)}`;
      print(`${label}     ${(cells.join(' ') || '(none)').padEnd(62)} ${prunedCount > 0 ? `${prunedCount} output(s), ~${format(prunedTokens)} tokens` : '—'}`);
    }
    // The event log exists once something was logged (nothing when hook-prune pruned nothing).
    const log = path.join(project, '.hookwise', 'logs', 'events.jsonl');
    const events = (existsSync(log) ? readFileSync(log, 'utf8') : '')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const applied = events.filter((event) => event.type === 'prune:applied');
    print(`\n✂ = replaced by hook-prune's placeholder in the request; OpenCode's stored session keeps every output (opencode export).`);
    print(`hook-prune's event log: ${applied.map((event) => `prune:applied ${event.prunedCount} output(s), ${format(event.tokensReclaimed)} tokens reclaimed`).join('; ') || 'nothing applied'}`);
    print(`${model.requests.length} requests to the stand-in (${model.requests.filter((entry) => entry.kind === 'title').length} title), two OpenCode runs in ${seconds.toFixed(1)} s.`);

    // The same session as OpenCode stored it (the originals, not the pruned requests), replayed by `hookwise report`.
    // Into a file, as `> session.json` does: through a pipe OpenCode 1.18.33 cuts the export at a 64 KiB multiple.
    const sessionFile = path.join(root, 'session.json');
    const output = openSync(sessionFile, 'w');
    const exported = spawnSync(binary, ['export', first.sessionId], { cwd: project, env, stdio: ['ignore', output, 'pipe'], encoding: 'utf8' });
    closeSync(output);
    if (exported.status !== 0) throw new Error(`opencode export failed (exit ${exported.status}): ${exported.stderr.slice(-500)}`);
    print(`\n$ opencode export ${first.sessionId} > ${path.relative(project, sessionFile)}\n$ hookwise report ${path.relative(project, sessionFile)}`);
    const report = spawnSync(process.execPath, [hookwise, 'report', sessionFile], { cwd: project, encoding: 'utf8' });
    if (report.status !== 0) throw new Error(`hookwise report on the export failed (exit ${report.status}): ${report.stderr.slice(-500)}`);
    print(report.stdout.trimEnd());
    const live = figures.filter((figure) => figure.prunedCount > 0);
    print(`(the live run above: ${format(live.reduce((sum, figure) => sum + figure.prunedTokens, 0))} tokens not sent, ${live.length} of ${figures.length} requests pruned)`);
    return { requests: figures, applied, seconds, sessionFile, reportText: report.stdout };
  } finally {
    await model.close();
  }
}
