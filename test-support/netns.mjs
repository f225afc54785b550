// Running a real host offline: inside `unshare -n` (a network namespace with only loopback),
// reaching the loopback stand-in model outside through netns-bridge.mjs. Plain JavaScript so
// that the hosts' .mjs helpers and the TypeScript harnesses share it.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const NETNS_BRIDGE = fileURLToPath(new URL('./netns-bridge.mjs', import.meta.url));

/** Whether `unshare -n` works here (root or user namespaces) with `ip` to bring loopback up. */
export function networkNamespaceAvailable() {
  return spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore' }).status === 0;
}

/**
 * `command args` as a command line: inside its own network namespace, the stand-in reached
 * through the bridge, when `isolate` gives the model's socket and port; as it is otherwise.
 */
export function isolatedCommand(command, args, isolate) {
  if (!isolate) return { command, args };
  const quoted = [command, ...args].map((arg) => JSON.stringify(arg)).join(' ');
  const script = `ip link set lo up && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(NETNS_BRIDGE)} ${JSON.stringify(isolate.socketPath)} ${isolate.port} ${quoted}`;
  return { command: 'unshare', args: ['-n', 'sh', '-c', script] };
}
