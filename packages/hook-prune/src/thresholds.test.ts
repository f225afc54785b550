import { describe, expect, it } from 'vitest';
import { thresholdsFor } from './thresholds.js';

describe('thresholdsFor', () => {
  it('keeps the 40,000 / 20,000 defaults for 200k and larger windows and unknown models', () => {
    expect(thresholdsFor()).toEqual({ protectTokens: 40_000, minimumTokens: 20_000 });
    expect(thresholdsFor('claude-sonnet-4-5')).toEqual({ protectTokens: 40_000, minimumTokens: 20_000 });
    expect(thresholdsFor('claude-sonnet-4-5[1m]')).toEqual({ protectTokens: 40_000, minimumTokens: 20_000 });
    expect(thresholdsFor(1_000_000)).toEqual({ protectTokens: 40_000, minimumTokens: 20_000 });
  });

  it('scales small windows, with floors of 2,000 / 500', () => {
    expect(thresholdsFor(100_000)).toEqual({ protectTokens: 20_000, minimumTokens: 10_000 });
    expect(thresholdsFor(32_000)).toEqual({ protectTokens: 6_400, minimumTokens: 3_200 });
    expect(thresholdsFor(8_000)).toEqual({ protectTokens: 2_000, minimumTokens: 800 });
    expect(thresholdsFor(2_048)).toEqual({ protectTokens: 2_000, minimumTokens: 500 });
  });

  it('knows windows from model names, and rejects nonsense windows', () => {
    // Core's window rule (contextWindowFor): 1M for [1m] models, 200k otherwise.
    expect(thresholdsFor('claude-opus-4-1[1m]')).toEqual(thresholdsFor(1_000_000));
    expect(thresholdsFor('gpt-4o')).toEqual(thresholdsFor(200_000));
    expect(() => thresholdsFor(0)).toThrow(/positive/);
    expect(() => thresholdsFor(Number.NaN)).toThrow(/positive/);
  });
});
