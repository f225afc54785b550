// Part 3 of `npm run demo`: a real OpenCode session (the pinned opencode-ai from the workspace
// install) runs through hookwise's OpenCode plugin against a loopback stand-in model, and every
// request OpenCode sent is shown with what hook-prune took out of it; then the session, exported
// with `opencode export`, goes through `hookwise report`.
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// The adapter's end-to-end helpers: one copy for the tests and the demo.
import { planStep, startStandInModel } from '../../../packages/adapter-opencode/test/e2e/stand-in-model.mjs';
import {
  exportOpenCodeSession,
  OPENCODE_VERSION,
  offlineEnv,
  opencodeBinary,
  runOpenCode,
  scratchOpenCodeFolders,
  standInOpencodeConfig,
} from '../../../packages/adapter-opencode/test/e2e/offline-opencode.mjs';
import { appliedLine, format, hookwiseEvents, hookwiseInit, toolOutputsSent } from './live-session.mjs';

const demoDir = fileURLToPath(new URL('..', import.meta.url));
const FILES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];

/**
 * Runs two prompts of one OpenCode session. The project lives in `out/opencode-project` so its
 * hookwise.config.json resolves the plugins installed for the demo. Returns the figures.
 */
export async function runOpenCodeSession({ print }) {
  const root = path.join(demoDir, 'out', 'opencode-demo');
  rmSync(root, { recursive: true, force: true });
  const { project, home, tmp } = scratchOpenCodeFolders(root);
  for (const name of FILES)
    writeFileSync(
      path.join(project, 'src', `${name}.txt`),
      Array.from({ length: 200 }, (_, line) => `${name} line ${line + 1}: ${'lorem ipsum '.repeat(6)}`).join('\n'),
    );

  const model = await startStandInModel((body, kind) => {
    if (kind !== 'turn') return undefined;
    const { calls: reads, call: file } = planStep({ explore: FILES.slice(0, 5), last: FILES.slice(5) }, body);
    return file
      ? { toolCalls: [{ name: 'read', arguments: { filePath: path.join(project, 'src', `${file}.txt`) } }] }
      : { text: `Read ${reads.length} file(s).` };
  });
  try {
    writeFileSync(
      path.join(project, 'opencode.json'),
      `${JSON.stringify(standInOpencodeConfig(model.baseURL, { read: 'allow', external_directory: 'allow' }), null, 2)}\n`,
    );
    // Six reads of six files: hook-prune's default (cache-aware) policy keeps the reads of files
    // in use, so a session this short prunes nothing. The window policy with small thresholds
    // shows the mechanics on the real host; the demo says so.
    writeFileSync(
      path.join(project, 'hookwise.config.json'),
      `${JSON.stringify({ plugins: { '@hookwise/hook-prune': { policy: 'window', protectTokens: 4_000, minimumTokens: 2_000 }, '@hookwise/hook-suggest': {} } }, null, 2)}\n`,
    );
    print(
      "hookwise.config.json: hook-prune with policy 'window' and small thresholds (its default, cache-aware, keeps the reads of files in use: in a session of six reads it prunes nothing)",
    );
    const hookwise = hookwiseInit(project, 'opencode', print);

    const env = { PATH: process.env.PATH, ...offlineEnv({ home, tmp }) };
    const binary = opencodeBinary(demoDir);
    const started = Date.now();
    print(`\n$ opencode run "explore the five files"   (OpenCode ${OPENCODE_VERSION}, model: the loopback stand-in)`);
    const first = await runOpenCode(binary, ['run', '--format', 'json', 'explore', 'the', 'five', 'files'], { cwd: project, env });
    if (first.code !== 0 || !first.sessionId) throw new Error(`opencode run failed (exit ${first.code}): ${first.stderr.slice(-500)}`);
    print(`$ opencode run --session ${first.sessionId} "read the last one"`);
    const second = await runOpenCode(binary, ['run', '--format', 'json', '--session', first.sessionId, 'read', 'the', 'last', 'one'], {
      cwd: project,
      env,
    });
    if (second.code !== 0) throw new Error(`opencode run --session failed (exit ${second.code}): ${second.stderr.slice(-500)}`);
    const seconds = (Date.now() - started) / 1000;

    print('\nrequest  tool results sent (chars)                                      pruned from this request');
    const figures = toolOutputsSent(model.requests);
    for (const { index, cells, prunedCount, prunedTokens } of figures) {
      print(
        `#${String(index + 1).padEnd(3)}     ${(cells.join(' ') || '(none)').padEnd(62)} ${prunedCount > 0 ? `${prunedCount} output(s), ~${format(prunedTokens)} tokens` : '—'}`,
      );
    }
    const events = hookwiseEvents(project);
    const applied = events.filter((event) => event.type === 'prune:applied');
    print(`\n✂ = replaced by hook-prune's placeholder in the request; OpenCode's stored session keeps every output (opencode export).`);
    print(appliedLine(applied));
    print(
      `${model.requests.length} requests to the stand-in (${model.requests.filter((entry) => entry.kind === 'title').length} title), two OpenCode runs in ${seconds.toFixed(1)} s.`,
    );

    // The same session as OpenCode stored it (the originals, not the pruned requests), replayed by `hookwise report`.
    const sessionFile = path.join(root, 'session.json');
    const exported = exportOpenCodeSession(binary, first.sessionId, sessionFile, { cwd: project, env });
    if (exported.status !== 0) throw new Error(`opencode export failed (exit ${exported.status}): ${exported.stderr.slice(-500)}`);
    print(
      `\n$ opencode export ${first.sessionId} > ${path.relative(project, sessionFile)}\n$ hookwise report ${path.relative(project, sessionFile)}`,
    );
    const report = spawnSync(process.execPath, [hookwise, 'report', sessionFile], { cwd: project, encoding: 'utf8' });
    if (report.status !== 0) throw new Error(`hookwise report on the export failed (exit ${report.status}): ${report.stderr.slice(-500)}`);
    print(report.stdout.trimEnd());
    print(
      '(why pruning costs more than not pruning here: the window policy clears outputs as soon as they age, so an early message changes\n' +
        " and the provider writes the cached tail again; in a session this short that outweighs the tokens not sent. hook-prune's default\n" +
        ' policy prunes only when a batch pays back that write, and so prunes nothing in six reads: `hookwise report` on the recorded\n' +
        ' Claude Code session above shows it on a long session.)',
    );
    const live = figures.filter((figure) => figure.prunedCount > 0);
    print(
      `(the live run above: ${format(live.reduce((sum, figure) => sum + figure.prunedTokens, 0))} tokens not sent, ${live.length} of ${figures.length} requests pruned)`,
    );
    return { requests: figures, applied, seconds, sessionFile, reportText: report.stdout };
  } finally {
    await model.close();
  }
}
