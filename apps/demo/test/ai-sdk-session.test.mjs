import { isPrunedOutput } from '@hookwise/hook-prune';
import { beforeAll, describe, expect, it } from 'vitest';
import { systemTexts, toolResults } from '../../../packages/ai-sdk/test/e2e/stand-in-model.mjs';
import { runAiSdkSession } from '../src/ai-sdk-session.mjs';

let facts;
const printed = [];
beforeAll(async () => {
  facts = await runAiSdkSession({ print: (line) => printed.push(line) });
});

describe('the AI SDK part of the demo (real ai and @ai-sdk/anthropic, the built middleware)', () => {
  it("makes the same requests with and without hookwise, and hookwise's carry placeholders where hook-prune pruned", () => {
    expect(facts.withHookwise.length).toBe(facts.without.length);
    expect(facts.without.every((request) => toolResults('anthropic', request.body).every((result) => !isPrunedOutput(result.text)))).toBe(
      true,
    );
    expect(toolResults('anthropic', facts.withHookwise.at(-1).body).some((result) => isPrunedOutput(result.text))).toBe(true);
  });

  it("keeps the system text the same in every request and the app's history whole", () => {
    expect(new Set(facts.withHookwise.map((request) => systemTexts('anthropic', request.body).join('|'))).size).toBe(1);
    expect(facts.keptWhole).toBe(true);
  });

  it('prices both runs under prompt caching', () => {
    expect(facts.costs).toHaveLength(2);
    for (const cost of facts.costs) {
      expect(cost.without).toBeGreaterThan(0);
      expect(cost.with).toBeGreaterThan(0);
    }
    expect(printed.some((line) => line.includes('without hookwise'))).toBe(true);
  });
});
