import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../../../test-support/redis-server.js';
import type { HookwiseError, StateCorruptError } from '../errors.js';
import { createMemoryLogger } from '../logger.js';
import { sharedBehaviour } from './__fixtures__/store-contract.js';
import { createRedisStateStore, type RedisStateStore } from './redis-state-store.js';

// A real Redis (Debian's redis-server, which .ci/run installs) on a free loopback port.
let server: RedisServer;
let admin: Redis;
const stores: RedisStateStore[] = [];
let projects = 0;

beforeAll(async () => {
  // Persistent, as a production Redis is: the outage tests restart it and find what was written.
  server = await startRedisServer({ persistent: true });
  admin = new Redis(server.url);
  admin.on('error', () => undefined); // the outage test stops the server under it
});
afterAll(async () => {
  await Promise.all(stores.map((store) => store.close()));
  admin.disconnect();
  await server.remove();
});

function store(options: Partial<Parameters<typeof createRedisStateStore>[0]> = {}): RedisStateStore {
  const made = createRedisStateStore({ url: server.url, project: `test-${++projects}`, logger: createMemoryLogger(), ...options });
  stores.push(made);
  return made;
}

sharedBehaviour('redis store', () => store());

describe('redis store: keys, expiry and foreign values', () => {
  it('keeps a session under hookwise:<project>:<session>:<namespace>, with a week to live by default', async () => {
    const state = store({ project: 'my-app' });
    await state.update('s1', '@hookwise/hook-suggest', () => ({ n: 1 }));
    expect(await admin.hgetall('hookwise:my-app:s1:@hookwise/hook-suggest')).toEqual({ v: expect.stringMatching(/^1\./), data: '{"n":1}' });
    const ttl = await admin.ttl('hookwise:my-app:s1:@hookwise/hook-suggest');
    expect(ttl).toBeGreaterThan(7 * 24 * 3600 - 60);
    expect(ttl).toBeLessThanOrEqual(7 * 24 * 3600);
    const scoped = store({ project: '@acme/support-bot' });
    await scoped.update('s1', 'ns', () => 2);
    expect(await admin.hget('hookwise:@acme/support-bot:s1:ns', 'data')).toBe('2');
    const short = store({ project: 'short-lived', ttlSeconds: 60 });
    await short.update('s1', 'ns', () => 1);
    expect(await admin.ttl('hookwise:short-lived:s1:ns')).toBeLessThanOrEqual(60);
  });

  it('keeps sessions whose ids share a prefix or a ":" apart, in keys and in clear', async () => {
    const state = store({ project: 'colons' });
    await state.update('s1', 'ns:c', () => 's1 / ns:c');
    await state.update('s1:ns', 'c', () => 's1:ns / c');
    await state.update('s1:x', 'ns', () => 's1:x / ns');
    expect(await state.read('s1', 'ns:c')).toBe('s1 / ns:c');
    expect(await state.read('s1:ns', 'c')).toBe('s1:ns / c');
    await state.clear('s1');
    expect(await state.read('s1', 'ns:c')).toBeUndefined();
    expect(await state.read('s1:ns', 'c')).toBe('s1:ns / c');
    expect(await state.read('s1:x', 'ns')).toBe('s1:x / ns');
  });

  it('loses no update to a clear and a re-creation made while it was computing', async () => {
    const [mine, theirs] = [store({ project: 'aba' }), store({ project: 'aba' })];
    await mine.update('s1', 'ns', () => ['first']);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const seen: unknown[] = [];
    const slow = mine.update<string[]>('s1', 'ns', async (current) => {
      seen.push(current);
      if (seen.length === 1) await gate;
      return [...(current ?? []), 'mine'];
    });
    await expect.poll(() => seen.length).toBe(1);
    // Another instance clears the session and writes it afresh: the same version number as before.
    await theirs.clear('s1');
    await theirs.update('s1', 'ns', () => ['theirs']);
    release();
    expect(await slow).toEqual(['theirs', 'mine']);
    expect(await theirs.read('s1', 'ns')).toEqual(['theirs', 'mine']);
  });

  it.each([
    ['a string', (key: string) => admin.set(key, 'not ours')],
    ['a hash of another shape', (key: string) => admin.hset(key, 'x', '1')],
    ['data that does not parse', (key: string) => admin.hset(key, 'v', '3', 'data', '{torn')],
  ])('sets aside %s under its key, reports it, and reads it as absent', async (_what, plant) => {
    const corrupt: StateCorruptError[] = [];
    const state = store({ project: 'foreign', onCorrupt: (error) => corrupt.push(error) });
    const session = `s${Math.random().toString(36).slice(2)}`;
    await plant(`hookwise:foreign:${session}:ns`);
    expect(await state.read(session, 'ns')).toBeUndefined();
    expect(corrupt).toHaveLength(1);
    expect(await admin.exists(corrupt[0]!.movedTo!)).toBe(1);
    expect(await state.update<number>(session, 'ns', (current) => (current ?? 0) + 1)).toBe(1);
    await admin.del(corrupt[0]!.movedTo!);
  });
});

