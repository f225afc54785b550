// Part 4 of `npm run demo`: a real pi session (pi 1.5.2 with its own Node 22, installed once into
// ~/.cache/hookwise by scripts/install-pi.mjs) runs with @hookwise/adapter-pi against a loopback
// stand-in model; every request pi sent is shown with what hookwise took out of it, then pi's
// session file (the originals) goes through `hookwise report`.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// The adapter's end-to-end helpers: one copy for the tests and the demo.
import {
  ensurePi,
  newestSessionFile,
  offlinePiEnv,
  PI_VERSION,
  runPi,
  writeAgentDir,
} from '../../../packages/adapter-pi/test/e2e/offline-pi.mjs';
import { planStep, prefixCacheUsage, startStandInModel } from '../../../packages/adapter-pi/test/e2e/stand-in-model.mjs';
import { piPaths } from '../../../scripts/install-pi.mjs';
import { appliedLine, demoProject, format, hookwiseEvents, hookwiseInit, textFiles, toolOutputsSent } from './live-session.mjs';

const demoDir = fileURLToPath(new URL('..', import.meta.url));
const INSTALL_SCRIPT = fileURLToPath(new URL('../../../scripts/install-pi.mjs', import.meta.url));
const FILES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];
const CONTEXT_WINDOW = 32_000;
const line = (name, index) => `${name}-line-${String(index).padStart(3, '0')}: ${'lorem ipsum '.repeat(5).trim()}`;

/** Per prompt keyword, one tool call per step, then a text answer: five reads, ten small checks, a read and an edit. */
const PLAN = {
  explore: FILES.slice(0, 5).map((name) => ({ name: 'read', arguments: { path: `src/${name}.txt` } })),
  check: FILES.map((name) => ({ name: 'bash', arguments: { command: `wc -l src/${name}.txt` } })),
  fix: [
    { name: 'read', arguments: { path: 'src/hotel.txt' } },
    { name: 'edit', arguments: { path: 'src/hotel.txt', edits: [{ oldText: line('hotel', 7), newText: `${line('hotel', 7)} (fixed)` }] } },
  ],
};
const PROMPTS = ['explore the files', 'check every file', 'fix hotel'];

/** The stand-in's answers, with cache figures from a model of Anthropic's cache. */
function responder() {
  const usageOf = prefixCacheUsage();
  return (body, kind) => {
    if (kind !== 'turn') return undefined;
    const usage = usageOf(body);
    const { calls, call } = planStep(PLAN, body);
    return call ? { ...usage, toolCalls: [call] } : { ...usage, text: `Done: ${calls.length} tool call(s).` };
  };
}

/** One project and one pi run: `hookwise init --host pi`, then three prompts of one session. */
async function session({ root, pi, prune, print }) {
  const project = demoProject(root, {
    files: textFiles(FILES, 120, line),
    plugins: { '@hookwise/hook-prune': prune, '@hookwise/hook-suggest': {}, '@hookwise/hook-precompact': {} },
  });
  const hookwise = hookwiseInit(project, 'pi', print);

  const model = await startStandInModel(responder());
  try {
    const agentDir = path.join(root, 'agent');
    writeAgentDir(agentDir, { baseURL: model.baseURL, contextWindow: CONTEXT_WINDOW });
    const env = offlinePiEnv({ nodeBinDir: pi.nodeBinDir, agentDir, home: path.join(root, 'home'), tmp: path.join(root, 'tmp') });
    print(
      `\n$ pi -p ${PROMPTS.map((prompt) => `"${prompt}"`).join(' ')}   (pi ${PI_VERSION}, model: the loopback stand-in, a ${format(CONTEXT_WINDOW)}-token window)`,
    );
    const started = Date.now();
    const run = await runPi(pi, PROMPTS, { cwd: project, env });
    if (run.code !== 0) throw new Error(`pi exited ${run.code}: ${run.stderr.slice(-800)}`);
    const seconds = (Date.now() - started) / 1000;

    const requests = toolOutputsSent(model.requests);
    const events = hookwiseEvents(project);
    return { project, hookwise, requests, events, seconds, sessionFile: newestSessionFile(agentDir), total: model.requests.length };
  } finally {
    await model.close();
  }
}

