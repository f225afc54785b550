import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../../../test-support/redis-server.js';
import { createEngine } from '../engine.js';
import { createMemoryLogger } from '../logger.js';
import { definePlugin } from '../plugin.js';
import { createMemoryEventLog } from './event-log.js';

// The engine on a Redis that goes away: every emit returns, the outage is one hook:error, and
// the session's state goes on when Redis is back (a persistent Redis, as in production).
let server: RedisServer;
let projectDir: string;

beforeAll(async () => {
  server = await startRedisServer({ persistent: true });
  projectDir = mkdtempSync(path.join(tmpdir(), 'hookwise-redis-engine-'));
});
afterAll(async () => {
  await server.remove();
  rmSync(projectDir, { recursive: true, force: true });
});

const counter = definePlugin({
  meta: { name: 'counter', version: '1.0.0' },
  on: {
    'tool:after': async (_payload, context) => ({
      context: `call ${await context.state.update<number>((current) => (current ?? 0) + 1)}`,
    }),
  },
});

describe('the engine on a Redis that goes away and comes back', () => {
  it('returns from every emit, reports the outage once, and counts on from what was written before', async () => {
    const eventLog = createMemoryEventLog();
    const logger = createMemoryLogger();
    const engine = createEngine({
      config: { state: `${server.url}?project=engine`, plugins: [counter()] },
      projectDir,
      host: 'test',
      eventLog,
      logger,
    });
    const toolAfter = { sessionId: 'session-1', toolName: 'Bash', input: { command: 'ls' }, output: 'a', ok: true };
    const contextOf = async () => (await engine.emit('tool:after', toolAfter)).context;

    expect(await engine.emit('session:start', { sessionId: 'session-1', source: 'startup' })).toMatchObject({ errors: [] });
    expect(await contextOf()).toBe('call 1');
    expect(await contextOf()).toBe('call 2');

    await server.stop();
    for (let call = 0; call < 3; call++) expect(await contextOf()).toBeUndefined();
    expect(await engine.emit('session:start', { sessionId: 'session-2', source: 'startup' })).toMatchObject({ errors: [] });
    const outage = (await eventLog.readAll()).filter((event) => event.type === 'hook:error');
    expect(outage).toEqual([expect.objectContaining({ pluginName: 'hookwise', hookName: 'state', kind: 'state-unavailable' })]);

    await server.start();
    await expect.poll(contextOf, { timeout: 10_000, interval: 100 }).toBe('call 3');
    expect((await eventLog.readAll()).filter((event) => event.type === 'state:available')).toHaveLength(1);
    expect((await eventLog.readAll()).filter((event) => event.type === 'hook:error')).toHaveLength(1);
    expect(logger.lines.filter((line) => line.includes('is unreachable'))).toHaveLength(1);
    // Session state went to Redis only; nothing of it under .hookwise/.
    expect(existsSync(path.join(projectDir, '.hookwise', 'state'))).toBe(false);
    await (engine.services.stateStore as { close?: () => Promise<void> }).close?.();
  }, 30_000);
});
