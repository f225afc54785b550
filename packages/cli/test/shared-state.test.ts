import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../../test-support/redis-server.js';
import { assertBuilt, createScratchProject, run, type ScratchProject } from './harness.js';

/**
 * A plugin's command reads the conversation's state wherever it runs: with HOOKWISE_STATE_URL
 * set, `hookwise suggest …` in one project folder (one machine) sees what another wrote.
 */
let redis: RedisServer;
const projects: ScratchProject[] = [];
beforeAll(async () => {
  assertBuilt(['core', 'hook-suggest', 'cli']);
  redis = await startRedisServer();
});
afterAll(async () => {
  projects.forEach((project) => project.remove());
  await redis?.remove();
});

function machine(): ScratchProject {
  const project = createScratchProject(['core', 'hook-suggest', 'cli']);
  projects.push(project);
  return project;
}

describe('plugin commands on shared state', () => {
  it('a dismissal made on one machine is what another machine reports, and nothing is written under .hookwise/state', async () => {
    const env = { HOOKWISE_STATE_URL: `${redis.url}?project=shared-cli` };
    const [first, second] = [machine(), machine()];
    for (const project of [first, second])
      writeFileSync(path.join(project.dir, 'hookwise.config.json'), JSON.stringify({ plugins: { '@hookwise/hook-suggest': {} } }));
    const dismissed = run(first!, ['suggest', 'dismiss', '--session', 'conversation-7'], { env });
    expect(dismissed.code, dismissed.stderr).toBe(0);
    const status = run(second!, ['suggest', 'status', '--session', 'conversation-7'], { env });
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('Session conversation-7');
    expect(status.stdout).toMatch(/Dismissed until 25 tool calls/);
    expect(existsSync(path.join(first!.dir, '.hookwise', 'state'))).toBe(false);
    // Without the URL, the second machine has only its own (empty) files.
    expect(run(second!, ['suggest', 'status', '--session', 'conversation-7']).stdout).not.toMatch(/Dismissed/);
  }, 120_000);
});
