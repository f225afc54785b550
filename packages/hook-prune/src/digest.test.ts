import { describe, expect, it } from 'vitest';
import { fingerprint, formatNumber } from './digest.js';

describe('formatNumber', () => {
  it('groups thousands exactly as the pattern it replaces, for every kind of number', () => {
    const pattern = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    const values = [0, 1, 12, 123, 999, 1_000, 1_234, 12_345, 123_456, 1_234_567, 35_641, 9_007_199_254_740_991, -1, -1_234, -1_234_567, 0.5, 1_234.5678, 1e21, 1.5e-7, Number.NaN, Infinity, -0];
    for (let power = 0; power < 16; power++) values.push(10 ** power, 10 ** power - 1, 2 ** power * 1_001);
    for (const value of values) expect(formatNumber(value), String(value)).toBe(pattern(value));
  });
});

describe('fingerprint', () => {
  it('gives the digests written so far: the same values for ASCII, one-byte, two-byte and long texts', () => {
    // Values of the first implementation (a float seed): digests in stored histories and pinned
    // prompts must not change with the integer-seeded loop.
    expect(fingerprint('')).toBe('811c9dc501000193');
    expect(fingerprint('a')).toBe('e40c292c8f2a4d6f');
    expect(fingerprint('hello world')).toBe('d58b3fa7d0a5bf98');
    expect(fingerprint('é中😀 mixed — text')).toBe('92f8410c40636b1b');
    expect(fingerprint('x'.repeat(100_000))).toBe('0da3ee45545a51b3');
    expect(fingerprint(Array.from({ length: 5_000 }, (_, index) => String.fromCharCode(index % 0x3000)).join(''))).toBe('8c7ca59d39df7163');
  });

  it('writes each 32-bit half as toString(16) padded to 8 digits would, high bit set or not', () => {
    const fnv = (text: string, seed: number, prime: number) => {
      let hash = seed | 0;
      for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), prime);
      return (hash >>> 0).toString(16).padStart(8, '0');
    };
    const halves: string[] = [];
    for (let length = 0; length < 600; length++) {
      const text = 'ab\u00e9\u4e2d'.repeat(length).slice(0, length);
      const expected = [fnv(text, 0x811c9dc5, 0x01000193), fnv(text, 0x01000193 ^ text.length, 0x5bd1e995)];
      halves.push(...expected);
      expect(fingerprint(text), text).toBe(expected.join(''));
    }
    // Both kinds of values were met: 2^31 and above (a double to V8), and below 2^28 (zero-padded).
    expect(halves.filter((half) => half >= '8').length).toBeGreaterThan(100);
    expect(halves.some((half) => half.startsWith('0'))).toBe(true);
  });
});
