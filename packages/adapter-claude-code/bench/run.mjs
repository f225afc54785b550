// Cold start of `hookwise run PostToolUse` with the three plugins (JSON config), as Claude Code
// runs it: a new process per call, in a project that installed the packed packages with npm
// (as users do). Paired with `node -e 0`, alternating in the same loop (the machine's cores are
// shared, so only paired ratios are comparable), with NODE_EXTRA_CA_CERTS unset (on Node 20 it
// alone makes every start about 3× slower). Prints figures; asserts nothing.
// Usage: node bench/run.mjs [rounds=25] [--linked]   (--linked: workspace symlinks, no install)
import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { BENCH_CONFIG, createBenchProject, postToolUseEvent, roundsFromArgs, time, timePaired } from './project.mjs';

const linked = process.argv.includes('--linked');
const rounds = roundsFromArgs(25);
const { root, project, bin, env } = createBenchProject({ prefix: 'hookwise-bench-', linked });
const event = postToolUseEvent(project);

const cases = {
  'node -e 0': () => spawnSync(process.execPath, ['-e', '0'], { env, input: event }),
  'hookwise run (bundle)': () => spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], { cwd: project, env, input: event }),
  'hookwise run (unbundled)': () =>
    spawnSync(process.execPath, [bin, 'run', 'PostToolUse'], { cwd: project, env: { ...env, HOOKWISE_NO_BUNDLE: '1' }, input: event }),
};

// First call after init pays for nothing more (init built the bundle); a call after a config
// change rebuilds it: measure that once.
writeFileSync(path.join(project, 'hookwise.config.json'), BENCH_CONFIG);
const rebuild = time(cases['hookwise run (bundle)']);
timePaired(
  cases,
  rounds,
  `hookwise run PostToolUse, 3 plugins, JSON config, ${linked ? 'workspace links' : 'installed from the packed tarballs with npm'} — ${rounds} rounds, Node ${process.version}, NODE_EXTRA_CA_CERTS unset`,
);
console.log(`first call after a config change (bundle rebuilt): ${rebuild.toFixed(0)} ms`);
rmSync(root, { recursive: true, force: true });
