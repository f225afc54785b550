// What hook-prune's policies cost on real sessions: every Claude Code transcript of 100 requests
// or more under fixtures/ (and ../shared/fixtures when it is there, or folders given with
// --sessions) replayed by `hookwise report` with hook-prune alone, one policy at a time.
// Per session and over all of them: input cost under prompt caching against not pruning
// (5-minute and 1-hour writes), lost of sourced edits, and the share of the history reclaimed at
// each compaction. With --floor, also what the same prunes would cost if breaking the cache cost
// nothing (each request writing only what is new to it): the least any schedule of them can cost.
// With --oracle, also the oracle keep rule (oracle.mjs), which knows every edit to come: the least
// a keep rule that loses no edit can cost, cleared at once and at its best break point.
// Usage: node bench/policies.mjs [--policy name,…] [--options json]… [--sessions dir,…] [--min 100] [--floor] [--oracle] [--json]
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { CACHE_WRITE_PRICES, cacheCost } from '@hookwise/core/counting';
import { oracleConfigSource } from './oracle.mjs';

const demoDir = fileURLToPath(new URL('..', import.meta.url));
const repoDir = path.resolve(demoDir, '../..');
const { values } = parseArgs({
  options: {
    policy: { type: 'string' },
    sessions: { type: 'string' },
    options: { type: 'string', multiple: true },
    min: { type: 'string', default: '100' },
    json: { type: 'boolean', default: false },
    floor: { type: 'boolean', default: false },
    oracle: { type: 'boolean', default: false },
  },
});

/** The policies compared: hook-prune's options as a project's config would give them. */
export const POLICIES = {
  default: {},
  window: { policy: 'window' },
  'keep-3-continuous': {
    protectTokens: 0,
    minimumTokens: 0,
    keepFileContext: 0,
    keepEditedFiles: false,
    cacheBreakRatio: 0,
    pressurePercent: 100,
  },
  'not-pruning': { protectTokens: Number.MAX_SAFE_INTEGER, pressurePercent: 100 },
};

/** The 5-minute cost with every cache break free: each request reads all it sends but what is new to it, which it writes. */
function freeBreakCost(result) {
  const { prefixTokens, edits } = result.cost;
  const requests = result.timeline
    .filter((entry) => entry.cacheTokens !== null)
    .map(({ cacheTokens: { without, withPrune } }) => {
      const sent = withPrune.readTokens + withPrune.writeTokens;
      const fresh = Math.min(without.writeTokens, sent);
      return { readTokens: sent - fresh, writeTokens: fresh };
    });
  return CACHE_WRITE_PRICES['5m'] * edits.rereadTokens + cacheCost(requests, prefixTokens, '5m');
}

function transcriptsUnder(dir) {
  const found = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory() && entry.name !== 'subagents') walk(file);
      else if (entry.isFile() && entry.name.endsWith('.jsonl')) found.push(file);
    }
  };
  walk(dir);
  return found;
}

const roots = values.sessions
  ? values.sessions.split(',')
  : [path.join(repoDir, 'fixtures/claude-code-transcripts'), path.resolve(repoDir, '../shared/fixtures/claude-code-transcripts')];
const byName = new Map();
for (const root of roots) {
  try {
    if (!statSync(root).isDirectory()) continue;
  } catch {
    continue;
  }
  for (const file of transcriptsUnder(root)) if (!byName.has(path.basename(file))) byName.set(path.basename(file), file);
}

const require = createRequire(import.meta.url);
const cliDir = path.dirname(require.resolve('@hookwise/cli/package.json'));
const { reportCommand } = await import(pathToFileURL(path.join(cliDir, 'dist', 'report', 'command.js')).href);

// Inside the demo, so the config resolves the plugins installed for it.
mkdirSync(path.join(demoDir, 'out'), { recursive: true });
const scratch = mkdtempSync(path.join(demoDir, 'out', 'policies-'));
let configs = 0;
async function report(transcript, options) {
  // Each config a file of its own: a module config is imported once per path.
  const configFile = path.join(scratch, `config-${++configs}.${options.oracle ? 'mjs' : 'json'}`);
  writeFileSync(
    configFile,
    options.oracle ? oracleConfigSource(transcript, options.oracle) : JSON.stringify({ plugins: { '@hookwise/hook-prune': options } }),
  );
  let json = '';
  const code = await reportCommand({
    transcript,
    json: true,
    projectDir: demoDir,
    configFile,
    stdout: (text) => (json += text),
    stderr: (text) => process.stderr.write(text),
  });
  if (code !== 0) throw new Error(`report exited ${code} on ${transcript}`);
  return JSON.parse(json);
}

