import { describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createEngine } from '../engine.js';
import { silentLogger } from '../logger.js';
import { createMemoryEventLog } from '../state/event-log.js';
import { createMemoryStateStore } from '../state/file-state-store.js';
import { EventDispatch } from './dispatch.js';
import { createInputParser } from './input-fields.js';
import { fileSize, jsonLinesFrom } from './json-lines.js';
import {
  eventsForPoints,
  hookwiseEventsIn,
  mergeHookwiseHooks,
  missingCommandFile,
  missingProgram,
  type HookSettings,
} from './hook-settings.js';
import { renderHookJson, type HookOutputFormat } from './output.js';

const FORMAT: HookOutputFormat = {
  context: new Set(['PostToolUse']),
  noNotice: new Set(['SessionEnd']),
  decision: new Set(['Stop']),
  deny: new Set(['PreToolUse']),
  cap: 80,
};

describe("the command-hook kit's output", () => {
  it('emits only the fields an event accepts, capped', () => {
    expect(renderHookJson('PostToolUse', { context: 'ctx', notice: 'note', block: { reason: 'no' } }, FORMAT)).toEqual({
      systemMessage: 'note',
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'ctx' },
    });
    expect(renderHookJson('PreToolUse', { block: { reason: 'no' } }, FORMAT)).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no' },
    });
    expect(renderHookJson('Stop', { block: { reason: 'x'.repeat(100) } }, FORMAT)?.reason).toMatch(
      /^x+\n\[… cut by hookwise: 20 more characters\]$/,
    );
    expect(renderHookJson('SessionEnd', { notice: 'bye', context: 'ctx' }, FORMAT)).toBeUndefined();
  });

  it("words a top-level decision as the host does (Gemini CLI's `deny`)", () => {
    expect(renderHookJson('Stop', { block: { reason: 'no' } }, { ...FORMAT, decisionWord: 'deny' })).toEqual({
      decision: 'deny',
      reason: 'no',
    });
  });
});

describe("the command-hook kit's hook settings", () => {
  it("puts one hookwise command per event with the host's timeout, keeps the user's hooks, and is idempotent", () => {
    const user = { type: 'command', command: 'echo mine', timeout: 5 };
    const settings = {
      other: true,
      hooks: { Stop: [{ hooks: [user] }], PreCompact: [{ hooks: [{ type: 'command', command: 'node x/hookwise.cjs run PreCompact' }] }] },
    };
    const merged = mergeHookwiseHooks(
      settings,
      ['Stop', 'SessionStart'],
      (event) => `node "/a/hookwise.cjs" run ${event}`,
      () => 7,
    );
    expect(merged.changed).toBe(true);
    expect(merged.settings).toEqual({
      other: true,
      hooks: {
        Stop: [{ hooks: [user] }, { hooks: [{ type: 'command', command: 'node "/a/hookwise.cjs" run Stop', timeout: 7 }] }],
        SessionStart: [{ hooks: [{ type: 'command', command: 'node "/a/hookwise.cjs" run SessionStart', timeout: 7 }] }],
      },
    });
    expect(
      mergeHookwiseHooks(
        merged.settings,
        ['Stop', 'SessionStart'],
        (event) => `node "/a/hookwise.cjs" run ${event}`,
        () => 7,
      ).changed,
    ).toBe(false);
    expect([...hookwiseEventsIn(merged.settings).keys()]).toEqual(['Stop', 'SessionStart']);
  });

  it('writes further fields with each entry, new or updated', () => {
    const command = (event: string) => `node /a/hookwise.cjs run ${event}`;
    const once = mergeHookwiseHooks<HookSettings>({}, ['Stop'], command, () => 7, { name: 'hookwise' }).settings;
    expect(once.hooks?.Stop).toEqual([{ hooks: [{ type: 'command', name: 'hookwise', command: command('Stop'), timeout: 7 }] }]);
    const unnamed = mergeHookwiseHooks<HookSettings>({}, ['Stop'], command, () => 7).settings;
    const named = mergeHookwiseHooks(unnamed, ['Stop'], command, () => 7, { name: 'hookwise' });
    expect([named.changed, named.settings]).toEqual([true, once]);
    expect(mergeHookwiseHooks(once, ['Stop'], command, () => 7, { name: 'hookwise' }).changed).toBe(false);
  });

  it('registers the events of the points in use in the host order, and finds a missing bin', () => {
    expect(eventsForPoints<'A' | 'B' | 'C'>({ A: ['session:start'], B: ['tool:after'], C: ['agent:stop'] }, ['agent:stop'], ['A'])).toEqual(
      ['A', 'C'],
    );
    expect(missingCommandFile('node "$ROOT/bin.cjs" run Stop', { ROOT: '/p' }, () => false)).toBe('/p/bin.cjs');
    expect(missingCommandFile('node "$ROOT/bin.cjs" run Stop', { ROOT: '/p' }, () => true)).toBeUndefined();
  });

  it('finds a program that is on no folder of PATH, or a path that is not executable', () => {
    const on = (files: string[]) => (file: string) => files.includes(file);
    expect(missingProgram('hookwise-x run Stop', '/a:/b', on(['/b/hookwise-x']))).toBeUndefined();
    expect(missingProgram('hookwise-x run Stop', '/a:/b', on(['/c/hookwise-x']))).toBe('hookwise-x');
    expect(missingProgram('/opt/hw run Stop', '/a', on([]))).toBe('/opt/hw');
    expect(missingProgram('node /gone.cjs run Stop', '', on([]))).toBeUndefined();
  });
});

