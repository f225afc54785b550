// The test command's test tasks: every package's `test`, then the process-level burst suites
// (`test:burst`), one package at a time on a 2-core machine. `--continue` and running the second
// task whatever the first gave mean a failure in one package never hides another's results;
// the exit code is the worst of the two.
import { spawnSync } from 'node:child_process';

const turbo = (task) =>
  spawnSync('turbo', ['run', task, '--concurrency=1', '--continue'], {
    stdio: 'inherit',
    env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1' },
    shell: process.platform === 'win32',
  }).status ?? 1;

const statuses = ['test', 'test:burst'].map(turbo);
process.exit(Math.max(...statuses));
