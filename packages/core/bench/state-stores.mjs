// What a state read and an update cost in each store: memory, files under .hookwise/, and Redis
// (Debian's redis-server, started here on a free loopback port). Imports the built package:
// build first; time with `env -u NODE_EXTRA_CA_CERTS node bench/state-stores.mjs [ops]`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createFileStateStore, createMemoryStateStore, createRedisStateStore } from '../dist/host.js';

const ops = Number(process.argv[2] ?? 2000);
const port = await new Promise((resolve) => {
  const server = createServer().listen(0, '127.0.0.1', () => {
    const { port: free } = server.address();
    server.close(() => resolve(free));
  });
});
const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
  stdio: 'ignore',
});
const folder = mkdtempSync(path.join(tmpdir(), 'hookwise-bench-state-'));
await new Promise((resolve) => setTimeout(resolve, 300));

const value = {
  policy: { toolCalls: 0, toolCallsSinceCompaction: 0, nextToolCallSuggestion: 50 },
  model: 'claude-sonnet-4-5',
  notes: 'x'.repeat(500),
};
const stores = {
  memory: createMemoryStateStore(),
  files: createFileStateStore({ directory: folder }),
  redis: createRedisStateStore({ url: `redis://127.0.0.1:${port}/0`, project: 'bench' }),
};

const percentile = (samples, p) => samples.sort((a, b) => a - b)[Math.min(samples.length - 1, Math.floor((p / 100) * samples.length))];
console.log(`state store, ${ops} sequential operations each, Node ${process.version}`);
console.log('store     read p50 µs   read p99 µs   update p50 µs   update p99 µs');
for (const [name, store] of Object.entries(stores)) {
  await store.update('s1', 'ns', () => value);
  const reads = [];
  const updates = [];
  for (let index = 0; index < ops; index++) {
    let start = process.hrtime.bigint();
    await store.read('s1', 'ns');
    reads.push(Number(process.hrtime.bigint() - start) / 1000);
    start = process.hrtime.bigint();
    await store.update('s1', 'ns', (current) => ({ ...current, policy: { ...current.policy, toolCalls: current.policy.toolCalls + 1 } }));
    updates.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  const cells = [percentile(reads, 50), percentile(reads, 99), percentile(updates, 50), percentile(updates, 99)].map((figure) =>
    figure.toFixed(0).padStart(13),
  );
  console.log(`${name.padEnd(8)}${cells.join(' ')}`);
}
await stores.redis.close();
redis.kill('SIGTERM');
rmSync(folder, { recursive: true, force: true });
