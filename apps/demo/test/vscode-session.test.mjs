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
  it("prunes the oldest read once the newest 3 results and 40,000 tokens are kept, and not before (hook-prune's window policy)", () => {
    const firstPruned = facts.requests.findIndex((request) => request.saved > 0);
    // Request 6 carries four reads: the newest three are kept whatever their size, engine.ts (30k by
    // the demo's chars/4, more by core's calibrated counter) fills and crosses the 40k window and goes.
    expect(firstPruned).toBe(5);
    expect(facts.requests[5].saved).toBeGreaterThan(29_000);
    expect(facts.requests[5].saved).toBeLessThan(31_000);
    expect(facts.requests.slice(0, 5).every((request) => request.saved === 0)).toBe(true);
    // Request 8: config.ts (28k) goes too; the newest three reads stay.
    expect(facts.requests[7].saved).toBeGreaterThan(57_000);
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
