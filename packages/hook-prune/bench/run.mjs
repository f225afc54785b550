// Benchmark of pruning against a floor measured in the same run (a bare loop summing the length
// of every tool output), on synthetic histories of 1k, 10k and 100k messages: cold is
// pruneToolOutputs (keeps nothing), warm a session's pruner (createPruner) pruning again.
// Imports the built package: run `npx tsup` in packages/core and here first.
//   node bench/run.mjs            all sizes, default options (the agentic policy)
//   node bench/run.mjs 1000 10000 chosen sizes
//   PRUNE_OPTIONS='{"protectTurns":2,"keepRecent":0,"supersede":false}' node bench/run.mjs   other options (JSON)
import { createCharsTokenCounter } from '@hookwise/core/host';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createPruner, pruneToolOutputs } from '../dist/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((value) => value > 0);
const messageCounts = sizes.length > 0 ? sizes : [1_000, 10_000, 100_000];
const OPTIONS = JSON.parse(process.env.PRUNE_OPTIONS ?? '{}');
const PROMPT_EVERY = 50; // a real user prompt every 50 messages, so most of the history is eligible

// Deterministic pseudo-random numbers (mulberry32), so every run builds the same history.
function random(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const next = random(42);
const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789 \n{}();=.,:/_-ABCDEFGHIJKLMNOPQRSTUVWXYZ';
let corpus = '';
while (corpus.length < 64 * 1024) corpus += alphabet[Math.floor(next() * alphabet.length)];

/** Output length log-uniform between 200 B and 50 KB; each output a fresh flat string. */
function toolOutput() {
  const length = Math.round(Math.exp(Math.log(200) + next() * (Math.log(50 * 1024) - Math.log(200))));
  const start = Math.floor(next() * (corpus.length - length));
  return Buffer.from(corpus.slice(start, start + length), 'latin1').toString('latin1');
}

function buildHistory(count) {
  const messages = [];
  let id = 0;
  while (messages.length < count) {
    if (messages.length % PROMPT_EVERY === 0) {
      messages.push({ role: 'user', parts: [{ type: 'text', text: `prompt ${messages.length}` }] });
      continue;
    }
    const toolCallId = `call_${++id}`;
    messages.push({
      role: 'assistant',
      parts: [
        { type: 'text', text: 'Reading.' },
        { type: 'tool-call', toolCallId, toolName: 'Read', input: { file_path: `/repo/src/file-${id}.ts` } },
      ],
    });
    messages.push({ role: 'user', parts: [{ type: 'tool-result', toolCallId, toolName: 'Read', output: toolOutput() }] });
  }
  // Two prompts at the end, so the previous and current turns are the only protected ones.
  messages.push(
    { role: 'user', parts: [{ type: 'text', text: 'previous' }] },
    { role: 'user', parts: [{ type: 'text', text: 'current' }] },
  );
  return messages;
}

/** The floor: one bare loop over every part, summing tool output lengths. */
function floor(messages) {
  let total = 0;
  for (let messageIndex = messages.length - 1; messageIndex >= 0; messageIndex--) {
    const parts = messages[messageIndex].parts;
    for (let partIndex = parts.length - 1; partIndex >= 0; partIndex--) {
      const part = parts[partIndex];
      if (part.type === 'tool-result') total += part.output.length;
    }
  }
  return total;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const time = (fn) => {
  const start = performance.now();
  const value = fn();
  return { ms: performance.now() - start, value };
};
const fixed = (value, digits = 2) => value.toFixed(digits);
const mib = (bytes) => (bytes / 1024 / 1024).toFixed(2);

const rows = [];
for (const count of messageCounts) {
  const messages = buildHistory(count);
  gc();
  const passes = count >= 100_000 ? 5 : 11;
  let sink = 0;

  const floorTimes = [];
  for (let pass = 0; pass < passes; pass++) floorTimes.push(time(() => (sink += floor(messages))).ms);

  // Cold: a fresh counter each pass, so no token count is memoised yet (the first request of a process).
  const coldTimes = [];
  for (let pass = 0; pass < passes; pass++) {
    const counter = createCharsTokenCounter(4);
    coldTimes.push(time(() => pruneToolOutputs(messages, { tokenCounter: counter, ...OPTIONS })).ms);
  }

  // Warm: a session's pruner and the same counter, as in a long-lived host that prunes before every request.
  const counter = createCharsTokenCounter(4);
  const pruner = createPruner();
  let result = pruner.prune(messages, { tokenCounter: counter, ...OPTIONS });
  const warmTimes = [];
  for (let pass = 0; pass < passes; pass++)
    warmTimes.push(time(() => (result = pruner.prune(messages, { tokenCounter: counter, ...OPTIONS }))).ms);

  // Second run on its own output (another pruner: another history): must change nothing.
  const noOpPruner = createPruner();
  const noOpTimes = [];
  for (let pass = 0; pass < passes; pass++) {
    const { ms, value } = time(() => noOpPruner.prune(result.messages, { tokenCounter: counter, ...OPTIONS }));
    if (value.messages !== result.messages) throw new Error('second run changed the messages');
    noOpTimes.push(ms);
  }

  // Extra heap held by the pruned copy (the original history stays alive, as it does in a host).
  result = undefined;
  gc();
  const heapBefore = process.memoryUsage().heapUsed;
  const held = pruner.prune(messages, { tokenCounter: counter, ...OPTIONS });
  gc();
  const extraHeap = process.memoryUsage().heapUsed - heapBefore;

  const floorMs = median(floorTimes);
  const coldMs = median(coldTimes);
  const warmMs = median(warmTimes);
  const noOpMs = median(noOpTimes);
  rows.push({
    messages: count.toLocaleString('en-US'),
    'tool outputs': messages.filter((message) => message.parts[0]?.type === 'tool-result').length.toLocaleString('en-US'),
    'floor ms': fixed(floorMs),
    'prune cold ms': fixed(coldMs),
    'prune warm ms': fixed(warmMs),
    'warm / floor': `${fixed(warmMs / floorMs, 1)}×`,
    'no-op 2nd run ms': fixed(noOpMs, 3),
    'no-op / warm': `${fixed((100 * noOpMs) / warmMs, 1)} %`,
    'extra heap MiB': mib(extraHeap),
    pruned: held.prunedCount.toLocaleString('en-US'),
    'tokens reclaimed': held.tokensReclaimed.toLocaleString('en-US'),
  });
  if (sink < 0) console.log(sink);
}

console.log(
  `hook-prune, Node ${process.version}, medians of 11 passes (5 at 100k); chars/4 counter; a prompt every ${PROMPT_EVERY} messages; options ${JSON.stringify(OPTIONS)}`,
);
console.table(rows);
