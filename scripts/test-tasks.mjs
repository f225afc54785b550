// The test command's test tasks: every package's `test`, then the process-level burst suites
// (`test:burst`), one package at a time on a 2-core machine. `--continue` and running the second
// task whatever the first gave mean a failure in one package never hides another's results;
// the exit code is the worst of the two. Afterwards, the hookwise folders the tests left in the
// system temp folder are named (tests clean up after themselves).
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';

const ours = () => new Set(readdirSync(tmpdir()).filter((name) => /^(hookwise|hw)-/.test(name)));
const before = ours();

const turbo = (task) =>
  // vitest's verbose reporter prints each test as it ends: a long file is never minutes of silence.
  spawnSync('turbo', ['run', task, '--concurrency=1', '--continue', '--', '--reporter=verbose'], {
    stdio: 'inherit',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    shell: process.platform === 'win32',
  }).status ?? 1;

const statuses = ['test', 'test:burst'].map(turbo);
const left = [...ours()].filter((name) => !before.has(name));
if (left.length > 0)
  console.log(`test-tasks: ${left.length} folder(s) left in ${tmpdir()}: ${left.slice(0, 10).join(', ')}${left.length > 10 ? ', …' : ''}`);
process.exit(Math.max(...statuses));
