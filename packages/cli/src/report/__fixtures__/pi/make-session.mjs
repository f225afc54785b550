// Makes pi-session-long.jsonl: a real pi session file (pi 1.5.2 from scripts/install-pi.mjs, offline)
// against the loopback stand-in of @hookwise/adapter-pi's end-to-end suite, reporting cache reads
// and writes, three prompts and a threshold compaction inside the second. See README.md beside this file.
// Run: node packages/cli/src/report/__fixtures__/pi/make-session.mjs [out.jsonl]
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensurePi, newestSessionFile, offlinePiEnv, runPi, writeAgentDir } from '../../../../../adapter-pi/test/e2e/offline-pi.mjs';
import { planStep, prefixCacheUsage, startStandInModel } from '../../../../../adapter-pi/test/e2e/stand-in-model.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(process.argv[2] ?? path.join(here, 'pi-session-long.jsonl'));
const FILES = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'];
const line = (name, index) => `${name}-line-${String(index).padStart(3, '0')}: ${'lorem ipsum '.repeat(5).trim()} ${name}`;

/** Per prompt keyword, one tool call per step, then a text answer. */
const PLAN = {
  explore: [{ name: 'read', arguments: { path: 'src/alpha.txt' } }, { name: 'read', arguments: { path: 'src/bravo.txt' } }, { name: 'bash', arguments: { command: 'ls src' } }, { name: 'read', arguments: { path: 'src/charlie.txt' } }],
  fix: [
    { name: 'read', arguments: { path: 'src/missing.txt' } },
    { name: 'edit', arguments: { path: 'src/charlie.txt', edits: [{ oldText: line('charlie', 3), newText: `${line('charlie', 3)} (fixed)` }] } },
    { name: 'read', arguments: { path: 'src/delta.txt' } },
    { name: 'read', arguments: { path: 'src/echo.txt' } },
  ],
  last: [{ name: 'read', arguments: { path: 'src/foxtrot.txt' } }, { name: 'read', arguments: { path: 'src/alpha.txt' } }, { name: 'bash', arguments: { command: 'wc -l src/*.txt' } }],
};

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'hookwise-pi-fixture-')));
const project = path.join(root, 'project');
mkdirSync(path.join(project, 'src'), { recursive: true });
for (const name of FILES) writeFileSync(path.join(project, 'src', `${name}.txt`), `${Array.from({ length: 100 }, (_, index) => line(name, index + 1)).join('\n')}\n`);

// Every request of the session (titles and summaries too) goes through one model of Anthropic's cache.
const usageOf = prefixCacheUsage();
const model = await startStandInModel((body, kind) => {
  const usage = usageOf(body);
  if (kind === 'compaction') return { ...usage, text: 'Summary: three files read, one line of charlie.txt changed, two more files read.' };
  if (kind !== 'turn') return undefined;
  const { prompt, calls, call } = planStep(PLAN, body);
  // Right after a compaction pi's summary is the latest user message: the turn ends there.
  if (prompt.startsWith('The conversation history before this point was compacted')) return { ...usage, text: 'Back from the summary: nothing left to do.' };
  return call ? { ...usage, toolCalls: [call] } : { ...usage, text: `Done: ${calls.length} tool call(s).` };
});
try {
  const pi = ensurePi();
  const agentDir = path.join(root, 'agent');
  writeAgentDir(agentDir, { baseURL: model.baseURL, contextWindow: 16_000, compaction: { reserveTokens: 4_000, keepRecentTokens: 3_000 } });
  const env = offlinePiEnv({ nodeBinDir: pi.nodeBinDir, agentDir, home: path.join(root, 'home'), tmp: path.join(root, 'tmp') });
  const run = await runPi(pi, ['explore the files', 'fix charlie', 'read the last one'], { cwd: project, env });
  if (run.code !== 0) throw new Error(`pi exited ${run.code}: ${run.stderr.slice(-2000)}`);
  const text = readFileSync(newestSessionFile(agentDir), 'utf8').replaceAll(project, '/project');
  writeFileSync(out, text);
  const entries = text.trim().split('\n').map((entry) => JSON.parse(entry));
  process.stdout.write(`${out}: ${entries.length} entries, ${entries.filter((entry) => entry.type === 'compaction').length} compaction(s), ${model.requests.length} requests (${model.requests.filter((request) => request.kind === 'compaction').length} to summarise)\n`);
} finally {
  await model.close();
  rmSync(root, { recursive: true, force: true });
}
