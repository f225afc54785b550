import { describe, expect, it } from 'vitest';
import { contextTokensOf } from './usage.js';

describe('contextTokensOf', () => {
  it('reads the input total of ai 6 and 7, cache included', () => {
    expect(contextTokensOf({ inputTokens: { total: 12_000, noCache: 2_000, cacheRead: 9_000, cacheWrite: 1_000 } })).toBe(12_000);
  });

  it("takes ai 5's inputTokens as the total for OpenAI-style providers, which count cached tokens in it", () => {
    expect(contextTokensOf({ inputTokens: 5_000, cachedInputTokens: 4_000 }, { openai: {} })).toBe(5_000);
  });

  it('adds cache reads and writes for ai 5 with @ai-sdk/anthropic, which leaves them out of inputTokens', () => {
    expect(contextTokensOf({ inputTokens: 100, cachedInputTokens: 9_000 }, { anthropic: { cacheCreationInputTokens: 900 } })).toBe(10_000);
  });

  it('knows nothing from a usage without input tokens', () => {
    expect(contextTokensOf(undefined)).toBeUndefined();
    expect(contextTokensOf({ inputTokens: { total: undefined } })).toBeUndefined();
    expect(contextTokensOf({ inputTokens: 0 })).toBeUndefined();
  });
});
