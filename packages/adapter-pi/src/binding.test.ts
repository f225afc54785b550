import { definePlugin } from '@hookwise/core';
import { prune } from '@hookwise/hook-prune';
import { describe, expect, it } from 'vitest';
import { fakePi, toolCall, toolResult, user } from './__fixtures__/fake-pi.js';

const plugin = (on: Record<string, (...args: any[]) => unknown>) =>
  definePlugin({ meta: { name: 'test-plugin', version: '1.0.0' }, on: on as never })();

describe('the pi binding', () => {
  it('replaces old tool outputs for the request only, keeps pairing, and passes pi roles and unknown roles through untouched', async () => {
    // The window policy with small thresholds: what it prunes here is plain to see.
    const pi = fakePi({ plugins: [prune({ policy: 'window', protectTokens: 1_000, minimumTokens: 100, keepRecent: 1 })] });
    const summary = { role: 'compactionSummary', summary: 'Earlier work.', tokensBefore: 9_000, timestamp: 1 };
    const custom = { role: 'custom', customType: 'other', content: 'x', display: false, timestamp: 1 };
    const strange = { role: 'somethingNew', payload: 42 };
    const messages = [
      summary,
      user('go'),
      toolCall('c1', 'a.ts'),
      toolResult('c1', 'a'.repeat(20_000)),
      custom,
      strange,
      toolCall('c2', 'b.ts'),
      toolResult('c2', 'b'.repeat(20_000)),
      toolCall('c3', 'c.ts'),
      toolResult('c3', 'c'.repeat(20_000)),
    ];
    const originals = structuredClone(messages);
    const result = await pi.fire('context', { messages });
    expect(result?.messages).toHaveLength(messages.length);
    const outputs = result.messages
      .filter((message: any) => message.role === 'toolResult')
      .map((message: any) => message.content[0].text as string);
    expect(outputs[0]).not.toContain('aaaa');
    expect(outputs[2]).toBe('c'.repeat(20_000));
    expect(result.messages[0]).toBe(summary);
    expect(result.messages[4]).toBe(custom);
    expect(result.messages[5]).toBe(strange);
    expect(messages).toEqual(originals);
  });

  it("writes a hook's new tool input and output onto copies for the request, and leaves out a message pi has no place for", async () => {
    const edit = (message: any) => ({
      ...message,
      parts: message.parts.map((part: any) =>
        part.type === 'tool-call'
          ? { ...part, input: { path: 'digest' } }
          : part.type === 'tool-result'
            ? { ...part, output: '[cleared]' }
            : part,
      ),
    });
    const added = { role: 'user', parts: [{ type: 'text', text: 'added by a hook' }] };
    const pi = fakePi(
      { plugins: [plugin({ 'llm:before': (payload: any) => ({ value: [...payload.messages.map(edit), added] }) })] },
      { hasUI: false },
    );
    const messages = [user('go'), toolCall('c1', 'a.ts'), toolResult('c1', 'a'.repeat(100))];
    const originals = structuredClone(messages);
    const result = await pi.fire('context', { messages });
    expect(result.messages).toHaveLength(3);
    expect(result.messages[0]).toBe(messages[0]);
    expect(result.messages[1].content[0]).toMatchObject({ type: 'toolCall', id: 'c1', arguments: { path: 'digest' } });
    expect(result.messages[2]).toMatchObject({ role: 'toolResult', toolCallId: 'c1', content: [{ type: 'text', text: '[cleared]' }] });
    expect(messages).toEqual(originals);
    expect(pi.lines).toContainEqual(expect.stringContaining('1 edit(s) pi has no place for were left out'));
  });

  it('gives pi nothing back when a hook throws, and writes the failure to the event log', async () => {
    const pi = fakePi({
      plugins: [
        plugin({
          'llm:before': () => {
            throw new Error('broken on purpose');
          },
        }),
      ],
    });
    expect(await pi.fire('context', { messages: [user('hi')] })).toBeUndefined();
    const failures = (await pi.eventLog.readAll()).filter((record) => record.type === 'hook:error');
    expect(failures.map((record) => record['point'])).toEqual(['llm:before']);
  });

  it('steps aside when a hook runs past its deadline', async () => {
    const pi = fakePi({ hookTimeoutMs: 50, plugins: [plugin({ 'tool:after': () => new Promise(() => {}) })] });
    expect(
      await pi.fire('tool_result', {
        toolName: 'read',
        toolCallId: 'c1',
        input: {},
        content: [{ type: 'text', text: 'out' }],
        isError: false,
      }),
    ).toBeUndefined();
    const failures = (await pi.eventLog.readAll()).filter((record) => record.type === 'hook:error');
    expect(failures.map((record) => record['kind'])).toEqual(['timeout']);
  });

  it('with a config that does not load, logs once and leaves every event unchanged', async () => {
    const pi = fakePi(undefined, { loadError: new Error('bad option at plugins.0'), hasUI: false });
    expect(await pi.fire('context', { messages: [user('hi')] })).toBeUndefined();
    expect(await pi.fire('tool_call', { toolName: 'bash', toolCallId: 'c1', input: {} })).toBeUndefined();
    expect(pi.lines.filter((line) => line.includes('could not be loaded'))).toHaveLength(1);
    expect(pi.lines[0]).toContain('bad option at plugins.0');
  });

  it('tolerates malformed events', async () => {
    const pi = fakePi({ plugins: [prune()] });
    expect(await pi.fire('context', { messages: 'not a list' })).toBeUndefined();
    expect(await pi.fire('tool_result', {})).toBeUndefined();
    expect(await pi.fire('context', { messages: [null, 7, { role: 'user' }] })).toBeUndefined();
    expect(await pi.fire('session_compact', {})).toBeUndefined();
  });

  it('parses the slash command from the raw input and hands it to prompt:submit with the expanded prompt', async () => {
    const seen: unknown[] = [];
    const pi = fakePi({
      plugins: [plugin({ 'prompt:submit': (payload: any) => void seen.push({ prompt: payload.prompt, command: payload.command }) })],
    });
    await pi.fire('input', { text: '/review src/app.ts', source: 'interactive' });
    await pi.fire('before_agent_start', { prompt: 'Review src/app.ts carefully.', messageType: 'user', systemPrompt: '' });
    expect(seen).toEqual([{ prompt: 'Review src/app.ts carefully.', command: { name: 'review', args: 'src/app.ts' } }]);
  });

  it("adds compact:before's context to pi's summary and compact:after's to the system prompt, the same text every request", async () => {
    const pi = fakePi({
      plugins: [plugin({ 'compact:before': () => ({ context: 'RULE-1 survives' }), 'compact:after': () => ({ context: 'RULE-1 again' }) })],
    });
    expect(await pi.fire('session_before_compact', { reason: 'threshold', preparation: { tokensBefore: 30_000 } })).toBeUndefined();
    await pi.fire('session_compact', { compactionEntry: { summary: 'pi summary', tokensBefore: 30_000 } });
    const messages = [{ role: 'compactionSummary', summary: 'pi summary', tokensBefore: 30_000 }, user('next')];
    const first = await pi.fire('context', { messages });
    expect(first.messages[0].summary).toBe('pi summary\n\nRULE-1 survives');
    const head = { role: 'system', content: '', sections: { preamble: 'You are pi.' } };
    const systems = [
      await pi.fire('context_with_system', { messages: [head, ...first.messages] }),
      await pi.fire('context_with_system', { messages: [head, ...first.messages] }),
    ];
    expect(systems.map((system) => system.messages[0].sections.hookwise)).toEqual(['RULE-1 again', 'RULE-1 again']);
  });

  it('shows a notice with pi wording for the compact action, and always writes it to the event log', async () => {
    const pi = fakePi({
      plugins: [
        plugin({
          'tool:after': () => ({
            notice: { text: 'Context at 72%.', about: ['capacity'], actions: [{ label: 'Compact', hostAction: 'compact' }] },
          }),
        }),
      ],
    });
    await pi.fire('tool_result', {
      toolName: 'bash',
      toolCallId: 'c1',
      input: {},
      content: [{ type: 'text', text: 'ok' }],
      isError: false,
    });
    expect(pi.notified).toEqual(['hookwise: Context at 72%. Type /compact to compact the context now.']);
    const notices = (await pi.eventLog.readAll()).filter((record) => record.type === 'notice');
    expect(notices.map((record) => [record['about'], record['point']])).toEqual([[['capacity'], 'tool:after']]);
  });

  it("reports pi's context usage in payloads, and none when pi does not know it yet", async () => {
    const seen: unknown[] = [];
    const pi = fakePi(
      { plugins: [plugin({ 'tool:before': (payload: any) => void seen.push([payload.contextTokens, payload.contextWindow]) })] },
      { usage: { tokens: 140_000, contextWindow: 200_000 } },
    );
    await pi.fire('tool_call', { toolName: 'bash', toolCallId: 'c1', input: {} });
    pi.usage.tokens = null;
    await pi.fire('tool_call', { toolName: 'bash', toolCallId: 'c2', input: {} });
    expect(seen).toEqual([
      [140_000, 200_000],
      [undefined, 200_000],
    ]);
  });

  it("blocks a tool with the hook's reason", async () => {
    const pi = fakePi({ plugins: [plugin({ 'tool:before': () => ({ block: { reason: 'not here' } }) })] });
    expect(await pi.fire('tool_call', { toolName: 'bash', toolCallId: 'c1', input: {} })).toEqual({
      block: true,
      reason: 'hookwise: not here',
    });
  });
});
