import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './registry.js';

/** A real Redis (Debian's `redis-server`) on 127.0.0.1, for the shared-state tests. */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops it (SIGTERM, waits for the exit); `start()` runs it again on the same port (empty unless persistent). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Freezes it (SIGSTOP): connections stay open and nothing answers, as a Redis stalled by load. */
  pause(): void;
  /** Lets a paused server answer again (SIGCONT). */
  resume(): void;
  /** Stops it for good and removes its folder. */
  remove(): Promise<void>;
}

export const REDIS_SERVER = ['/usr/bin/redis-server', '/usr/local/bin/redis-server'].find((file) => existsSync(file)) ?? 'redis-server';

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}

export interface RedisServerOptions {
  /**
   * Keeps every write in an append-only file (fsync on each), so a stop and start keeps the
   * data as a production Redis does. Default false: a throwaway, in memory.
   */
  persistent?: boolean;
}

/** Starts a throwaway Redis (loopback only) on a free port. */
export async function startRedisServer(options: RedisServerOptions = {}): Promise<RedisServer> {
  const port = await freePort();
  const directory = mkdtempSync(path.join(tmpdir(), 'hookwise-redis-'));
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn(
      REDIS_SERVER,
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        ...(options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
        '--dir',
        directory,
      ],
      { stdio: 'ignore' },
    );
    const started = child;
    for (let attempt = 0; attempt < 200; attempt++) {
      if (started.exitCode !== null) throw new Error(`redis-server exited with ${started.exitCode} (is Debian's redis-server installed?)`);
      if (await answers(port)) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error('redis-server did not answer within 5 s');
  };
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve());
      running.kill('SIGCONT'); // a paused server cannot act on SIGTERM
      running.kill('SIGTERM');
    });
  };
  // A test worker ended by a timeout must not leave its server behind (SIGCONT: it may be paused).
  const orphaned = () => {
    child?.kill('SIGCONT');
    child?.kill('SIGKILL');
  };
  process.once('exit', orphaned);
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}/0`,
    start,
    stop,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    remove: async () => {
      process.off('exit', orphaned);
      await stop();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
