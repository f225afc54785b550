import { describe, expect, it } from 'vitest';
import { createEngine } from '../engine.js';
import { createMemoryStateStore } from '../state/file-state-store.js';
import { createHost } from './create-host.js';

describe('CompactionSteps', () => {
  it('compact:before with the trigger told, compact:after once however often the end is told, its context for every later request', async () => {
    const seen: string[] = [];
    const lines: string[] = [];
    const host = createHost({
      host: 'test-host',
      projectDir: '/project',
      log: (entry) => void lines.push(entry.text),
      loadConfig: async () => ({
        config: {
          on: {
            'compact:before': (payload) => (seen.push(`before ${payload.trigger}`), { context: 'KEEP', block: { reason: 'no' } }),
            'compact:after': (payload) => (seen.push(`after ${payload.trigger}`), { context: 'HANDED BACK' }),
          },
        },
        file: '/project/hookwise.config.json',
      }),
      createEngine: (options) => createEngine({ ...options, stateStore: createMemoryStateStore() }),
    });
    const session = host.session('s1');
    const steps = session.compaction;
    await steps.settled();
    steps.trigger = 'manual';
    expect(await steps.begin('to stop this compaction')).toBe('KEEP');
    expect(steps.running).toBe(true);
    expect(lines).toContain('a hook asked to stop this compaction: no');
    await Promise.all([steps.end(), steps.end()]);
    await steps.end();
    await steps.settled();
    expect(steps.running).toBe(false);
    expect(seen).toEqual(['before manual', 'after manual']);
    expect(await session.requestTexts()).toEqual(['HANDED BACK']);
    // The next compaction: no trigger told is `auto`; one the host gave up (never ended) runs no compact:after.
    await steps.begin('to stop this compaction');
    steps.running = false;
    await steps.end();
    expect(seen).toEqual(['before manual', 'after manual', 'before auto']);
  });
});
