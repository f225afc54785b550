// Runs inside `unshare -n` (a network namespace with only loopback): listens on 127.0.0.1:<port>
// there and forwards every connection to the stand-in model's Unix socket outside (a socket
// file crosses network namespaces; TCP does not), then runs the given command and exits with
// its code. So the host reaches the stand-in and nothing else.
//
//   node netns-bridge.mjs <unix socket> <port> <command> [args…]
import { spawn } from 'node:child_process';
import net from 'node:net';

const [socketPath, portText, command, ...args] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream).pipe(client);
  const close = () => {
    client.destroy();
    upstream.destroy();
  };
  client.on('error', close);
  upstream.on('error', close);
});
server.listen(Number(portText), '127.0.0.1', () => {
  const child = spawn(command, args, { stdio: 'inherit' });
  child.on('error', (error) => {
    process.stderr.write(`netns-bridge: ${error.message}\n`);
    process.exit(127);
  });
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
});