describe('redis store: outages', () => {
  it('fails at once while Redis is down, reports the outage once, and goes on with the state written before', async () => {
    const outages: Array<HookwiseError | undefined> = [];
    const logger = createMemoryLogger();
    const state = store({ project: 'outage', logger, onOutage: (error) => outages.push(error) });
    await state.update<number>('s1', 'count', (current) => (current ?? 0) + 1);
    await server.stop();
    for (let call = 0; call < 3; call++)
      await expect(state.update<number>('s1', 'count', (current) => (current ?? 0) + 1)).rejects.toMatchObject({
        code: 'HW_STATE_UNAVAILABLE',
      });
    expect(outages).toHaveLength(1);
    expect(logger.lines.filter((line) => line.includes('is unreachable'))).toHaveLength(1);
    await server.start();
    await expect.poll(() => state.read('s1', 'count').catch(() => 'down'), { timeout: 10_000, interval: 100 }).toBe(1);
    expect(await state.update<number>('s1', 'count', (current) => (current ?? 0) + 1)).toBe(2);
    expect(outages).toHaveLength(2);
    expect(outages[1]).toBeUndefined();
  }, 30_000);

  it('gives up on a stalled Redis within its command timeout, reports it once, and goes on when it answers again', async () => {
    const outages: Array<HookwiseError | undefined> = [];
    const state = store({ project: 'stalled', commandTimeoutMs: 300, onOutage: (error) => outages.push(error) });
    await state.update<number>('s1', 'count', (current) => (current ?? 0) + 1);
    server.pause();
    try {
      for (let call = 0; call < 2; call++)
        await expect(state.update<number>('s1', 'count', (current) => (current ?? 0) + 1)).rejects.toMatchObject({
          code: 'HW_STATE_UNAVAILABLE',
        });
      // Nothing is left waiting on the frozen server: a process can flush and exit.
      await state.flush();
      expect(state.pending()).toBe(0);
    } finally {
      server.resume();
    }
    expect(outages).toHaveLength(1);
    await expect.poll(() => state.read('s1', 'count').catch(() => 'down'), { timeout: 10_000, interval: 100 }).toBe(1);
    expect(await state.update<number>('s1', 'count', (current) => (current ?? 0) + 1)).toBe(2);
    expect(outages.at(-1)).toBeUndefined();
  }, 30_000);

  it('refuses at once when Redis was never reachable, within its connect timeout', async () => {
    const state = store({ url: 'redis://127.0.0.1:1/0', project: 'nowhere', connectTimeoutMs: 200 });
    await expect(state.read('s1', 'ns')).rejects.toMatchObject({ code: 'HW_STATE_UNAVAILABLE' });
  });
});

describe('redis store: many processes', () => {
  it('4 processes × 200 concurrent updates of one key lose none', async () => {
    // The children run the built store (dist), as an app instance would.
    const child = fileURLToPath(new URL('./__fixtures__/redis-increments.mjs', import.meta.url));
    const runs = Array.from(
      { length: 4 },
      () =>
        new Promise<number | null>((resolve) => {
          const increments = spawn(process.execPath, [child, server.url, '200'], { stdio: ['ignore', 'ignore', 'inherit'] });
          increments.once('exit', resolve);
        }),
    );
    expect(await Promise.all(runs)).toEqual([0, 0, 0, 0]);
    expect(await store({ project: 'increments' }).read('s1', 'count')).toBe(800);
  }, 120_000);
});
