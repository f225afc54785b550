// Cold start of `hookwise run PostToolUse` with the three plugins (JSON config), as Claude Code
// runs it: a new process per call, in a project that installed the packed packages with npm
// (as users do). Paired with `node -e 0`, alternating in the same loop (the machine's cores are
// shared, so only paired ratios are comparable), with NODE_EXTRA_CA_CERTS unset (on Node 20 it
// alone makes every start about 3× slower). Prints figures; asserts nothing.
// Usage: node bench/run.mjs [rounds=25] [--linked]   (--linked: workspace symlinks, no install)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const packagesDir = path.resolve(packageRoot, '..');
const linked = process.argv.includes('--linked');
const rounds = Math.max(20, Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? 25));
const PACKAGES = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'adapter-claude-code'];
for (const folder of PACKAGES) {
  if (!existsSync(path.join(packagesDir, folder, 'dist', 'index.js'))) throw new Error(`build first: packages/${folder} has no dist`);
}

const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-bench-')));
const project = path.join(root, 'project');
mkdirSync(project);
writeFileSync(path.join(project, 'package.json'), '{"name":"bench","version":"1.0.0","private":true}');
if (linked) {
  mkdirSync(path.join(project, 'node_modules', '@hookwise'), { recursive: true });
  for (const folder of PACKAGES) symlinkSync(path.join(packagesDir, folder), path.join(project, 'node_modules', '@hookwise', folder), 'dir');
} else {
  const tarballs = path.join(root, 'tarballs');
  mkdirSync(tarballs);
  for (const folder of PACKAGES) execFileSync('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', tarballs], { cwd: path.join(packagesDir, folder), stdio: 'pipe' });
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...readdirSync(tarballs).map((name) => path.join(tarballs, name))], { cwd: project, stdio: 'pipe' });
}
const bin = path.join(project, 'node_modules', '@hookwise', 'adapter-claude-code', 'bin', 'hookwise.cjs');

const { NODE_EXTRA_CA_CERTS: _certs, NODE_OPTIONS: _options, ...baseEnv } = process.env;
const env = { ...baseEnv, CLAUDE_PROJECT_DIR: project, HOME: path.join(root, 'home') };
const init = spawnSync(process.execPath, [bin, 'init', '--plugins', 'prune,precompact,suggest'], { cwd: project, env, encoding: 'utf8' });
if (init.status !== 0) throw new Error(`hookwise init failed: ${init.stderr}`);

const event = JSON.stringify({
  session_id: 'bench-session',
  transcript_path: path.join(project, 'missing-transcript.jsonl'),
  cwd: project,
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'ls -la', description: 'list files' },
  tool_response: { stdout: 'total 0\n'.repeat(50), stderr: '', interrupted: false },
  tool_use_id: 'toolu_bench',
});

const cases = {
  'node -e 0': () => spawnSync(process.execPath, ['-e', '0'], { env, input: event }),
  'hookwise run (bundle)': () => spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], { cwd: project, env, input: event }),
  'hookwise run (unbundled)': () => spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], { cwd: project, env: { ...env, HOOKWISE_NO_BUNDLE: '1' }, input: event }),
};
const time = (run) => {
  const start = performance.now();
  const result = run();
  const elapsed = performance.now() - start;
  if (result.status !== 0) throw new Error(`exit ${result.status}: ${result.stderr}`);
  return elapsed;
};

// First call after init pays for nothing more (init built the bundle); a call after a config
// change rebuilds it: measure that once.
writeFileSync(path.join(project, 'hookwise.config.json'), JSON.stringify({ plugins: { '@hookwise/hook-prune': {}, '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': { toolCalls: 100000 } } }));
const rebuild = time(cases['hookwise run (bundle)']);
for (const run of Object.values(cases)) time(run); // warm the file cache and the V8 code cache

const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
for (let round = 0; round < rounds; round++) for (const [name, run] of Object.entries(cases)) samples[name].push(time(run));

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const baseline = samples['node -e 0'];
console.log(`hookwise run PostToolUse, 3 plugins, JSON config, ${linked ? 'workspace links' : 'installed from the packed tarballs with npm'} — ${rounds} rounds, Node ${process.version}, NODE_EXTRA_CA_CERTS unset`);
console.log('case                          median ms   min ms   vs node -e 0 (median of paired ratios)');
for (const [name, values] of Object.entries(samples)) {
  const pairRatio = median(values.map((value, index) => value / baseline[index]));
  console.log(`${name.padEnd(28)} ${median(values).toFixed(1).padStart(9)} ${Math.min(...values).toFixed(1).padStart(8)}   ${pairRatio.toFixed(2)}×`);
}
console.log(`first call after a config change (bundle rebuilt): ${rebuild.toFixed(0)} ms`);
rmSync(root, { recursive: true, force: true });
