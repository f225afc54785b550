import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../../../test-support/redis-server.js';
import { run } from '../support/run.js';
import { startStandInModel, type StandInModel } from './stand-in-model.mjs';

/**
 * One conversation served by two app instances (two processes, two project folders, as two
 * machines behind a load balancer) sharing one real Redis through HOOKWISE_STATE_URL: what the
 * model receives must be what one instance would have sent, call by call, and hook-suggest's
 * count the conversation's. Then Redis stops mid-conversation: every call still returns.
 */
const packageDir = path.resolve(import.meta.dirname, '..', '..');
const instance = path.join(import.meta.dirname, 'instance.mjs');
const PROMPTS = ['Read the first files.', 'Now the next ones.', 'And two more.', 'The last ones.'];

let redis: RedisServer;
let standIn: StandInModel;
let admin: Redis;
let root: string;

beforeAll(async () => {
  // Persistent, as a production Redis is: a restart keeps what was written before the outage.
  redis = await startRedisServer({ persistent: true });
  admin = new Redis(redis.url);
  admin.on('error', () => undefined);
  standIn = await startStandInModel({ readsPerPrompt: 2 });
  root = mkdtempSync(path.join(tmpdir(), 'hookwise-instances-'));
});
afterAll(async () => {
  admin?.disconnect();
  await standIn?.close();
  await redis?.remove();
  if (root) rmSync(root, { recursive: true, force: true });
});

function projectFolder(name: string): string {
  const folder = path.join(root, name);
  mkdirSync(folder, { recursive: true });
  // The same app on every instance: its package name is the key prefix they share.
  writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ name: 'support-bot', private: true }));
  return folder;
}

async function conversation(name: string, folders: string[], stateUrl: string, between?: (turn: number) => Promise<void>) {
  const history = path.join(root, `${name}.json`);
  writeFileSync(history, '[]');
  standIn.reset();
  const turns: Array<{ text: string; notices: string[]; errors: Array<{ kind: string; message: string }> }> = [];
  for (const [turn, prompt] of PROMPTS.entries()) {
    await between?.(turn);
    const ran = await run(process.execPath, [instance, folders[turn % folders.length]!, standIn.url, history, prompt], {
      cwd: packageDir,
      env: { HOOKWISE_STATE_URL: stateUrl },
    });
    if (ran.status !== 0) throw new Error(`turn ${turn} exited with ${ran.status}: ${ran.stderr}`);
    turns.push(JSON.parse(ran.stdout));
  }
  return { turns, requests: standIn.reset().map((request) => request.body.messages) };
}

describe('one conversation on two instances sharing one Redis', () => {
  it('sends the model what one instance sends, call by call, and counts every tool call of the conversation', async () => {
    const single = await conversation('single', [projectFolder('single')], `${redis.url}?project=single`);
    const shared = await conversation('shared', [projectFolder('instance-a'), projectFolder('instance-b')], redis.url);
    expect(shared.requests.length).toBe(single.requests.length);
    expect(shared.requests).toEqual(single.requests);
    expect(shared.turns.flatMap((turn) => turn.errors)).toEqual([]);
    expect(shared.turns.map((turn) => turn.notices)).toEqual(single.turns.map((turn) => turn.notices));
    const state = JSON.parse((await admin.hget('hookwise:support-bot:conversation-1:@hookwise/hook-suggest', 'data'))!) as {
      policy: { toolCalls: number };
    };
    expect(state.policy.toolCalls).toBe(PROMPTS.length * 2);
  }, 240_000);

  it('goes on when Redis stops mid-conversation: every call returns, the outage is reported once per instance call, and state resumes', async () => {
    const folders = [projectFolder('outage-a'), projectFolder('outage-b')];
    const result = await conversation('outage', folders, `${redis.url}?project=outage`, async (turn) => {
      if (turn === 2) await redis.stop();
      if (turn === 3) await redis.start();
    });
    expect(result.turns.map((turn) => turn.text.length > 0)).toEqual([true, true, true, true]);
    expect(result.turns[2]!.errors).toEqual([expect.objectContaining({ kind: 'state', message: expect.stringMatching(/is unreachable/) })]);
    expect(result.turns[3]!.errors).toEqual([]);
    // What was counted before the outage survived it; the outage turn's own calls went uncounted.
    const state = JSON.parse((await admin.hget('hookwise:outage:conversation-1:@hookwise/hook-suggest', 'data'))!) as {
      policy: { toolCalls: number };
    };
    expect(state.policy.toolCalls).toBe((PROMPTS.length - 1) * 2);
  }, 240_000);
});
