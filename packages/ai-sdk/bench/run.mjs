// The middleware's cost per model call, at 100 tool results in the prompt (and the sizes given),
// with hook-prune's defaults and a system line, state in memory:
// - tool loop: a call of a tool loop — the prompt a fresh copy (as the SDK builds each call's) of
//   the last call's plus one tool call and its result, at `count` to `count + 20` results;
// - second call: a conversation's second call (its first, untimed, built what it keeps);
// - retried: the same prompt again.
// Each call is transformParams and wrapGenerate around a provider that answers at once.
// Imports the built packages: `npx -y pnpm@10.34.9 build` at the root first.
//   env -u NODE_EXTRA_CA_CERTS node bench/run.mjs [tool results…]
import { silentLogger } from '@hookwise/core/host';
import { prune } from '@hookwise/hook-prune';
import { Bench } from 'tinybench';
import { hookwiseMiddleware } from '../dist/index.js';

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((value) => value > 0);
const counts = sizes.length > 0 ? sizes : [10, 100, 1_000];
const RULE = 'Project rule: run the tests before you answer.';

const outputs = new Map();
/** A file of 1.5–9 KB; the same string object each time, as the SDK carries a tool's result along. */
const output = (index) => {
  let text = outputs.get(index);
  if (text === undefined)
    outputs.set(index, (text = `// src/file-${index}.ts\n${'export const value = "some source text";\n'.repeat(40 + (index % 7) * 30)}`));
  return text;
};

/** A fresh prompt (new objects, as the SDK builds one per call) of `count` tool calls and results. */
function promptOf(count) {
  const prompt = [
    { role: 'system', content: 'You are a coding agent.' },
    { role: 'user', content: [{ type: 'text', text: 'Read every file.' }] },
  ];
  for (let index = 1; index <= count; index++) {
    prompt.push({
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: `call_${index}`, toolName: 'read', input: { path: `src/file-${index}.ts` } }],
    });
    prompt.push({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: `call_${index}`, toolName: 'read', output: { type: 'text', value: output(index) } }],
    });
  }
  return prompt;
}

const middleware = () =>
  hookwiseMiddleware({ config: { plugins: [prune()], on: { 'llm:before': () => ({ context: RULE }) } }, logger: silentLogger });
const model = { modelId: 'bench' };
/** One model call as the SDK makes it: transformParams, then wrapGenerate around the provider's answer (its usage is the context size the next call's hooks see). */
async function call(hookwise, sessionId, prompt) {
  const params = await hookwise.transformParams({
    type: 'generate',
    params: { prompt, providerOptions: { hookwise: { sessionId } } },
    model,
  });
  await hookwise.wrapGenerate({
    doGenerate: async () => ({ usage: { inputTokens: { total: prompt.length * 300, noCache: 0, cacheRead: 0, cacheWrite: 0 } } }),
    params,
    model,
  });
}

const rows = [];
for (const count of counts) {
  const hookwise = middleware();
  const bench = new Bench({ time: 3_000, warmupTime: 500 });

  // A tool loop: each session's calls go from `count` to `count + STRETCH` results, after untimed
  // calls that built it up; then a new session starts.
  const STRETCH = 20;
  let session = 0;
  let size = Number.POSITIVE_INFINITY;
  let next;
  bench.add(
    'tool loop',
    async () => {
      await call(hookwise, `loop${session}`, next);
    },
    {
      beforeEach: async () => {
        if (size >= count + STRETCH) {
          session++;
          for (size = Math.max(1, count - STRETCH); size < count; size++) await call(hookwise, `loop${session}`, promptOf(size));
        }
        next = promptOf(size++);
      },
    },
  );

  // A session's second call, its first made untimed just before.
  let second = 0;
  let secondPrompt;
  bench.add(
    'second call',
    async () => {
      await call(hookwise, `second${second}`, secondPrompt);
    },
    {
      beforeEach: async () => {
        second++;
        await call(hookwise, `second${second}`, promptOf(count - 1));
        secondPrompt = promptOf(count);
      },
    },
  );

  // A retried call: the same prompt again (fresh objects).
  let again;
  await call(hookwise, 'retried', promptOf(count));
  bench.add(
    'retried',
    async () => {
      await call(hookwise, 'retried', again);
    },
    { beforeEach: () => void (again = promptOf(count)) },
  );

  await bench.run();
  const p50 = (name) => bench.tasks.find((task) => task.name === name).result.latency.p50;
  const p99 = (name) => bench.tasks.find((task) => task.name === name).result.latency.p99;
  rows.push({
    'tool results': count,
    'tool loop ms p50': p50('tool loop').toFixed(4),
    'tool loop ms p99': p99('tool loop').toFixed(4),
    'second call ms p50': p50('second call').toFixed(4),
    'retried ms p50': p50('retried').toFixed(4),
  });
  await hookwise.dispose();
}
console.table(rows);
