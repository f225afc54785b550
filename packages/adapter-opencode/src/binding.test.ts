import { definePlugin, type HookwiseConfig } from '@hookwise/core';
import { createEngine, createMemoryEventLog, createMemoryStateStore } from '@hookwise/core/host';
import { prune } from '@hookwise/hook-prune';
import type { Hooks } from '@opencode-ai/plugin';
import { describe, expect, it } from 'vitest';
import { createHooks } from './binding.js';
import type { OpenCodeMessage } from './messages.js';

/**
 * The binding with a fake OpenCode client and real engines (state in memory). What reaches a user
 * is judged by the end-to-end suite against the real OpenCode; these pin the rules.
 */
function fakeClient() {
  const toasts: string[] = [];
  const logs: Array<{ level: string; message: string }> = [];
  const client = {
    tui: { showToast: async (options: { body: { message: string } }) => void toasts.push(options.body.message) },
    app: {
      log: async (options: { body: { level: string; message: string } }) =>
        void logs.push({ level: options.body.level, message: options.body.message }),
    },
  };
  return { client: client as never, toasts, logs };
}

function hooksFor(config: HookwiseConfig | undefined, options: { loadError?: Error } = {}) {
  const fake = fakeClient();
  const eventLog = createMemoryEventLog();
  const hooks = createHooks(
    { client: fake.client, directory: '/project' },
    {},
    {
      loadConfig: async () => {
        if (options.loadError) throw options.loadError;
        return config ? { config, file: '/project/hookwise.config.json' } : { config: {}, file: undefined };
      },
      createEngine: (engineOptions) => createEngine({ ...engineOptions, stateStore: createMemoryStateStore(), eventLog }),
    },
  );
  return { hooks, eventLog, ...fake };
}

const info = (role: 'user' | 'assistant', id: string, extra: Record<string, unknown> = {}) =>
  (role === 'user'
    ? { id, sessionID: 'ses_1', role, time: { created: 1 }, agent: 'build', model: { providerID: 'p', modelID: 'm' }, ...extra }
    : {
        id,
        sessionID: 'ses_1',
        role,
        time: { created: 1, completed: 2 },
        parentID: 'u',
        modelID: 'm',
        providerID: 'p',
        mode: 'build',
        path: { cwd: '/', root: '/' },
        cost: 0,
        tokens: { input: 10, output: 1, reasoning: 0, cache: { read: 0, write: 0 } },
        ...extra,
      }) as OpenCodeMessage['info'];

const userMessage = (id: string, text: string): OpenCodeMessage => ({
  info: info('user', id),
  parts: [{ id: `${id}-t`, sessionID: 'ses_1', messageID: id, type: 'text', text }],
});
const toolMessage = (id: string, callID: string, output: string): OpenCodeMessage => ({
  info: info('assistant', id),
  parts: [
    { id: `${id}-s`, sessionID: 'ses_1', messageID: id, type: 'step-start' },
    {
      id: `${id}-tool`,
      sessionID: 'ses_1',
      messageID: id,
      type: 'tool',
      callID,
      tool: 'read',
      state: {
        status: 'completed',
        input: { filePath: `/project/${callID}.ts` },
        output,
        title: callID,
        metadata: {},
        time: { start: 1, end: 2 },
      },
    },
  ],
});

/** A conversation where the first output is old enough to prune (two prompts came after it). */
function conversation(): OpenCodeMessage[] {
  return [
    userMessage('u1', 'explore'),
    toolMessage('a1', 'call_1', 'x'.repeat(20_000)),
    userMessage('u2', 'go on'),
    toolMessage('a2', 'call_2', 'y'.repeat(20_000)),
    userMessage('u3', 'finish'),
  ];
}

async function request(hooks: Hooks, messages: OpenCodeMessage[]) {
  const output = { messages };
  await hooks['experimental.chat.messages.transform']!({}, output as never);
  const system = { system: ['You are opencode.'] };
  await hooks['experimental.chat.system.transform']!(
    { sessionID: 'ses_1', model: { id: 'm', providerID: 'p', limit: { context: 200_000, output: 8_000 } } } as never,
    system,
  );
  return { messages: output.messages, system: system.system };
}

const contextPlugin = (point: 'llm:before' | 'compact:before' | 'compact:after', text: string) =>
  definePlugin({
    meta: { name: `say-${point}`, version: '1.0.0' },
    on: { [point]: () => ({ context: text }) },
  })();

