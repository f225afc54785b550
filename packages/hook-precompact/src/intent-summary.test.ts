import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { createMemoryStateStore } from '@hookwise/core/host';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MUTATING_TOOLS } from './options.js';
import {
  appendTraceEntry,
  fromAgentTraceEntry,
  getSelectedIntent,
  mergeTraces,
  readLedger,
  readStoredTrace,
  selectIntent,
  clearIntent,
  targetFilesOf,
  type TraceEntry,
} from './intent-trace.js';
import { intentStatistics, summarizeIntent } from './intent-summary.js';

const ledgerFolder = fileURLToPath(new URL('../../../fixtures/roo-intent-trace/tedoaba-roo-code/', import.meta.url));
const mutatingTools = new Set(DEFAULT_MUTATING_TOOLS);
const read = (intentId: string, maxBytes = 4 * 1024 * 1024) =>
  readLedger(ledgerFolder, 'agent_trace.jsonl', intentId, { maxBytes, mutatingTools });

describe('the Roo Code fork ledger (fixture, 142 entries)', () => {
  it('REQ-WEATHER-API-001: 41 entries; the last 20 add up as in the ledger', async () => {
    const { entries, malformed } = await read('REQ-WEATHER-API-001');
    expect(malformed).toBe(0);
    expect(entries).toHaveLength(41);
    const statistics = intentStatistics(entries, 20);
    expect(statistics.considered).toBe(20);
    expect(statistics.tools).toEqual([
      { tool: 'select_active_intent', count: 8 },
      { tool: 'write_to_file', count: 4 },
      { tool: 'update_todo_list', count: 3 },
      { tool: '(STATE_TRANSITION)', count: 2 },
      { tool: 'ScopeDriftDetectionHook', count: 2 },
      { tool: 'IntentProgressHook', count: 1 },
    ]);
    expect(statistics).toMatchObject({ succeeded: 16, failed: 2, denied: 0, warnings: 2, unknown: 0 });
    // Hook warnings name the written files but change nothing; only the two writes count.
    expect(statistics.filesChanged).toEqual(['.orchestration/intent_map.md', '.orchestration/plan.md']);
    expect(statistics.filesNotChanged).toEqual([]);
  });

  it('REQ-WEATHER-API-002: 35 entries; denied writes are failures and change no file', async () => {
    const { entries } = await read('REQ-WEATHER-API-002');
    expect(entries).toHaveLength(35);
    const statistics = intentStatistics(entries, 20);
    expect(Object.fromEntries(statistics.tools.map(({ tool, count }) => [tool, count]))).toEqual({
      write_to_file: 10,
      execute_command: 3,
      ScopeDriftDetectionHook: 3,
      read_file: 2,
      apply_diff: 1,
      update_todo_list: 1,
    });
    expect(statistics).toMatchObject({ succeeded: 11, failed: 6, denied: 6, warnings: 3 });
    expect(statistics.filesChanged).toEqual(['main.py', 'tests/__init__.py', 'tests/test_weather.py']);
    // app/api.py was only read; main_simple.py was denied (scope violation).
    expect(statistics.filesChanged).not.toContain('app/api.py');
    expect(statistics.filesNotChanged).toEqual(['main_simple.py']);
  });

  it('both intents cross the threshold; the summary lists 20 actions in order, then the totals', async () => {
    for (const id of ['REQ-WEATHER-API-001', 'REQ-WEATHER-API-002']) {
      const { entries } = await read(id);
      const summary = summarizeIntent(id, entries, { threshold: 20, window: 20 });
      expect(summary).not.toBeNull();
      const actions = summary!.split('\n').filter((line) => /^\d+\. /.test(line));
      expect(actions).toHaveLength(20);
      expect(actions[0]).toMatch(/^1\. 2026-02-21 17:/);
      expect(summary).toContain(`## ACTIVE INTENT: ${id} — last 20 of ${entries.length} actions`);
    }
    const { entries } = await read('REQ-WEATHER-API-002');
    const summary = summarizeIntent('REQ-WEATHER-API-002', entries, { threshold: 20, window: 20 })!;
    expect(summary).toContain('1. 2026-02-21 17:39:20Z write_to_file main.py [write] → SUCCESS');
    expect(summary).toContain('20. 2026-02-21 17:47:32Z update_todo_list → SUCCESS');
    expect(summary).toContain('Files changed: main.py, tests/__init__.py, tests/test_weather.py');
    expect(summary).toContain('Results: 11 succeeded, 6 failed (6 denied), 3 with warnings');
  });

  it('entries of other intents and of no intent are not part of the history', async () => {
    expect((await read('REQ-UNKNOWN')).entries).toEqual([]);
  });

  it('reads only the tail of a big ledger, dropping the partial first line', async () => {
    const tail = await read('REQ-WEATHER-API-002', 20_000);
    expect(tail.partial).toBe(true);
    expect(tail.malformed).toBe(0);
    expect(tail.entries.length).toBeGreaterThan(0);
    expect(tail.entries.length).toBeLessThan(35);
    const whole = await read('REQ-WEATHER-API-002');
    expect(tail.entries).toEqual(whole.entries.slice(-tail.entries.length));
  });

  it('a missing ledger is an empty history', async () => {
    expect(await readLedger(ledgerFolder, 'no-such.jsonl', 'X', { maxBytes: 1000, mutatingTools })).toEqual({
      entries: [],
      malformed: 0,
      partial: false,
    });
  });
});

