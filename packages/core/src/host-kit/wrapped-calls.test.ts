import { describe, expect, it } from 'vitest';
import type { HookMap } from '../hooks.js';
import type { HookwiseConfig } from '../config.js';
import { createEngine } from '../engine.js';
import { createMemoryEventLog } from '../state/event-log.js';
import { createMemoryStateStore } from '../state/file-state-store.js';
import { createHost } from './create-host.js';
import { runCompaction, runTool } from './wrapped-calls.js';

function sessionWith(on: HookMap) {
  const lines: string[] = [];
  const config: HookwiseConfig = { on };
  const host = createHost({
    host: 'test-host',
    projectDir: '/project',
    ephemeral: true,
    log: (entry) => void lines.push(`${entry.level}: ${entry.text}`),
    loadConfig: async () => ({ config, file: '/project/hookwise.config.json' }),
    createEngine: (options) => createEngine({ ...options, stateStore: createMemoryStateStore(), eventLog: createMemoryEventLog() }),
  });
  return { session: host.session('s1'), lines };
}

describe('runTool', () => {
  it('runs the tool between tool:before and tool:after, which may replace its output and add context', async () => {
    const seen: unknown[] = [];
    const { session } = sessionWith({
      'tool:before': (payload) => void seen.push(['before', payload.toolName, payload.toolUseId]),
      'tool:after': (payload) => {
        seen.push(['after', payload.output, payload.ok, typeof payload.durationMs]);
        return { value: `[${String(payload.output)}]`, context: 'read it' };
      },
    });
    const ran = await runTool(session, { toolName: 'read', input: { path: 'a' }, toolUseId: 'c1' }, () => 'text');
    expect(ran).toEqual({ output: 'text', replaced: '[text]' });
    expect(seen).toEqual([
      ['before', 'read', 'c1'],
      ['after', 'text', true, 'number'],
    ]);
    expect(await session.requestTexts()).toEqual(['read it']);
  });

  it('does not run a blocked tool, tells tool:after of a throw and rethrows it, and passes on an unseen output', async () => {
    const after: unknown[] = [];
    const { session } = sessionWith({
      'tool:before': (payload) => (payload.input === 'no' ? { block: { reason: 'off limits' } } : undefined),
      'tool:after': (payload) => void after.push([payload.ok, payload.error]),
    });
    let ran = 0;
    expect(await runTool(session, { toolName: 't', input: 'no' }, () => ran++)).toEqual({ blocked: 'off limits' });
    expect(ran).toBe(0);
    const failing = () => Promise.reject(new Error('boom'));
    await expect(runTool(session, { toolName: 't', input: 'yes' }, failing)).rejects.toThrow('boom');
    const stream = { streamed: true };
    expect(
      await runTool(
        session,
        { toolName: 't', input: 'yes' },
        () => stream,
        (output) => output === stream,
      ),
    ).toEqual({
      output: stream,
    });
    expect(after).toEqual([[false, 'boom']]);
  });
});

describe('runCompaction', () => {
  it("gives run the hooks' instructions, reports compact:after, and keeps its context for later requests", async () => {
    const seen: unknown[] = [];
    const { session, lines } = sessionWith({
      'compact:before': (payload) => {
        seen.push(['before', payload.trigger, payload.contextTokens]);
        return { context: 'keep the plan', block: { reason: 'not now' } };
      },
      'compact:after': (payload) => {
        seen.push(['after', payload.tokensBefore, payload.tokensAfter, payload.summary]);
        return { context: 'the rules' };
      },
    });
    session.fields.contextTokens = 9_000;
    const result = await runCompaction(session, { trigger: 'manual', tokensBefore: 9_000 }, (instructions) => ({
      instructions,
      tokensAfter: 1_000,
      summary: 'short',
    }));
    expect(result).toEqual({ instructions: 'keep the plan', tokensAfter: 1_000, summary: 'short' });
    expect(seen).toEqual([
      ['before', 'manual', 9_000],
      ['after', 9_000, 1_000, 'short'],
    ]);
    expect(session.fields.contextTokens).toBe(1_000);
    expect(await session.requestTexts()).toEqual(['the rules']);
    expect(lines).toEqual(['warn: a hook asked to stop this compaction; the host decides, and compacts: not now']);
    await runCompaction(session, { trigger: 'auto', tokensBefore: undefined }, () => undefined);
    expect(seen.at(-1)).toEqual(['after', undefined, undefined, undefined]);
    expect(session.fields.contextTokens).toBeUndefined();
  });
});
