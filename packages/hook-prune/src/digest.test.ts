import { describe, expect, it } from 'vitest';
import { fingerprint, formatNumber } from './digest.js';

describe('formatNumber', () => {
  it('groups thousands with commas', () => {
    expect([0, 999, 1_000, 35_641, 1_234_567, -1_234].map(formatNumber)).toEqual(['0', '999', '1,000', '35,641', '1,234,567', '-1,234']);
  });
});

describe('fingerprint', () => {
  it('gives the digests written so far: the same values for ASCII, one-byte, two-byte and long texts', () => {
    // Digests in stored histories and cached prompts must never change.
    expect(fingerprint('')).toBe('811c9dc501000193');
    expect(fingerprint('a')).toBe('e40c292c8f2a4d6f');
    expect(fingerprint('hello world')).toBe('d58b3fa7d0a5bf98');
    expect(fingerprint('é中😀 mixed — text')).toBe('92f8410c40636b1b');
    expect(fingerprint('x'.repeat(100_000))).toBe('0da3ee45545a51b3');
    expect(fingerprint(Array.from({ length: 5_000 }, (_, index) => String.fromCharCode(index % 0x3000)).join(''))).toBe('8c7ca59d39df7163');
  });
});
