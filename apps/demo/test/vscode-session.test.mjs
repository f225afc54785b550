import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runVscodeSession } from '../src/vscode-session.mjs';

const demoDir = fileURLToPath(new URL('..', import.meta.url));
let project;
let facts;
const printed = [];

beforeAll(async () => {
  // A copy of the demo's command file in a scratch project: the plugins' logs land there.
  project = await mkdtemp(path.join(tmpdir(), 'hookwise-demo-'));
  await cp(path.join(demoDir, '.claude'), path.join(project, '.claude'), { recursive: true });
  facts = await runVscodeSession({ projectDir: project, print: (line) => printed.push(line) });
});

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
});

describe('the scripted VS Code task (built packages, as a user gets them)', () => {
  it('prunes the first turn’s reads once they are two prompts old, and not before', () => {
    const firstPruned = facts.requests.findIndex((request) => request.saved > 0);
    // Requests 1–4 are the first turn, 5–6 the second: request 7 opens the third turn.
    expect(firstPruned).toBe(6);
    // engine.ts (30k) and config.ts (28k) are cleared; state.ts (26k) stays in the 40k window.
    expect(facts.requests[6].saved).toBeGreaterThan(57_000);
    expect(facts.requests[6].saved).toBeLessThan(59_000);
    expect(facts.requests.slice(0, 6).every((request) => request.saved === 0)).toBe(true);
  });

  it('suggests compaction once, when the context passes 70 % of the window', () => {
    expect(facts.suggestions).toHaveLength(1);
    expect(facts.suggestions[0]).toMatch(/^Context at 7\d% \(1\d\d,\d{3} \/ 200,000 tokens\)/);
  });

  it('preserves the active /review-plan command through the condense', () => {
    expect(facts.preserved).toEqual(['/review-plan']);
    expect(facts.condenseContext).toContain('You are running /review-plan');
    expect(facts.afterCondenseContext).toContain('/review-plan');
    expect(printed.at(-1)).toBe('task ended');
  });
});
