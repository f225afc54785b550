import { describe, expect, it } from 'vitest';
import { createCharsTokenCounter, createJsonAwareTokenCounter, looksLikeJson } from './token-counter.js';

describe('token counters', () => {
  it('counts characters / 4 rounded up', () => {
    const counter = createCharsTokenCounter();
    expect(counter.count('')).toBe(0);
    expect(counter.count('a')).toBe(1);
    expect(counter.count('abcd')).toBe(1);
    expect(counter.count('abcde')).toBe(2);
    expect(counter.count('x'.repeat(40_000))).toBe(10_000);
  });

  it('counts JSON-like text at 3 characters a token and prose at 4', () => {
    const counter = createJsonAwareTokenCounter();
    expect(counter.count('  {"a":1}')).toBe(3);
    expect(counter.count('[1,2,3,4,5,6]')).toBe(5);
    expect(counter.count('plain prose here')).toBe(4);
  });

  it('recognises JSON-like starts after whitespace only', () => {
    expect(looksLikeJson('\n\t {')).toBe(true);
    expect(looksLikeJson('x{')).toBe(false);
    expect(looksLikeJson('')).toBe(false);
  });

  it('refuses a non-positive ratio', () => {
    expect(() => createCharsTokenCounter(0)).toThrow(RangeError);
  });
});