describe('summarizeIntent', () => {
  const entry = (index: number, extra: Partial<TraceEntry> = {}): TraceEntry => ({
    time: `2026-01-01T00:00:${String(index).padStart(2, '0')}Z`,
    tool: 'Read',
    files: [],
    mutation: false,
    status: 'SUCCESS',
    source: 'hookwise',
    ...extra,
  });

  it('says nothing under the threshold and fires at exactly the threshold', () => {
    const nineteen = Array.from({ length: 19 }, (_value, index) => entry(index));
    expect(summarizeIntent('I', nineteen, { threshold: 20, window: 20 })).toBeNull();
    expect(summarizeIntent('I', [...nineteen, entry(19)], { threshold: 20, window: 20 })).not.toBeNull();
    expect(summarizeIntent('I', [], { threshold: 1, window: 20 })).toBeNull();
  });

  it('tolerates entries lacking every optional field', () => {
    const bare: TraceEntry = { files: [], mutation: false, source: 'ledger' };
    const summary = summarizeIntent(
      'I',
      Array.from({ length: 3 }, () => bare),
      { threshold: 3, window: 20 },
    )!;
    expect(summary).toContain('1. (no time) - → no status');
    expect(summary).toContain('Tool use: unknown ×3');
    expect(summary).toContain('Results: 0 succeeded, 0 failed, 3 without a status');
  });

  it('a later successful write clears an earlier failed one from the failures', () => {
    const history = [
      entry(0, { tool: 'Edit', mutation: true, files: ['a.ts'], status: 'FAILURE' }),
      entry(1, { tool: 'Edit', mutation: true, files: ['a.ts'] }),
      entry(2, { tool: 'Edit', mutation: true, files: ['b.ts'], status: 'FAILURE' }),
    ];
    const statistics = intentStatistics(history, 20);
    expect(statistics.filesChanged).toEqual(['a.ts']);
    expect(statistics.filesNotChanged).toEqual(['b.ts']);
  });
});

describe('fromAgentTraceEntry', () => {
  it('survives missing payload, result and ranges, and non-objects', () => {
    expect(fromAgentTraceEntry({ intent_id: 'X' }, mutatingTools)).toEqual({ files: [], mutation: false, source: 'ledger' });
    expect(fromAgentTraceEntry('text', mutatingTools)).toBeUndefined();
    expect(fromAgentTraceEntry({ payload: null, result: 7, ranges: [{ file: 'a.ts' }, null] }, mutatingTools)).toEqual({
      files: ['a.ts'],
      mutation: false,
      source: 'ledger',
    });
  });

  it('an observational hook entry naming a file is not a mutation', () => {
    const warning = fromAgentTraceEntry(
      { mutation_class: 'OBSERVATIONAL', action_type: 'SCOPE_WARNING', payload: { file: 'main.py' }, result: { status: 'WARNING' } },
      mutatingTools,
    );
    expect(warning?.mutation).toBe(false);
  });
});

describe("hookwise's own trace", () => {
  it('keeps the last traceLimit entries per intent and merges with the ledger by time', async () => {
    const store = createMemoryStateStore();
    const target = { stateStore: store };
    for (let index = 0; index < 5; index++) {
      await appendTraceEntry(
        target,
        'REQ-1',
        { time: `2026-01-01T00:00:0${index}Z`, tool: 'Edit', files: ['a.ts'], mutation: true, ok: index !== 2 },
        3,
      );
    }
    const own = await readStoredTrace(target, 'REQ-1');
    expect(own.map((entry) => entry.time)).toEqual(['2026-01-01T00:00:02Z', '2026-01-01T00:00:03Z', '2026-01-01T00:00:04Z']);
    expect(own[0]).toMatchObject({ status: 'FAILURE', mutation: true, files: ['a.ts'], source: 'hookwise' });
    const ledger: TraceEntry[] = [
      { time: '2026-01-01T00:00:03.500Z', tool: 'write_to_file', files: [], mutation: true, status: 'SUCCESS', source: 'ledger' },
    ];
    expect(mergeTraces(ledger, own).map((entry) => entry.source)).toEqual(['hookwise', 'hookwise', 'ledger', 'hookwise']);
  });

  it('selecting an intent is per project and validated', async () => {
    const store = createMemoryStateStore();
    await selectIntent({ stateStore: store }, 'REQ-WEATHER-API-002');
    expect(await getSelectedIntent({ stateStore: store })).toBe('REQ-WEATHER-API-002');
    await expect(selectIntent({ stateStore: store }, '../x')).rejects.toThrow(/refused intent id/);
    await clearIntent({ stateStore: store });
    expect(await getSelectedIntent({ stateStore: store })).toBeUndefined();
  });

  it('targetFilesOf reads Claude Code and Roo Code inputs, relative to the project', () => {
    expect(targetFilesOf({ file_path: '/work/p/src/a.ts' }, '/work/p')).toEqual(['src/a.ts']);
    expect(targetFilesOf({ path: 'main.py', content: 'x' }, '/work/p')).toEqual(['main.py']);
    expect(targetFilesOf({ files: [{ path: 'a' }, 'b', 3] }, '/work/p')).toEqual(['a', 'b']);
    expect(targetFilesOf({ command: 'ls' }, '/work/p')).toEqual([]);
    expect(targetFilesOf('not an object', '/work/p')).toEqual([]);
    expect(targetFilesOf({ file_path: '/etc/hosts' }, '/work/p')).toEqual(['/etc/hosts']);
    expect(path.isAbsolute(targetFilesOf({ file_path: '/etc/hosts' }, '/work/p')[0]!)).toBe(true);
  });
});
