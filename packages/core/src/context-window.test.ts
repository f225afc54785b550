import { describe, expect, it } from 'vitest';
import { contextWindowFor, resolveContextWindow } from './context-window.js';

describe('contextWindowFor', () => {
  it('gives 200k by default and for models without the 1M suffix', () => {
    expect(contextWindowFor(undefined)).toBe(200_000);
    expect(contextWindowFor('claude-opus-4-6')).toBe(200_000);
    expect(contextWindowFor('claude-haiku-4-5-20251001')).toBe(200_000);
  });

  it('gives 1M for [1m] models', () => {
    expect(contextWindowFor('claude-sonnet-4-5[1m]')).toBe(1_000_000);
    expect(contextWindowFor('opus[1M]')).toBe(1_000_000);
  });

  it('lets an override win, and ignores an unusable one', () => {
    expect(contextWindowFor('claude-sonnet-4-5[1m]', 128_000)).toBe(128_000);
    expect(contextWindowFor('claude-opus-4-6', 0)).toBe(200_000);
    expect(contextWindowFor('claude-opus-4-6', Number.NaN)).toBe(200_000);
  });
});

describe('resolveContextWindow', () => {
  it('prefers the option, then the host, then the model', () => {
    expect(resolveContextWindow({ override: 100_000, hostWindow: 64_000, model: 'x[1m]' })).toEqual({
      contextWindow: 100_000,
      source: 'option',
    });
    expect(resolveContextWindow({ hostWindow: 64_000, model: 'x[1m]' })).toEqual({ contextWindow: 64_000, source: 'host' });
    expect(resolveContextWindow({ model: 'x[1m]' })).toEqual({ contextWindow: 1_000_000, source: 'model' });
    expect(resolveContextWindow({})).toEqual({ contextWindow: 200_000, source: 'default' });
  });

  it('infers the 1M window when the context is already larger than 200k', () => {
    expect(resolveContextWindow({ model: 'claude-sonnet-4-5', contextTokens: 250_000 })).toEqual({
      contextWindow: 1_000_000,
      source: 'inferred',
    });
    expect(resolveContextWindow({ model: 'claude-sonnet-4-5', contextTokens: 199_000 })).toEqual({
      contextWindow: 200_000,
      source: 'model',
    });
  });
});

describe('one window rule for every package', () => {
  it('treats a missing model and a missing override alike', () => {
    expect(contextWindowFor()).toBe(200_000);
    expect(contextWindowFor(undefined, undefined)).toBe(200_000);
    expect(contextWindowFor('claude-opus-4-6[1m] ')).toBe(1_000_000);
    expect(contextWindowFor(undefined, 32_000)).toBe(32_000);
    expect(contextWindowFor(undefined, -5)).toBe(200_000);
  });
});
