// Benchmarks for @hookwise/core, against the built dist. Prints figures; asserts nothing.
//   node bench/run.mjs
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';

const dist = (entry) => new URL(`../dist/${entry}.js`, import.meta.url);
const core = { ...(await import(dist('index').href)), ...(await import(dist('host').href)) };

// 1. emit cost with 0, 1 and 10 no-op hooks
function engineWith(hookCount) {
  const hooks = Array.from({ length: hookCount }, (_, index) => ({ handler: () => undefined, name: `noop-${index}` }));
  const plugin = core.definePlugin({ meta: { name: 'noop', version: '0.0.0' }, on: { 'tool:after': hooks } });
  return core.createEngine({
    config: { plugins: [plugin()] },
    projectDir: tmpdir(),
    host: 'bench',
    stateStore: core.createMemoryStateStore(),
    eventLog: core.createMemoryEventLog(),
  });
}
const payload = { sessionId: 'bench', toolName: 'Read', input: { file_path: '/tmp/x' }, output: 'hello', ok: true };
const engines = { 0: engineWith(0), 1: engineWith(1), 10: engineWith(10) };
const bench = new Bench({ time: 700, warmupTime: 200 });
for (const [count, engine] of Object.entries(engines))
  bench.add(`emit tool:after, ${count} no-op hooks`, () => engine.emit('tool:after', payload));
await bench.run();
const meanMicros = (name) => bench.tasks.find((task) => task.name === name).result.latency.mean * 1000;
const rows = bench.tasks.map((task) => ({
  task: task.name,
  'mean µs': (task.result.latency.mean * 1000).toFixed(2),
  'p99 µs': (task.result.latency.p99 * 1000).toFixed(2),
  'ops/s': Math.round(task.result.throughput.mean),
}));
console.table(rows);
const fixed =
  meanMicros('emit tool:after, 1 no-op hooks') -
  (meanMicros('emit tool:after, 10 no-op hooks') - meanMicros('emit tool:after, 1 no-op hooks')) / 9;
const perHook = (meanMicros('emit tool:after, 10 no-op hooks') - meanMicros('emit tool:after, 1 no-op hooks')) / 9;
console.log(
  `fixed cost per emit with hooks ≈ ${fixed.toFixed(2)} µs (aim < 20 µs); per no-op hook ≈ ${perHook.toFixed(2)} µs (aim < 5 µs); no hooks: ${meanMicros('emit tool:after, 0 no-op hooks').toFixed(2)} µs`,
);

// 2. importing @hookwise/core in a fresh process against `node -e 0`, paired and alternating.
// NODE_EXTRA_CA_CERTS is removed: on Node 20 it alone makes every start ~3x slower.
const environment = { ...process.env };
delete environment.NODE_EXTRA_CA_CERTS;
const timeRun = (args) => {
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { env: environment, stdio: 'ignore' });
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
};
const importArgs = (entry) => ['--input-type=module', '-e', `await import(${JSON.stringify(fileURLToPath(dist(entry)))})`];
const cases = { '@hookwise/core': importArgs('index'), '@hookwise/core/host': importArgs('host') };
const floorArgs = ['-e', '0'];
for (let index = 0; index < 3; index++) {
  for (const args of Object.values(cases)) timeRun(args);
  timeRun(floorArgs);
}
const pairs = Number(process.env.PAIRS ?? 20);
const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, { times: [], ratios: [] }]));
const floors = [];
for (let index = 0; index < pairs; index++) {
  const floor = timeRun(floorArgs);
  floors.push(floor);
  for (const [name, args] of Object.entries(cases)) {
    const time = timeRun(args);
    samples[name].times.push(time);
    samples[name].ratios.push(time / floor);
  }
}
const median = (values) => {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted[Math.floor(sorted.length / 2)];
};
for (const [name, { times, ratios }] of Object.entries(samples)) {
  console.log(
    `import ${name}: median ${median(times).toFixed(1)} ms vs node -e 0 ${median(floors).toFixed(1)} ms; paired median ratio ${median(ratios).toFixed(2)}×${name === '@hookwise/core' ? ' (aim ≤ 2×)' : ''}, ${pairs} pairs`,
  );
}
