import { describe, expect, it } from 'vitest';
import { forgetPartTokens, partTokens, rememberPartTokens } from '../counting.js';
import type { TokenCounter } from '../token-counter.js';
import { estimateMessageTokens, IMAGE_TOKEN_ESTIMATE } from './estimate.js';
import type { MessagePart } from './message-model.js';

/** A counter that counts its calls (characters per token: 1). */
function countingCounter(name = 'spy'): TokenCounter & { calls: number } {
  const counter = { name, calls: 0, count: (text: string) => (counter.calls++, text.length) };
  return counter;
}

describe('partTokens (@hookwise/core/counting)', () => {
  const parts: MessagePart[] = [
    { type: 'text', text: 'hello' },
    { type: 'text', text: '' },
    { type: 'reasoning', text: 'thinking' },
    { type: 'image', data: 'AAAA', mediaType: 'image/png' },
    { type: 'tool-call', toolCallId: 'c1', toolName: 'Write', input: { file_path: '/a', content: 'x'.repeat(50) } },
    { type: 'tool-call', toolCallId: 'c2', toolName: 'Noop', input: undefined },
    { type: 'tool-result', toolCallId: 'c1', output: 'done' },
    {
      type: 'tool-result',
      toolCallId: 'c3',
      output: [
        { type: 'text', text: 'ab' },
        { type: 'image', data: 'B' },
        { type: 'text', text: '' },
      ],
    },
  ];

  it('is core’s estimate of the part alone, for every kind of part', () => {
    const counter = countingCounter();
    for (const part of parts)
      expect(partTokens(part, counter)).toBe(estimateMessageTokens({ role: 'user', parts: [part] }, (text) => counter.count(text)));
    expect(partTokens(parts[3]!, counter)).toBe(IMAGE_TOKEN_ESTIMATE);
  });

  it('counts a part once; the same text in another part, or in a copy of it, is that part’s own figure', () => {
    const counter = countingCounter();
    const first: MessagePart = { type: 'tool-result', toolCallId: 'r1', output: 'same output text' };
    const second: MessagePart = { type: 'tool-result', toolCallId: 'r2', output: 'same output text' };
    expect(partTokens(first, counter)).toBe(16);
    expect(partTokens(first, counter)).toBe(16);
    expect(counter.calls).toBe(1);
    expect(partTokens(second, counter)).toBe(16);
    expect(counter.calls).toBe(2);
    // A transformer's copy with a new output (copy on write): counted as what it now holds.
    const pruned: MessagePart = { ...first, output: '[cleared]' };
    expect(partTokens(pruned, counter)).toBe(9);
    expect(partTokens(first, counter)).toBe(16);
  });

  it('keeps one counter’s figure per part: another counter counts anew', () => {
    const one = countingCounter('one');
    const halves: TokenCounter = { name: 'halves', count: (text) => Math.ceil(text.length / 2) };
    const part: MessagePart = { type: 'text', text: 'abcdefgh' };
    expect(partTokens(part, one)).toBe(8);
    expect(partTokens(part, halves)).toBe(4);
    expect(partTokens(part, one)).toBe(8);
    expect(one.calls).toBe(2);
  });

  it('takes a figure remembered for the part and counter, and counts again once it is forgotten', () => {
    const counter = countingCounter();
    const part = { type: 'tool-result', toolCallId: 'w', output: 'written' } as Extract<MessagePart, { type: 'tool-result' }>;
    rememberPartTokens(part, counter, 7);
    expect(partTokens(part, counter)).toBe(7);
    expect(counter.calls).toBe(0);
    // Written into in place: the kept figure must go.
    part.output = 'longer text now';
    forgetPartTokens(part);
    expect(partTokens(part, counter)).toBe(15);
    expect(partTokens(part, countingCounter('other'))).toBe(15);
  });
});
