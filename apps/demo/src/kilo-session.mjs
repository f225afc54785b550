// Part 6 of `npm run demo`: a real Kilo session (the Kilo CLI installed once into ~/.cache/hookwise
// by scripts/install-kilo.mjs) runs with @hookwise/adapter-kilo against a loopback stand-in model;
// every request Kilo sent is shown with what hook-prune took out of it, then the session, exported
// with `kilo export`, goes through `hookwise report`.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// The adapter's end-to-end helpers: one copy for the tests and the demo.
import {
  ensureKilo,
  exportKiloSession,
  offlineKiloEnv,
  runKilo,
  standInKiloConfig,
} from '../../../packages/adapter-kilo/test/e2e/offline-kilo.mjs';
import { planStep, startStandInModel } from '../../../packages/adapter-kilo/test/e2e/stand-in-model.mjs';
import { appliedLine, demoProject, format, hookwiseEvents, hookwiseInit, textFiles, toolOutputsSent } from './live-session.mjs';

const demoDir = fileURLToPath(new URL('..', import.meta.url));
const FILES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet'];

/** Kilo from the cache, installed there first when missing; one line and undefined when it cannot be. */
function installKilo(print) {
  const install = spawnSync(process.execPath, [fileURLToPath(new URL('../../../scripts/install-kilo.mjs', import.meta.url))], {
    encoding: 'utf8',
    env: { ...process.env, npm_config_fetch_retries: '1' },
  });
  if (install.status !== 0) {
    const reason = install.stderr.split('\n').find((text) => /npm error (code|network|request)/.test(text)) ?? `exit ${install.status}`;
    print(`Kilo part skipped: the Kilo CLI could not be installed (${reason.replace(/^npm error /, '').trim()})`);
    return undefined;
  }
  return ensureKilo();
}

/**
 * One Kilo run of ten shell reads with hook-prune's default policy, hook-suggest and
 * hook-precompact. Never throws for a machine without Kilo: it says so in one line.
 */
export async function runKiloSession({ print }) {
  const kilo = installKilo(print);
  if (!kilo) return undefined;
  const root = path.join(demoDir, 'out', 'kilo-demo');
  const project = demoProject(root, {
    files: textFiles(FILES, 200, (name, line) => `${name}-line-${line}: ${'lorem ipsum '.repeat(6)}`),
    plugins: { '@hookwise/hook-prune': {}, '@hookwise/hook-suggest': {}, '@hookwise/hook-precompact': {} },
  });
  const model = await startStandInModel((body, kind) => {
    if (kind !== 'turn') return undefined;
    const { calls, call } = planStep(
      { survey: FILES.map((name) => ({ name: 'bash', arguments: { command: `cat src/${name}.txt`, description: `show ${name}` } })) },
      body,
    );
    return call ? { toolCalls: [call] } : { text: `Done: ${calls.length} file(s) shown.` };
  });
  try {
    writeFileSync(path.join(project, 'kilo.jsonc'), standInKiloConfig(model.baseURL));
    const hookwise = hookwiseInit(project, 'kilo', print);
    const env = offlineKiloEnv({ home: path.join(root, 'home'), tmp: path.join(root, 'tmp') });
    mkdirSync(env.TMPDIR, { recursive: true });
    print(`\n$ kilo run --format json survey the files   (Kilo ${kilo.binaryVersion}, model: the loopback stand-in)`);
    const started = Date.now();
    const run = await runKilo(kilo.kilo, ['run', '--format', 'json', 'survey', 'the', 'files'], { cwd: project, env });
    if (run.code !== 0) throw new Error(`kilo exited ${run.code}: ${run.stderr.slice(-800)}`);
    const seconds = (Date.now() - started) / 1000;

    const requests = toolOutputsSent(model.requests);
    print(
      '\nrequest  tool outputs sent (chars)                                                  taken out by hookwise (hook-prune: its defaults)',
    );
    for (const request of requests)
      print(
        `#${String(request.index + 1).padEnd(3)}     ${(request.cells.join(' ') || '(none)').padEnd(74)} ${request.prunedCount > 0 ? `${request.prunedCount} output(s) cleared, ~${format(request.prunedTokens)} tokens` : '—'}`,
      );
    print(`\n✂ = replaced by hook-prune's placeholder in the request Kilo sent; \`kilo export\` keeps every output.`);
    print(appliedLine(hookwiseEvents(project).filter((event) => event.type === 'prune:applied')));
    print(`${model.requests.length} requests to the stand-in, one Kilo run in ${seconds.toFixed(1)} s.`);

    const exported = path.join(project, 'kilo-export.json');
    const result = exportKiloSession(kilo.kilo, run.sessionId, exported, { cwd: project, env });
    if (result.status !== 0) throw new Error(`kilo export failed (exit ${result.status}): ${result.stderr.slice(-500)}`);
    print(`\n$ kilo export ${run.sessionId} > kilo-export.json && hookwise report kilo-export.json`);
    const report = spawnSync(process.execPath, [hookwise, 'report', exported], { cwd: project, encoding: 'utf8' });
    if (report.status !== 0)
      throw new Error(`hookwise report on Kilo's export failed (exit ${report.status}): ${report.stderr.slice(-500)}`);
    print(report.stdout.trimEnd());
    return { requests, reportText: report.stdout };
  } finally {
    await model.close();
  }
}
