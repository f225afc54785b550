// What the state store adds to a model call: the middleware with hook-prune and hook-suggest, one
// call of a tool loop at 100 tool results (the prompt the last call's plus one tool call and its
// result; a new session every 20 calls), with session state in memory, in files under
// .hookwise/, and in a local Redis (Debian's redis-server, started here on a free loopback port).
// The event log is in memory for all three, so only the state store differs.
// Imports the built packages: `npx -y pnpm@10.34.9 build` at the root first.
//   env -u NODE_EXTRA_CA_CERTS node bench/state.mjs [calls]
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createMemoryEventLog, silentLogger } from '@hookwise/core/host';
import { Redis } from 'ioredis';
import { prune } from '@hookwise/hook-prune';
import { suggest } from '@hookwise/hook-suggest';
import { hookwiseMiddleware } from '../dist/index.js';

const calls = Number(process.argv[2] ?? 600);
const START = 100;
const STRETCH = 20;

const port = await new Promise((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = server.address();
    server.close(() => resolve(free));
  });
});
const binary = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((file) => existsSync(file)) ?? 'redis-server';
const redis = spawn(binary, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
for (let answered = false; !answered; ) {
  await new Promise((resolve) => setTimeout(resolve, 50));
  answered = await new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });
}
const root = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-state-'));

const output = (index) => `// src/file-${index}.ts\n${'export const value = "some source text";\n'.repeat(40 + (index % 7) * 30)}`;
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

const model = { modelId: 'bench' };
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

const plugins = () => [prune(), suggest()];
const setups = {
  memory: () => hookwiseMiddleware({ plugins: plugins(), logger: silentLogger }),
  files: () =>
    hookwiseMiddleware({
      plugins: plugins(),
      logger: silentLogger,
      projectDir: path.join(root, 'files'),
      eventLog: createMemoryEventLog(),
    }),
  redis: () =>
    hookwiseMiddleware({
      plugins: plugins(),
      logger: silentLogger,
      projectDir: path.join(root, 'redis'),
      eventLog: createMemoryEventLog(),
      config: { state: `redis://127.0.0.1:${port}/0` },
    }),
};

const percentile = (samples, p) => [...samples].sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))];
console.log(
  `a tool loop's model call at ${START}–${START + STRETCH} tool results, hook-prune + hook-suggest, ${calls} calls each, Node ${process.version}`,
);
console.log('state      p50 ms   p99 ms   Redis commands per call');
const admin = new Redis(`redis://127.0.0.1:${port}/0`);
const commands = async () => Number(/total_commands_processed:(\d+)/.exec(await admin.info('stats'))[1]);
const prompts = Array.from({ length: STRETCH + 1 }, (_, step) => promptOf(START + step));
for (const [name, setup] of Object.entries(setups)) {
  const hookwise = setup();
  const samples = [];
  const before = await commands();
  for (let index = 0, session = 0; index < calls + STRETCH; index++) {
    const step = index % (STRETCH + 1);
    if (step === 0) session++;
    // Each call gets fresh objects, as the SDK builds a prompt per call.
    const prompt = structuredClone(prompts[step]);
    const start = process.hrtime.bigint();
    await call(hookwise, `session-${session}`, prompt);
    // The first call of a session builds what it keeps; the first session warms up.
    if (step > 0 && session > 1) samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  await hookwise.dispose();
  // Less the 2 INFO commands of this measure itself.
  const perCall = ((await commands()) - before - 1) / (calls + STRETCH);
  console.log(
    `${name.padEnd(8)}${percentile(samples, 50).toFixed(3).padStart(9)}${percentile(samples, 99).toFixed(3).padStart(9)}${perCall.toFixed(1).padStart(10)}`,
  );
}
admin.disconnect();
redis.kill('SIGTERM');
rmSync(root, { recursive: true, force: true });
