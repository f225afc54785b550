import { describe, expect, it } from 'vitest';
import { formatNumber } from './digest.js';

describe('formatNumber', () => {
  it('groups thousands exactly as the pattern it replaces, for every kind of number', () => {
    const pattern = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    const values = [0, 1, 12, 123, 999, 1_000, 1_234, 12_345, 123_456, 1_234_567, 35_641, 9_007_199_254_740_991, -1, -1_234, -1_234_567, 0.5, 1_234.5678, 1e21, 1.5e-7, Number.NaN, Infinity, -0];
    for (let power = 0; power < 16; power++) values.push(10 ** power, 10 ** power - 1, 2 ** power * 1_001);
    for (const value of values) expect(formatNumber(value), String(value)).toBe(pattern(value));
  });
});