/**
 * pi from the cache, installed there first when missing — in a child process whose npm output
 * is kept, so a machine without network gets one line saying why, not npm's pages of errors.
 */
function installPi(print) {
  const cached = piPaths();
  if (!existsSync(cached.piCli) || !existsSync(cached.node)) {
    print(`installing pi ${PI_VERSION} and its Node 22 into ${cached.cacheDir} (once, from npm)…`);
    const install = spawnSync(process.execPath, [INSTALL_SCRIPT], {
      encoding: 'utf8',
      env: { ...process.env, npm_config_fetch_retries: '1' },
    });
    if (install.status !== 0) {
      const reason =
        install.stderr.split('\n').find((text) => /npm error (code|network|request)/.test(text)) ??
        install.stderr.trim().split('\n').at(-1) ??
        `exit ${install.status}`;
      print(`pi part skipped: pi ${PI_VERSION} could not be installed (${reason.replace(/^npm error /, '').trim()})`);
      return undefined;
    }
  }
  try {
    return ensurePi();
  } catch (error) {
    print(`pi part skipped: ${String(error.message ?? error).split('\n')[0]}`);
    return undefined;
  }
}

/**
 * Runs the pi part; never throws for a machine without pi (no network to install it): it says so
 * in one line and returns undefined. hook-prune keeps its defaults unless they prune nothing in
 * this short session; then the smallest thresholds (its floors) show it, and the output says so.
 */
export async function runPiSession({ print }) {
  const pi = installPi(print);
  if (!pi) return undefined;
  const root = path.join(demoDir, 'out', 'pi-demo');
  let facts = await session({ root, pi, prune: {}, print });
  let prune = 'its defaults';
  if (!facts.requests.some((request) => request.prunedCount > 0)) {
    const small = { protectTokens: 2_000, minimumTokens: 500 };
    print(
      `\nhook-prune's default policy pruned nothing in this short session; again with ${JSON.stringify(small)}, its smallest thresholds:`,
    );
    facts = await session({ root, pi, prune: small, print });
    prune = JSON.stringify(small);
  }
  print(`\nrequest  tool outputs sent (chars)                                      taken out by hookwise (hook-prune: ${prune})`);
  for (const request of facts.requests) {
    print(
      `#${String(request.index + 1).padEnd(3)}     ${(request.cells.join(' ') || '(none)').padEnd(62)} ${request.prunedCount > 0 ? `${request.prunedCount} output(s) cleared, ~${format(request.prunedTokens)} tokens` : '—'}`,
    );
  }
  const applied = facts.events.filter((event) => event.type === 'prune:applied');
  print(`\n✂ = replaced by hook-prune's placeholder in the request pi sent; pi's session file keeps every output.`);
  print(appliedLine(applied));
  print(`${facts.total} requests to the stand-in, one pi run of three prompts in ${facts.seconds.toFixed(1)} s.`);

  print(`\n$ hookwise report ${path.relative(facts.project, facts.sessionFile)}`);
  const report = spawnSync(process.execPath, [facts.hookwise, 'report', facts.sessionFile], { cwd: facts.project, encoding: 'utf8' });
  if (report.status !== 0) throw new Error(`hookwise report on pi's session failed (exit ${report.status}): ${report.stderr.slice(-500)}`);
  print(report.stdout.trimEnd());
  const live = facts.requests.filter((request) => request.prunedCount > 0);
  print(
    `(the live run above: ${format(live.reduce((sum, request) => sum + request.prunedTokens, 0))} tokens not sent, ${live.length} of ${facts.requests.length} requests pruned)`,
  );
  return { ...facts, reportText: report.stdout };
}
