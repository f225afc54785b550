// What bench/run.mjs and bench/snapshot.mjs share: a scratch project that installed the packed
// packages with npm (as users do; or workspace links), `hookwise init` with the three plugins,
// the PostToolUse event each call reads, and the paired timing loop against `node -e 0`.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packagesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const PACKAGES = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'cli', 'adapter-claude-code'];

/** `[rounds]` from the command line, at least 20. */
export function roundsFromArgs(fallback) {
  return Math.max(20, Number(process.argv.slice(2).find((arg) => /^\d+$/.test(arg)) ?? fallback));
}

/** A project under a new temp folder with hookwise installed and initialised; NODE_EXTRA_CA_CERTS unset in `env`. */
export function createBenchProject({ prefix, linked = false }) {
  for (const folder of PACKAGES) {
    if (!existsSync(path.join(packagesDir, folder, 'dist', 'index.js'))) throw new Error(`build first: packages/${folder} has no dist`);
  }
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  const project = path.join(root, 'project');
  mkdirSync(project);
  writeFileSync(path.join(project, 'package.json'), '{"name":"bench","version":"1.0.0","private":true}');
  if (linked) {
    mkdirSync(path.join(project, 'node_modules', '@hookwise'), { recursive: true });
    for (const folder of PACKAGES)
      symlinkSync(path.join(packagesDir, folder), path.join(project, 'node_modules', '@hookwise', folder), 'dir');
  } else {
    const tarballs = path.join(root, 'tarballs');
    mkdirSync(tarballs);
    for (const folder of PACKAGES)
      execFileSync('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', tarballs], {
        cwd: path.join(packagesDir, folder),
        stdio: 'pipe',
      });
    execFileSync(
      'npm',
      ['install', '--no-audit', '--no-fund', '--loglevel=error', ...readdirSync(tarballs).map((name) => path.join(tarballs, name))],
      { cwd: project, stdio: 'pipe' },
    );
  }
  const bin = path.join(project, 'node_modules', '@hookwise', 'adapter-claude-code', 'bin', 'hookwise.cjs');
  // On Node 20 NODE_EXTRA_CA_CERTS alone makes every start about 3× slower; hookwise makes no TLS calls.
  const { NODE_EXTRA_CA_CERTS: _certs, NODE_OPTIONS: _options, ...baseEnv } = process.env;
  const env = { ...baseEnv, CLAUDE_PROJECT_DIR: project, HOME: path.join(root, 'home') };
  const init = spawnSync(process.execPath, [bin, 'init', '--plugins', 'prune,precompact,suggest'], { cwd: project, env, encoding: 'utf8' });
  if (init.status !== 0) throw new Error(`hookwise init failed: ${init.stderr}`);
  return { root, project, bin, env };
}

/** The config every call runs: the three plugins, hook-suggest's tool-call threshold out of reach. */
export const BENCH_CONFIG = JSON.stringify({
  plugins: { '@hookwise/hook-prune': {}, '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': { toolCalls: 100000 } },
});

/** The PostToolUse event Claude Code sends for a small Bash call in `dir`. */
export function postToolUseEvent(dir) {
  return JSON.stringify({
    session_id: 'bench-session',
    transcript_path: path.join(dir, 'missing-transcript.jsonl'),
    cwd: dir,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: { command: 'ls -la', description: 'list files' },
    tool_response: { stdout: 'total 0\n'.repeat(50), stderr: '', interrupted: false },
    tool_use_id: 'toolu_bench',
  });
}

/** Milliseconds of one run; a failed run stops the benchmark. */
export function time(run) {
  const start = performance.now();
  const result = run();
  const elapsed = performance.now() - start;
  if (result.status !== 0) throw new Error(`exit ${result.status}: ${result.stderr}`);
  return elapsed;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/**
 * Runs every case once to warm caches, then `rounds` rounds alternating the cases in one loop
 * (the machine's cores are shared, so only paired ratios are comparable), and prints each case's
 * median, minimum and median of its ratios to the first case (`node -e 0`).
 */
export function timePaired(cases, rounds, heading) {
  for (const run of Object.values(cases)) time(run);
  const samples = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) for (const [name, run] of Object.entries(cases)) samples[name].push(time(run));
  const baseline = Object.values(samples)[0];
  console.log(heading);
  console.log('case                          median ms   min ms   vs node -e 0 (median of paired ratios)');
  for (const [name, values] of Object.entries(samples)) {
    const pairRatio = median(values.map((value, index) => value / baseline[index]));
    console.log(
      `${name.padEnd(28)} ${median(values).toFixed(1).padStart(9)} ${Math.min(...values)
        .toFixed(1)
        .padStart(8)}   ${pairRatio.toFixed(2)}×`,
    );
  }
}
