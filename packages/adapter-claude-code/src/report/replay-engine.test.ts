import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createReplayClock, parseTimestamp } from './replay-engine.js';
import { bigSession } from './test-support.js';

describe('parseTimestamp', () => {
  it('gives Date.parse’s number for every timestamp of the recorded session', () => {
    const stamps = [...readFileSync(bigSession, 'utf8').matchAll(/"timestamp":"([^"]+)"/g)].map((match) => match[1]!);
    expect(stamps.length).toBeGreaterThan(2_000);
    for (const stamp of stamps) expect(parseTimestamp(stamp), stamp).toBe(Date.parse(stamp));
  });

  it('gives Date.parse’s answer for edges and for what is not its one form (NaN included)', () => {
    const cases = [
      '2026-02-12T14:12:15.201Z',
      '1970-01-01T00:00:00.000Z',
      '1900-01-01T00:00:00.000Z',
      '9999-12-31T23:59:59.999Z',
      '2026-02-30T14:12:15.201Z',
      '2026-04-31T00:00:00.000Z',
      '2026-02-12T24:00:00.000Z',
      '2026-02-12T23:59:60.000Z',
      '2026-13-12T14:12:15.201Z',
      '2026-00-12T14:12:15.201Z',
      '2026-02-00T14:12:15.201Z',
      '2026-02-32T14:12:15.201Z',
      '0099-01-01T00:00:00.000Z',
      '0000-01-01T00:00:00.000Z',
      '2026-02-12T14:12:15.2a1Z',
      '2026-02-12T14:12:15.201+',
      '2026-02-12 14:12:15.201Z',
      '2026-02-12T14:12:15Z',
      '2026-02-12T14:12:15.201+01:00',
      'not a date',
      '',
    ];
    for (const text of cases) expect(parseTimestamp(text), text).toBe(Date.parse(text));
  });

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
