import { describe, expect, it } from 'vitest';
import {
  CALIBRATED_CHARS_PER_TOKEN,
  createCalibratedTokenCounter,
  createCharsTokenCounter,
  createJsonAwareTokenCounter,
  defaultTokenCounter,
  looksLikeJson,
  textKind,
} from './token-counter.js';

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

describe('the calibrated counter', () => {
  it('tells prose, code and JSON apart on their first characters', () => {
    expect(textKind('The function reads the file and returns its lines, one per entry.')).toBe('prose');
    expect(textKind('     1\timport { x } from "./y.js";\n     2\tconst z = x(1, 2);')).toBe('code');
    expect(textKind('  {"a": 1}')).toBe('json');
    expect(textKind('')).toBe('prose');
  });

  it('divides by the calibrated ratio of the kind, rounding up; empty text is 0', () => {
    const counter = createCalibratedTokenCounter({ prose: 4, code: 2, json: 1 });
    expect(counter.count('')).toBe(0);
    expect(counter.count('plain words here')).toBe(4);
    expect(counter.count('a = b(c);')).toBe(5);
    expect(counter.count('[1,2]')).toBe(5);
    expect(defaultTokenCounter).toMatchObject({ name: 'calibrated' });
    expect(defaultTokenCounter.count('x'.repeat(1_000))).toBe(Math.ceil(1_000 / CALIBRATED_CHARS_PER_TOKEN.prose));
  });

  it('refuses a non-positive ratio', () => {
    expect(() => createCalibratedTokenCounter({ prose: 4, code: 0, json: 2 })).toThrow(/charsPerToken.code/);
  });
});
