import path from 'node:path';
import { isPrunedOutput } from '@hookwise/hook-prune';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { run } from '../support/run.js';
import { ensureMastraCore, ensureNode22, MASTRA_CORE_VERSION } from './cached-packages.mjs';
import { RULE, SYSTEM } from './scenario.mjs';
import { startStandInModel, systemTexts, toolPairs, toolResults, type StandInModel } from './stand-in-model.mjs';

/**
 * Mastra: the smaller honest piece is no code at all — a model wrapped with hookwise's middleware
 * is a Mastra agent's model. Checked on the real @mastra/core (on Node 22, which it requires)
 * with a tool loop against the stand-in.
 */

let standIn: StandInModel;
let node22: string;
let mastraCore: string;
beforeAll(async () => {
  standIn = await startStandInModel();
  node22 = ensureNode22();
  mastraCore = ensureMastraCore();
}, 600_000);
afterAll(async () => {
  await standIn?.close();
});

it(`runs every request of a @mastra/core ${MASTRA_CORE_VERSION} agent through hookwise`, async () => {
  const result = await run(node22, [path.join(import.meta.dirname, 'mastra-scenario.mjs'), mastraCore, standIn.url], {
    cwd: path.resolve(import.meta.dirname, '..', '..'),
  });
  expect(result.status, result.stderr).toBe(0);
  const output = JSON.parse(result.stdout) as { text: string; errors: unknown[] };
  expect(output).toEqual({ text: 'Read 4 files.', errors: [] });
  expect(standIn.requests).toHaveLength(5);
  for (const request of standIn.requests) expect(systemTexts('openai', request.body).join('\n\n')).toBe(`${SYSTEM}\n\n${RULE}`);
  const last = standIn.requests.at(-1)!.body;
  const sent = toolResults('openai', last);
  expect(sent.filter((item) => isPrunedOutput(item.text)).length).toBeGreaterThan(0);
  expect(isPrunedOutput(sent.at(-1)!.text)).toBe(false);
  expect(toolPairs('openai', last).every((pair) => pair.result === pair.call)).toBe(true);
});