describe("the command-hook kit's input fields", () => {
  it('takes fitting input as it is and words what is wrong otherwise', () => {
    const parser = createInputParser({ Stop: { session_id: 'string', stop_hook_active: 'boolean?' } });
    const input = { session_id: 's', extra: 1 };
    expect(parser.parse('Stop', input)).toEqual({ ok: true, data: input });
    const bad = parser.parse('Stop', { session_id: 's', stop_hook_active: 'yes' });
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.message).toMatch(/stop_hook_active/);
  });
});

describe("the command-hook kit's JSON lines", () => {
  it('reads the records written after an offset, skipping a cut or half-written line', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hookwise-json-lines-'));
    try {
      const file = path.join(dir, 'session.jsonl');
      expect([fileSize(file), jsonLinesFrom(file, 0)]).toEqual([undefined, []]);
      writeFileSync(file, '{"n":1}\n');
      const offset = fileSize(file)!;
      appendFileSync(file, '{"n":2}\n{"n":3}\n{"n":');
      expect(jsonLinesFrom(file, offset)).toEqual([{ n: 2 }, { n: 3 }]);
      expect(jsonLinesFrom(file, 3)).toEqual([{ n: 2 }, { n: 3 }]);
      expect(jsonLinesFrom(file, 0)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the command-hook kit's dispatch", () => {
  it('runs a compaction told of afterwards with its sizes, keeps its context out of the event and hands it back', async () => {
    const seen: Array<[string, Record<string, unknown>]> = [];
    const on = (point: string, answer: object) => (payload: Record<string, unknown>) => {
      seen.push([point, payload]);
      return answer;
    };
    const engine = createEngine({
      config: {
        on: {
          'compact:before': on('compact:before', { context: 'too late' }),
          'compact:after': on('compact:after', { context: 'KEEP', notice: 'n' }),
        },
      },
      projectDir: os.tmpdir(),
      host: 'test',
      stateStore: createMemoryStateStore(),
      eventLog: createMemoryEventLog(),
      logger: silentLogger,
    });
    const dispatch = new EventDispatch(engine, { sessionId: 's' }, { namespace: 'test' });
    expect(await dispatch.compactedEarlier('auto', { tokensBefore: 900, tokensAfter: 90 })).toBe('KEEP');
    expect(seen).toEqual([
      ['compact:before', expect.objectContaining({ trigger: 'auto', contextTokens: 900, contextSource: 'usage' })],
      ['compact:after', expect.objectContaining({ trigger: 'auto', tokensBefore: 900, tokensAfter: 90, contextSource: 'usage' })],
    ]);
    expect(dispatch.result).toEqual({ context: undefined, notice: 'n' });
  });

  it('judges a compaction announced before it may happen at a later event, once per compaction found', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hookwise-may-compact-'));
    try {
      const file = path.join(dir, 'session.jsonl');
      writeFileSync(file, '{"n":1}\n');
      const seen: string[] = [];
      const engine = createEngine({
        config: {
          on: {
            'compact:before': (payload) => void seen.push(`before ${payload.contextTokens}`),
            'compact:after': (payload) => (seen.push(`after ${payload.tokensAfter}`), { context: 'KEEP' }),
          },
        },
        projectDir: dir,
        host: 'test',
        stateStore: createMemoryStateStore(),
        eventLog: createMemoryEventLog(),
        logger: silentLogger,
      });
      const dispatch = () => new EventDispatch(engine, { sessionId: 's', transcriptPath: file }, { namespace: 'test' });
      const offsets: number[] = [];
      const find = (key: string | undefined) => (_file: string, offset: number) => (
        offsets.push(offset), key ? { key, tokensAfter: 90 } : undefined
      );
      expect(await dispatch().settleCompaction(find('k1'))).toBeUndefined(); // nothing announced
      await dispatch().mayCompact('auto', 900);
      expect(await dispatch().settleCompaction(find(undefined))).toBeUndefined(); // announced, nothing compacted
      expect(await dispatch().settleCompaction(find('k1'))).toBeUndefined(); // judged already
      appendFileSync(file, '{"n":2}\n');
      await dispatch().mayCompact('auto', 900);
      expect(await dispatch().settleCompaction(find('k1'))).toEqual({ kept: 'KEEP' });
      await dispatch().mayCompact('manual', 100);
      expect(await dispatch().settleCompaction(find('k1'))).toBeUndefined(); // the same compaction again
      expect(offsets).toEqual([8, 16, 16]);
      expect(seen).toEqual(['before 900', 'after 90']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
