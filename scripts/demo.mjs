// `npm run demo`: installs the workspace and builds what the demo needs without printing their
// logs (shown only if a step fails), then runs the demo, whose output is its parts alone.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };
const pnpm = ['-y', 'pnpm@10.34.9'];
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';

for (const [label, args] of [
  ['installing the workspace (pnpm)', [...pnpm, 'install', '--frozen-lockfile']],
  ['building the packages', [...pnpm, 'exec', 'turbo', 'run', 'build', '--filter=@hookwise/demo...', '--output-logs=errors-only']],
]) {
  process.stderr.write(`demo: ${label}…\n`);
  const step = spawnSync(npx, args, { cwd: root, env, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (step.status !== 0) {
    process.stderr.write(`${step.stdout ?? ''}${step.stderr ?? ''}demo: ${label} failed (exit ${step.status ?? step.signal})\n`);
    process.exit(step.status ?? 1);
  }
}
const demo = spawnSync(npx, [...pnpm, '--silent', '--filter', '@hookwise/demo', 'run', 'demo'], { cwd: root, env, stdio: 'inherit' });
process.exit(demo.status ?? 1);
