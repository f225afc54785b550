import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../../../test-support/redis-server.js';
import { createMemoryLogger } from '../logger.js';
import { openStateStore, stateProject, stateUrl } from './open-state-store.js';

// Which store a host gets: files unless the config's `state` or HOOKWISE_STATE_URL names a Redis.
let server: RedisServer;
let admin: Redis;
let root: string;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis(server.url);
  root = mkdtempSync(path.join(tmpdir(), 'hookwise-open-store-'));
});
afterAll(async () => {
  await Promise.all(closers.map((close) => close()));
  admin.disconnect();
  await server.remove();
  rmSync(root, { recursive: true, force: true });
});

let folders = 0;
function project(packageName?: string): string {
  const folder = path.join(root, `app-${++folders}`);
  mkdirSync(folder, { recursive: true });
  if (packageName !== undefined) writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: packageName }));
  return folder;
}

function open(projectDir: string, config: { state?: string; stateTtlSeconds?: number }, env: Record<string, string | undefined> = {}) {
  const store = openStateStore({ projectDir, config, env, logger: createMemoryLogger() });
  if (store.close) closers.push(() => store.close!());
  return store;
}

const DEAD = 'redis://127.0.0.1:1/0';

describe('openStateStore: which store', () => {
  it('keeps state in files under .hookwise/ when neither the config nor the environment names a Redis', async () => {
    const dir = project('files-app');
    const store = open(dir, {}, { HOOKWISE_STATE_URL: '  ' });
    await store.update('s1', 'ns', () => 1);
    await store.flush();
    expect(store.close).toBeUndefined();
    expect(readdirSync(path.join(dir, '.hookwise'), { recursive: true }).length).toBeGreaterThan(0);
    expect(await admin.keys('hookwise:files-app:*')).toEqual([]);
  });

  it("keeps state in the config's Redis and writes nothing under .hookwise/", async () => {
    const dir = project('config-app');
    const store = open(dir, { state: server.url });
    expect(await store.update<number>('s1', 'ns', (n) => (n ?? 0) + 1)).toBe(1);
    await store.flush();
    expect(await admin.hget('hookwise:config-app:s1:ns', 'data')).toBe('1');
    expect(existsSync(path.join(dir, '.hookwise'))).toBe(false);
  });

  it('lets HOOKWISE_STATE_URL win over the config, both ways', async () => {
    const viaEnv = open(project('env-app'), { state: DEAD }, { HOOKWISE_STATE_URL: server.url });
    expect(await viaEnv.update('s1', 'ns', () => 'env')).toBe('env');
    expect(await admin.hget('hookwise:env-app:s1:ns', 'data')).toBe('"env"');
    const deadEnv = open(project('dead-env-app'), { state: server.url }, { HOOKWISE_STATE_URL: DEAD });
    await expect(deadEnv.read('s1', 'ns')).rejects.toMatchObject({ code: 'HW_STATE_UNAVAILABLE' });
    expect(stateUrl({ state: 'redis://config/0' }, { HOOKWISE_STATE_URL: 'redis://env/0' })).toBe('redis://env/0');
    expect(stateUrl({}, {})).toBeUndefined();
  });

  it("applies the config's stateTtlSeconds", async () => {
    const store = open(project('ttl-app'), { state: server.url, stateTtlSeconds: 90 });
    await store.update('s1', 'ns', () => 1);
    const ttl = await admin.ttl('hookwise:ttl-app:s1:ns');
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(90);
  });
});

describe('openStateStore: the key prefix instances share', () => {
  it("is the URL's ?project=, else the package name, else the folder name", () => {
    expect(stateProject('redis://h:6379/0?project=billing', project('ignored'))).toBe('billing');
    expect(stateProject('redis://h:6379/0', project('support-bot'))).toBe('support-bot');
    const bare = project();
    expect(stateProject('redis://h:6379/0', bare)).toBe(path.basename(bare));
  });

  it('takes a scoped package name as it is', async () => {
    const store = open(project('@acme/support-bot'), { state: server.url });
    await store.update('s1', 'ns', () => 2);
    expect(await admin.hget('hookwise:@acme/support-bot:s1:ns', 'data')).toBe('2');
  });

  it('refuses a hostile ?project= or session id with the name it refused, touching no key', async () => {
    const before = await admin.dbsize();
    expect(() => open(project('x'), { state: `${server.url}?project=${encodeURIComponent('../*')}` })).toThrow(
      /state project name|state namespace/,
    );
    const store = open(project('hostile-app'), { state: server.url });
    await expect(store.update('*', 'ns', () => 1)).rejects.toThrow(/session id/);
    await expect(store.read('a b\r\nFLUSHALL', 'ns')).rejects.toThrow(/session id/);
    await expect(store.clear('s1*')).rejects.toThrow(/session id/);
    expect(await admin.dbsize()).toBe(before);
  });
});
