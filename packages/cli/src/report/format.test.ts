import { describe, expect, it } from 'vitest';
import { clip } from './format.js';

describe('clip', () => {
  it('keeps a short text whole, on one line', () => {
    expect(clip('a  b\n c', 10)).toBe('a b c');
  });

  it('cuts a long text at the end of a word, never inside one', () => {
    expect(clip('Context compacted at 14:48: 142,431 tokens before; hookwise preserved nothing', 40)).toBe(
      'Context compacted at 14:48: 142,431…',
    );
    // One long word: nothing to cut at, so it is cut at the limit.
    expect(clip('x'.repeat(50), 10)).toBe(`${'x'.repeat(9)}…`);
  });
});