describe('createHooks', () => {
  it('without a hookwise config, every request goes through untouched', async () => {
    const { hooks } = hooksFor(undefined);
    const messages = conversation();
    const result = await request(hooks, messages);
    expect(result.messages).toBe(messages);
    expect(result.system).toEqual(['You are opencode.']);
  });

  it('hook-prune replaces the old output on a copy of the part; the stored part keeps it', async () => {
    const { hooks, eventLog } = hooksFor({
      plugins: [prune({ policy: 'window', protectTokens: 1_000, minimumTokens: 500, keepRecent: 0, protectTurns: 2 })],
    });
    const messages = conversation();
    const stored = messages[1]!.parts[1]!;
    const result = await request(hooks, messages);
    const sent = result.messages[1]!.parts[1] as { id: string; callID: string; state: { output: string; input: unknown } };
    expect(sent).not.toBe(stored);
    expect(sent.id).toBe(stored.id);
    expect(sent.callID).toBe('call_1');
    expect(sent.state.output).toBe('[Old tool result content cleared]');
    expect(sent.state.input).toEqual({ filePath: '/project/call_1.ts' });
    expect((stored as { state: { output: string } }).state.output).toHaveLength(20_000);
    // The newer output is not old enough.
    expect((result.messages[3]!.parts[1] as { state: { output: string } }).state.output).toHaveLength(20_000);
    expect((await eventLog.readAll()).some((record) => record.type === 'prune:applied')).toBe(true);
  });

  it("llm:before context goes into that request's system prompt only; a title request (no messages.transform) gets none", async () => {
    const { hooks } = hooksFor({ plugins: [contextPlugin('llm:before', 'INTENT SUMMARY')] });
    const result = await request(hooks, conversation());
    expect(result.system).toEqual(['You are opencode.', 'INTENT SUMMARY']);
    const title = { system: ['You are a title generator.'] };
    await hooks['experimental.chat.system.transform']!({ sessionID: 'ses_1', model: {} } as never, title);
    expect(title.system).toEqual(['You are a title generator.']);
  });

  it('compaction: compact:before context goes into the compaction prompt; compact:after context into every request after it', async () => {
    const { hooks } = hooksFor({
      plugins: [contextPlugin('compact:before', 'PRESERVED BLOCK'), contextPlugin('compact:after', 'HANDED BACK')],
    });
    const compacting = { context: [] as string[] };
    await hooks['experimental.session.compacting']!({ sessionID: 'ses_1' }, compacting);
    expect(compacting.context).toEqual(['PRESERVED BLOCK']);
    // The compaction request itself: its prompt already carries the block.
    expect((await request(hooks, conversation())).system).toEqual(['You are opencode.']);
    await hooks['experimental.compaction.autocontinue']!({ sessionID: 'ses_1' } as never, { enabled: true });
    await hooks.event!({ event: { type: 'session.compacted', properties: { sessionID: 'ses_1' } } });
    expect((await request(hooks, conversation())).system).toEqual(['You are opencode.', 'HANDED BACK']);
    expect((await request(hooks, conversation())).system).toEqual(['You are opencode.', 'HANDED BACK']);
  });

  it('tool:after may replace the output; a notice becomes a toast', async () => {
    const replace = definePlugin({
      meta: { name: 'shorten', version: '1.0.0' },
      on: { 'tool:after': () => ({ value: 'short', notice: 'shortened an output' }) as never },
    })();
    const { hooks, toasts } = hooksFor({ plugins: [replace] });
    const output = { title: 't', output: 'a long output', metadata: {} };
    await hooks['tool.execute.after']!({ tool: 'bash', sessionID: 'ses_1', callID: 'c1', args: {} }, output);
    expect(output.output).toBe('short');
    expect(toasts).toEqual(['shortened an output']);
  });

  it('fails open: a throwing hook, a broken config and an engine that cannot start never reach OpenCode', async () => {
    const throwing = definePlugin({
      meta: { name: 'throws', version: '1.0.0' },
      on: {
        'llm:before': () => {
          throw new Error('boom');
        },
        'tool:after': () => {
          throw new Error('boom');
        },
      },
    })();
    for (const setup of [hooksFor({ plugins: [throwing] }), hooksFor(undefined, { loadError: new Error('bad config') })]) {
      const messages = conversation();
      const result = await request(setup.hooks, messages);
      expect(result.messages).toBe(messages);
      const output = { title: 't', output: 'unchanged', metadata: {} };
      await setup.hooks['tool.execute.after']!({ tool: 'bash', sessionID: 'ses_1', callID: 'c1', args: {} }, output);
      expect(output.output).toBe('unchanged');
    }
    const broken = hooksFor(undefined, { loadError: new Error('bad config') });
    await request(broken.hooks, conversation());
    expect(broken.logs.some((line) => line.level === 'error' && line.message.includes('bad config'))).toBe(true);
    expect(broken.toasts.some((text) => text.includes('bad config'))).toBe(true);
  });

  it('a deliberate tool:before block stops the tool with the reason', async () => {
    const guard = definePlugin({
      meta: { name: 'guard', version: '1.0.0' },
      on: { 'tool:before': () => ({ block: { reason: 'no .env reads' } }) },
    })();
    const { hooks } = hooksFor({ plugins: [guard] });
    await expect(
      hooks['tool.execute.before']!({ tool: 'read', sessionID: 'ses_1', callID: 'c1' }, { args: { filePath: '.env' } }),
    ).rejects.toThrow('hookwise: no .env reads');
  });

  it('prompt:submit carries the command that command.execute.before announced, and the context measured by OpenCode', async () => {
    const seen: unknown[] = [];
    const recorder = definePlugin({
      meta: { name: 'recorder', version: '1.0.0' },
      on: { 'prompt:submit': (payload) => void seen.push(payload) },
    })();
    const { hooks } = hooksFor({ plugins: [recorder] });
    await hooks.event!({
      event: {
        type: 'message.updated',
        properties: {
          info: info('assistant', 'a0', { tokens: { input: 1_000, output: 5, reasoning: 0, cache: { read: 200, write: 30 } } }),
        },
      },
    });
    await hooks['command.execute.before']!({ command: 'review', sessionID: 'ses_1', arguments: 'src/app.ts' }, { parts: [] });
    await hooks['chat.message']!(
      { sessionID: 'ses_1', model: { providerID: 'p', modelID: 'm' } },
      {
        message: info('user', 'u9') as never,
        parts: [{ id: 'p', sessionID: 'ses_1', messageID: 'u9', type: 'text', text: 'Review src/app.ts carefully.' }],
      },
    );
    expect(seen).toEqual([
      expect.objectContaining({
        sessionId: 'ses_1',
        prompt: 'Review src/app.ts carefully.',
        command: { name: 'review', args: 'src/app.ts' },
        contextTokens: 1_230,
        model: 'm',
        host: 'opencode',
      }),
    ]);
  });

  it("the task tool's result is a phase ending: phase:end may replace it with a hand-off", async () => {
    const seen: unknown[] = [];
    const handoff = definePlugin({
      meta: { name: 'handoff', version: '1.0.0' },
      on: { 'phase:end': (payload) => (seen.push(payload), { value: '- decision: PROCEED' }) },
    })();
    const { hooks } = hooksFor({ plugins: [handoff] });
    const output = { title: 'explore', output: 'Let me look… a long sub-agent report', metadata: { sessionId: 'ses_child' } };
    await hooks['tool.execute.after']!(
      {
        tool: 'task',
        sessionID: 'ses_1',
        callID: 'c7',
        args: { description: 'explore auth', prompt: 'Find the auth bug', subagent_type: 'general' },
      },
      output,
    );
    expect(output.output).toBe('- decision: PROCEED');
    expect(seen).toEqual([
      expect.objectContaining({
        output: 'Let me look… a long sub-agent report',
        taskId: 'ses_child',
        phase: 'explore auth',
        agentType: 'general',
        request: 'Find the auth bug',
      }),
    ]);
    // Other tools are no phase.
    const bash = { title: 'b', output: 'plain', metadata: {} };
    await hooks['tool.execute.after']!({ tool: 'bash', sessionID: 'ses_1', callID: 'c8', args: {} }, bash);
    expect(bash.output).toBe('plain');
  });

  it('session events: created → session:start, idle → agent:stop, deleted → session:end; a failed tool part counts as tool:after', async () => {
    const seen: string[] = [];
    const record = (point: string) => (payload: { sessionId: string; ok?: boolean }) =>
      void seen.push(`${point}:${payload.sessionId}${payload.ok === false ? ':failed' : ''}`);
    const recorder = definePlugin({
      meta: { name: 'recorder', version: '1.0.0' },
      on: {
        'session:start': record('session:start'),
        'agent:stop': record('agent:stop'),
        'session:end': record('session:end'),
        'tool:after': record('tool:after'),
      },
    })();
    const { hooks } = hooksFor({ plugins: [recorder] });
    await hooks.event!({ event: { type: 'session.created', properties: { info: { id: 'ses_2' } } } as never });
    const failed = {
      id: 'p1',
      sessionID: 'ses_2',
      messageID: 'm1',
      type: 'tool',
      callID: 'c1',
      tool: 'read',
      state: { status: 'error', input: {}, error: 'File not found', time: { start: 1, end: 2 } },
    };
    await hooks.event!({ event: { type: 'message.part.updated', properties: { part: failed } } as never });
    await hooks.event!({ event: { type: 'message.part.updated', properties: { part: failed } } as never });
    await hooks.event!({ event: { type: 'session.idle', properties: { sessionID: 'ses_2' } } });
    await hooks.event!({ event: { type: 'session.deleted', properties: { info: { id: 'ses_2' } } } as never });
    expect(seen).toEqual(['session:start:ses_2', 'tool:after:ses_2:failed', 'agent:stop:ses_2', 'session:end:ses_2']);
  });
});
