import { definePlugin } from '@hookwise/core';
import { prune } from '@hookwise/hook-prune';
import { describe, expect, it } from 'vitest';
import { fakeCline, readCall, readResult, user } from './__fixtures__/fake-cline.js';

const plugin = (on: Record<string, (...args: any[]) => unknown>) =>
  definePlugin({ meta: { name: 'test-plugin', version: '1.0.0' }, on: on as never })();
const request = (messages: unknown[]) => ({ snapshot: { messages }, request: { systemPrompt: 'You are Cline.', messages } });

describe('the Cline plugin', () => {
  it('is the object Cline loads: a name, the hooks capability and every hook', async () => {
    const { plugin: loaded } = await fakeCline(undefined);
    expect(loaded.name).toBe('hookwise');
    expect(loaded.manifest).toEqual({ capabilities: ['hooks'] });
    expect(Object.keys(loaded.hooks).sort()).toEqual(['afterRun', 'afterTool', 'beforeModel', 'beforeRun', 'beforeTool', 'onEvent']);
  });

  it("clears old read_files outputs in the request's messages by part, keeps ids and pairing, and leaves the rest as Cline sent it", async () => {
    const cline = await fakeCline({ plugins: [prune({ policy: 'window', protectTokens: 1_000, minimumTokens: 100, keepRecent: 1 })] });
    const messages = [
      user('go'),
      readCall('c1', 'a.ts'),
      readResult('c1', 'a.ts', 'a'.repeat(20_000)),
      readCall('c2', 'b.ts'),
      readResult('c2', 'b.ts', 'b'.repeat(20_000)),
    ];
    const answer = await cline.call('beforeModel', request(messages));
    expect(answer.messages).toHaveLength(5);
    const first = answer.messages[2].content[0];
    expect(first).toMatchObject({ type: 'tool-result', toolCallId: 'c1', toolName: 'read_files' });
    expect(typeof first.output).toBe('string');
    expect(first.output).not.toContain('aaaa');
    expect(answer.messages[4]).toEqual(messages[4]);
    expect(answer.messages.map((message: { id: string }) => message.id)).toEqual(messages.map((message) => message.id));
    expect((await cline.eventLog.readAll()).some((record) => record.type === 'prune:applied')).toBe(true);
  });

  it('gives Cline nothing back when a hook throws or runs past its deadline, and logs the failure', async () => {
    const cline = await fakeCline(
      {
        plugins: [
          plugin({
            'llm:before': () => {
              throw new Error('broken on purpose');
            },
            'tool:after': () => new Promise(() => {}),
          }),
        ],
      },
      { hookTimeoutMs: 50 },
    );
    expect(await cline.call('beforeModel', request([user('hi')]))).toBeUndefined();
    const toolCall = { toolCallId: 'c1', toolName: 'read_files' };
    expect(await cline.call('afterTool', { toolCall, input: {}, result: { output: 'x' } })).toBeUndefined();
    const failures = (await cline.eventLog.readAll()).filter((record) => record.type === 'hook:error');
    expect(failures.map((record) => `${record['point']}:${record['kind']}`)).toEqual(['llm:before:error', 'tool:after:timeout']);
  });

  it('never throws into Cline, even when the config does not load', async () => {
    const cline = await fakeCline(undefined, { loadError: new Error('bad config') });
    expect(await cline.call('beforeRun', { snapshot: { messages: [user('hi')] } })).toBeUndefined();
    expect(await cline.call('beforeModel', request([user('hi')]))).toBeUndefined();
    expect(
      await cline.call('onEvent', { type: 'status-notice', metadata: { reason: 'auto_compaction', phase: 'started' } }),
    ).toBeUndefined();
  });

  it('hands session:start and prompt:submit contexts to Cline as appendContext, with the typed command', async () => {
    const seen: unknown[] = [];
    const cline = await fakeCline({
      plugins: [
        plugin({
          'session:start': () => ({ context: 'START' }),
          'prompt:submit': (payload: { prompt: string; command?: unknown }) => {
            seen.push(payload.prompt, payload.command);
            return { context: 'PROMPT' };
          },
        }),
      ],
    });
    const answer = await cline.call('beforeRun', { snapshot: { messages: [user('<user_input mode="act">/review a.ts</user_input>')] } });
    expect(answer).toEqual({ appendContext: 'START\n\nPROMPT' });
    expect(seen).toEqual(['/review a.ts', { name: 'review', args: 'a.ts' }]);
  });

  it('after a compaction, what compact:after hands back is in the first user message of every later request', async () => {
    const phases: string[] = [];
    const cline = await fakeCline({
      plugins: [
        plugin({
          'compact:before': (payload: { trigger: string; contextTokens?: number }) =>
            void phases.push(`before ${payload.trigger} ${payload.contextTokens}`),
          'compact:after': (payload: { tokensBefore?: number; tokensAfter?: number }) => {
            phases.push(`after ${payload.tokensBefore} ${payload.tokensAfter}`);
            return { context: 'RULE-7: cite line numbers.' };
          },
        }),
      ],
    });
    const notice = (metadata: Record<string, unknown>) => ({
      type: 'status-notice',
      message: 'compacting',
      metadata: { reason: 'auto_compaction', ...metadata },
    });
    await cline.call('onEvent', notice({ phase: 'started', triggerTokens: 115_200 }));
    await cline.call('onEvent', notice({ phase: 'completed', tokensBefore: 116_150, tokensAfter: 35_567 }));
    expect(phases).toEqual(['before auto undefined', 'after 116150 35567']);
    const summary = { ...user('Context summary:\n\nEarlier work.'), metadata: { kind: 'compaction_summary' } };
    const next = user('go on');
    for (let round = 0; round < 2; round++) {
      const answer = await cline.call('beforeModel', request([summary, next]));
      expect(answer.messages[0].content.at(-1).text).toBe('<hookwise>\nRULE-7: cite line numbers.\n</hookwise>');
      expect(answer.messages[1]).toEqual(next);
    }
  });

  it('stores what tool:after makes of an output, and skips a tool a hook blocks', async () => {
    const cline = await fakeCline({
      plugins: [
        plugin({
          'tool:before': (payload: { toolName: string }) =>
            payload.toolName === 'run_commands' ? { block: { reason: 'not here' } } : undefined,
          'tool:after': (payload: { output: string }) => ({ value: payload.output.slice(0, 10) }),
        }),
      ],
    });
    const output = [{ query: 'a.ts', result: 'a'.repeat(100), success: true }];
    const after = await cline.call('afterTool', { toolCall: { toolCallId: 'c1', toolName: 'read_files' }, input: {}, result: { output } });
    expect(after).toEqual({ result: { output: JSON.stringify(output).slice(0, 10) } });
    const before = await cline.call('beforeTool', { toolCall: { toolCallId: 'c2', toolName: 'run_commands' }, input: {} });
    expect(before).toEqual({ skip: true, reason: 'hookwise: not here' });
  });
});
