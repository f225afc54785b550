import { describe, expect, it } from 'vitest';
import { createReplayClock } from './replay-engine.js';
import { bigSession } from './test-support.js';

describe('the replay clock', () => {
  it('moves the replay clock to each line’s time, never back', () => {
    const clock = createReplayClock();
    clock.setTimestamp('2026-02-12T14:12:15.201Z');
    expect(clock.now()).toBe(Date.parse('2026-02-12T14:12:15.201Z'));
    clock.setTimestamp('2026-02-12T14:12:14.000Z');
    expect(clock.now()).toBe(Date.parse('2026-02-12T14:12:15.201Z'));
    clock.setTimestamp('2026-02-12T14:13:00.000Z');
    expect(clock.now()).toBe(Date.parse('2026-02-12T14:13:00.000Z'));
  });
});
