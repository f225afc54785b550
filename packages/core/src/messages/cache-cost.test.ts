import { describe, expect, it } from 'vitest';
import { createCharsTokenCounter } from '../token-counter.js';
import { CacheMeter, cacheCost } from './cache-cost.js';
import type { Message } from './message-model.js';

const counter = createCharsTokenCounter(4);
const text = (role: Message['role'], tokens: number): Message => ({ role, parts: [{ type: 'text', text: 'x'.repeat(tokens * 4) }] });

describe('CacheMeter', () => {
  it('reads what the previous request sent and writes what follows', () => {
    const meter = new CacheMeter(counter);
    const a = text('user', 100);
    const b = text('assistant', 50);
    const c = text('user', 10);
    expect(meter.request([a])).toEqual({ readTokens: 0, writeTokens: 100 });
    expect(meter.request([a, b, c])).toEqual({ readTokens: 100, writeTokens: 60 });
  });

  it('a changed message early on makes everything after it a write, and equal content counts as the same message', () => {
    const meter = new CacheMeter(counter);
    const history = [text('user', 100), text('assistant', 200), text('user', 300)];
    meter.request(history);
    // A copy with equal content: still read.
    expect(meter.request(structuredClone(history))).toEqual({ readTokens: 600, writeTokens: 0 });
    const pruned = [history[0]!, text('assistant', 1), history[2]!];
    expect(meter.request(pruned)).toEqual({ readTokens: 100, writeTokens: 301 });
  });

  it('grows-in-place arrays are compared with what was sent, and a reset writes everything again', () => {
    const meter = new CacheMeter(counter);
    const history = [text('user', 10)];
    meter.request(history);
    history.push(text('assistant', 20));
    expect(meter.request(history)).toEqual({ readTokens: 10, writeTokens: 20 });
    meter.reset();
    expect(meter.request(history)).toEqual({ readTokens: 0, writeTokens: 30 });
  });

  it("keeps the latest request as sent: the same messages, untouched when the caller's array grows", () => {
    const meter = new CacheMeter(counter);
    const history = [text('user', 10), text('assistant', 20)];
    meter.request(history);
    const copy = structuredClone(history);
    meter.request(copy);
    const sent = meter.messages;
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBe(copy[0]);
    expect(sent[1]).toBe(copy[1]);
    copy.push(text('user', 5));
    expect(sent).toEqual(history);
  });
});

describe('cacheCost', () => {
  it('prices reads at 0.1 and writes at 1.25 (5 minutes) or 2 (1 hour); the prefix is written once, then read', () => {
    const requests = [
      { readTokens: 0, writeTokens: 1_000 },
      { readTokens: 1_000, writeTokens: 100 },
    ];
    expect(cacheCost(requests, 10_000, '5m')).toBeCloseTo(1.25 * 11_000 + 0.1 * 11_000 + 1.25 * 100, 6);
    expect(cacheCost(requests, 10_000, '1h')).toBeCloseTo(2 * 11_000 + 0.1 * 11_000 + 2 * 100, 6);
    expect(cacheCost([], 10_000, '5m')).toBe(0);
  });
});
