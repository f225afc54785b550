// What hook-prune costs `hookwise report` on the recorded session in fixtures/ (2,385 lines,
// 218 requests): the session's requests replayed as the report replays them (before each API
// response, the history since the latest compaction, growing: the same message objects with
// new ones appended), each iteration on fresh message objects, as each report reads the file
// anew (so nothing learnt in an earlier iteration applies). Per session (218 requests):
//   - a session's pruner (createPruner) alone, with the plugin's sticky flow (the ids of each committed batch
//     handed back) and its pressure rule (minimum 0 from 70 % of the window);
//   - the plugin's llm:before hook through core's engine (memory state, ephemeral, as the
//     report builds it), and the same engine with a hook that returns nothing (the engine's
//     own share): the difference is hook-prune's share of a report run.
// Medians of wall time (tinybench) and of this process's CPU time per session. Imports the
// built packages: run `npx tsup` in packages/core and here first.
//   node bench/replay.mjs [transcript.jsonl]
import { definePlugin } from '@hookwise/core';
import { createEngine, createLogger, createMemoryEventLog, createMemoryStateStore } from '@hookwise/core/host';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { createPruner, prune, thresholdsFor } from '../dist/index.js';
import { sessionRequests } from './requests.mjs';

const file =
  process.argv[2] ??
  fileURLToPath(
    new URL('../../../fixtures/claude-code-transcripts/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl', import.meta.url),
  );
const { messages, requests } = await sessionRequests(file);

const PRESSURE_PERCENT = 70; // the plugin's default
/** A session's pruner as the plugin calls it (default options), on one session's requests. */
function pruneSession(history) {
  const pruner = createPruner();
  let prunedIds;
  let pruned = 0;
  for (const request of requests) {
    const { protectTokens, minimumTokens } = thresholdsFor(request.model);
    const underPressure = (request.contextTokens ?? 0) >= (200_000 * PRESSURE_PERCENT) / 100;
    const messages = history.slice(request.start, request.end);
    const result = pruner.prune(messages, {
      protectTokens,
      minimumTokens: underPressure ? 0 : minimumTokens,
      ...(prunedIds !== undefined ? { previouslyPruned: [...prunedIds] } : {}),
    });
    if (result.decision === 'pruned') prunedIds = result.prunedIds;
    if (result.messages !== messages) pruned++;
  }
  return pruned;
}

const noop = definePlugin({
  meta: { name: 'noop', version: '0.0.0' },
  on: { 'llm:before': () => undefined },
});
function engineWith(plugin) {
  return createEngine({
    config: { plugins: [plugin], logLevel: 'warn' },
    projectDir: path.dirname(file),
    host: 'replay',
    ephemeral: true,
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: createLogger({ level: 'warn', write: () => {} }),
  });
}
/** One session through an engine: llm:before before every request, as the report emits it. */
async function engineSession(engine, history) {
  let changed = 0;
  for (const request of requests) {
    const outcome = await engine.emit('llm:before', {
      sessionId: 'bench',
      systemPrompt: '',
      messages: history.slice(request.start, request.end),
      ...(request.contextTokens !== undefined ? { contextTokens: request.contextTokens } : {}),
      ...(request.model !== undefined ? { model: request.model } : {}),
    });
    if (outcome.errors.length > 0) throw new Error(outcome.errors[0].message);
    if (outcome.value !== undefined) changed++;
  }
  return changed;
}

// Each iteration gets fresh message objects and a fresh engine, made before its clock starts.
// (No forced GC there: a full collection before each session makes the session itself slower
// and far noisier, 6 -> 16 ms median, unlike anything a report run sees.)
let history;
let engine;
const results = new Map();
const cpu = new Map();
const task = (name, makeEngine, run) => {
  const samples = [];
  cpu.set(name, samples);
  let start;
  return [
    name,
    async () => results.set(name, await run()),
    {
      beforeEach() {
        history = structuredClone(messages);
        engine = makeEngine?.();
        start = process.cpuUsage();
      },
      afterEach(mode) {
        const used = process.cpuUsage(start);
        if (mode === 'run') samples.push((used.user + used.system) / 1000);
      },
    },
  ];
};
const PRUNE = 'a session pruner (sticky, pressure rule)';
const PLUGIN = 'engine + hook-prune llm:before';
const NOOP = 'engine + a no-op llm:before hook';
const bench = new Bench({ iterations: 30, time: 0, warmupIterations: 15 });
bench.add(...task(PRUNE, undefined, () => pruneSession(history)));
bench.add(
  ...task(
    PLUGIN,
    () => engineWith(prune()),
    () => engineSession(engine, history),
  ),
);
bench.add(
  ...task(
    NOOP,
    () => engineWith(noop()),
    () => engineSession(engine, history),
  ),
);
await bench.run();

const medianOf = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
console.log(
  `${path.basename(file)}: ${requests.length} requests, ${messages.length} messages; Node ${process.version}; load average ${os.loadavg()[0].toFixed(1)} on ${os.availableParallelism()} cores`,
);
const rows = {};
for (const t of bench.tasks) {
  if (t.result.state !== 'completed') throw t.result.error ?? new Error(`${t.name}: ${t.result.state}`);
  rows[t.name] = {
    'wall ms/session (median)': t.result.latency.p50.toFixed(2),
    'CPU ms/session (median)': medianOf(cpu.get(t.name)).toFixed(2),
    'requests changed': results.get(t.name),
  };
}
console.table(rows);
const share = medianOf(cpu.get(PLUGIN)) - medianOf(cpu.get(NOOP));
console.log(
  `hook-prune's share of a report run (plugin − no-op hook, CPU medians): ${share.toFixed(2)} ms per session, ${((1000 * share) / requests.length).toFixed(1)} µs per request`,
);