// --options '{"keepRecent":5}' (repeatable): ad-hoc policies, named by their JSON.
for (const json of values.options ?? []) POLICIES[json] = JSON.parse(json);
const ORACLES = {
  'oracle (at once)': { oracle: { schedule: 'at-once' } },
  'oracle (best break, horizon 20)': { oracle: { schedule: 'best-break', horizon: 20 } },
};
Object.assign(POLICIES, ORACLES);
const names = [
  ...(values.options
    ? values.options
    : values.policy
      ? values.policy.split(',')
      : Object.keys(POLICIES).filter((name) => !(name in ORACLES))),
  ...(values.oracle ? Object.keys(ORACLES) : []),
];
const min = Number(values.min);
const fixed = (value, digits = 2) => value.toFixed(digits);
const results = [];
try {
  for (const name of names) {
    const options = POLICIES[name];
    if (!options) throw new Error(`unknown policy ${name}; known: ${Object.keys(POLICIES).join(', ')}`);
    const sums = { without5: 0, with5: 0, without1: 0, with1: 0, sourced: 0, lost: 0, floor5: 0 };
    let worst5 = 0;
    let worst1 = 0;
    let minReclaimed = Infinity;
    const rows = [];
    for (const [file, transcript] of byName) {
      const result = await report(transcript, options);
      if (!result.cost || result.cost.requests < min) continue;
      const { cost, compactions, prune } = result;
      sums.without5 += cost.without['5m'];
      sums.with5 += cost.withPrune['5m'];
      sums.without1 += cost.without['1h'];
      sums.with1 += cost.withPrune['1h'];
      sums.sourced += cost.edits.sourced;
      sums.lost += cost.edits.lost;
      const floor5 = freeBreakCost(result);
      sums.floor5 += floor5;
      worst5 = Math.max(worst5, cost.ratio['5m']);
      worst1 = Math.max(worst1, cost.ratio['1h']);
      const reclaimed = compactions
        .filter((compaction) => compaction.prune && compaction.prune.historyTokens > 0)
        .map((compaction) => compaction.prune.reclaimedTokens / compaction.prune.historyTokens);
      for (const share of reclaimed) minReclaimed = Math.min(minReclaimed, share);
      rows.push({
        file,
        requests: cost.requests,
        ratio5: cost.ratio['5m'],
        ratio1: cost.ratio['1h'],
        sourced: cost.edits.sourced,
        lost: cost.edits.lost,
        floor5: floor5 / cost.without['5m'],
        fromUsage: cost.fromUsage ? cost.fromUsage['5m'] / cost.without['5m'] : null,
        reclaimed,
        compactionsNeeded: prune.compactionsNeeded,
      });
    }
    const summary = {
      policy: name,
      options,
      sessions: rows.length,
      overall5: sums.with5 / sums.without5,
      floor5: sums.floor5 / sums.without5,
      overall1: sums.with1 / sums.without1,
      worst5,
      worst1,
      sourced: sums.sourced,
      lost: sums.lost,
      minReclaimed: Number.isFinite(minReclaimed) ? minReclaimed : null,
      rows,
    };
    results.push(summary);
    if (!values.json) {
      console.log(`\n${name}  ${JSON.stringify(options)}`);
      for (const row of rows) {
        const needed = row.compactionsNeeded ? `${row.compactionsNeeded.withPrune} of ${row.compactionsNeeded.without}` : '-';
        console.log(
          `  ${row.file.padEnd(52)} ${String(row.requests).padStart(4)} req  5m ${fixed(row.ratio5)}×  1h ${fixed(row.ratio1)}×  lost ${row.lost}/${row.sourced}  reclaimed at compactions ${row.reclaimed.map((share) => `${Math.round(share * 100)}%`).join(' ') || '-'}  compactions needed ${needed}  usage/model ${row.fromUsage === null ? '-' : fixed(row.fromUsage)}${values.floor ? `  free-break floor ${fixed(row.floor5)}×` : ''}`,
        );
      }
      console.log(
        `  overall: 5m ${fixed(summary.overall5)}× (worst ${fixed(worst5)}×)  1h ${fixed(summary.overall1)}× (worst ${fixed(worst1)}×)  lost ${sums.lost} of ${sums.sourced} sourced edits${values.floor ? `  free-break floor 5m ${fixed(summary.floor5)}×` : ''}`,
      );
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
if (values.json) console.log(JSON.stringify(results, null, 2));
