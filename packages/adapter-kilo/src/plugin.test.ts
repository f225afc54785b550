import { definePlugin, type HookwiseConfig } from '@hookwise/core';
import { createEngine, createMemoryEventLog, createMemoryStateStore } from '@hookwise/core/host';
import type { Hooks } from '@kilocode/plugin';
import { describe, expect, it } from 'vitest';
import { createKiloHooks } from './plugin.js';

/**
 * Kilo does not fail open: a hook that throws ends the turn before any model request. So every
 * hook of the Kilo plugin must settle, whatever hookwise's plugins do and whatever Kilo passes.
 * A fake client and real engines (state in memory); the real Kilo judges in test/e2e.
 */
const fail = (point: string) => () => {
  throw new Error(`broken on purpose at ${point}`);
};
const broken = definePlugin({
  meta: { name: 'broken', version: '1.0.0' },
  on: {
    'session:start': fail('session:start'),
    'prompt:submit': fail('prompt:submit'),
    'llm:before': fail('llm:before'),
    'tool:before': fail('tool:before'),
    'compact:before': fail('compact:before'),
    'compact:after': fail('compact:after'),
    'agent:stop': fail('agent:stop'),
    // Never settles: the engine gives up at the config's deadline.
    'tool:after': () => new Promise(() => {}),
  },
});

function kiloHooks(config: HookwiseConfig) {
  const eventLog = createMemoryEventLog();
  const logs: string[] = [];
  const client = {
    tui: { showToast: async () => undefined },
    app: { log: async (options: { body: { message: string } }) => void logs.push(options.body.message) },
  };
  const hooks = createKiloHooks(
    { client: client as never, directory: '/project' },
    {},
    {
      loadConfig: async () => ({ config, file: '/project/hookwise.config.mjs' }),
      createEngine: (engineOptions) => createEngine({ ...engineOptions, stateStore: createMemoryStateStore(), eventLog }),
    },
  );
  return { hooks, eventLog, logs };
}

const user = {
  info: { id: 'u1', sessionID: 'ses_k', role: 'user', time: { created: 1 }, agent: 'code', model: { providerID: 'p', modelID: 'm' } },
  parts: [{ id: 'u1-t', sessionID: 'ses_k', messageID: 'u1', type: 'text', text: 'explore' }],
};

/** Each hook Kilo calls in a turn with a tool call and a compaction, in Kilo's order. */
async function turn(hooks: Hooks) {
  const messages = [structuredClone(user)];
  await hooks.event!({ event: { type: 'session.created', properties: { info: { id: 'ses_k' } } } as never });
  await hooks['chat.message']!({ sessionID: 'ses_k' } as never, { message: user.info, parts: user.parts } as never);
  await hooks['experimental.chat.messages.transform']!({} as never, { messages } as never);
  const system = { system: ['You are Kilo.'] };
  await hooks['experimental.chat.system.transform']!({ sessionID: 'ses_k', model: { id: 'm', providerID: 'p' } } as never, system);
  const args = { filePath: '/project/a.ts' };
  await hooks['tool.execute.before']!({ tool: 'read', sessionID: 'ses_k', callID: 'c1' }, { args });
  const output = { title: 'a.ts', output: 'file text', metadata: {} };
  await hooks['tool.execute.after']!({ tool: 'read', sessionID: 'ses_k', callID: 'c1', args }, output);
  const compacting = { context: [] as string[] };
  await hooks['experimental.session.compacting']!({ sessionID: 'ses_k' }, compacting);
  await hooks['experimental.compaction.autocontinue']!({ sessionID: 'ses_k' } as never, { enabled: true });
  await hooks.event!({ event: { type: 'session.idle', properties: { sessionID: 'ses_k' } } as never });
  return { messages, system: system.system, output, compacting };
}

describe('the Kilo plugin', () => {
  it('a plugin that throws at every point and one past its deadline leave every hook settled and the request as Kilo built it', async () => {
    const { hooks, eventLog } = kiloHooks({ hookTimeoutMs: 50, plugins: [broken()] });
    const result = await turn(hooks);
    expect(result.messages).toEqual([user]);
    expect(result.system).toEqual(['You are Kilo.']);
    expect(result.output.output).toBe('file text');
    expect(result.compacting.context).toEqual([]);
    const failures = (await eventLog.readAll()).filter((event) => event.type === 'hook:error');
    expect(failures.map((event) => `${event.point}:${event.kind}`)).toEqual(
      expect.arrayContaining([
        'prompt:submit:error',
        'llm:before:error',
        'tool:before:error',
        'tool:after:timeout',
        'compact:before:error',
        'compact:after:error',
        'agent:stop:error',
      ]),
    );
    expect(failures.every((event) => event.pluginName === 'broken')).toBe(true);
  });

  it('whatever Kilo passes, no hook rejects (Kilo would end the turn)', async () => {
    const { hooks, logs } = kiloHooks({ plugins: [broken()] });
    expect('dispose' in hooks).toBe(false);
    for (const [name, hook] of Object.entries(hooks)) {
      await expect((hook as (input: unknown, output: unknown) => Promise<void>)({}, {}), name).resolves.toBeUndefined();
      await expect((hook as (input: unknown, output: unknown) => Promise<void>)({ event: {} }, undefined), name).resolves.toBeUndefined();
    }
    expect(logs.some((line) => line.includes('failed'))).toBe(true);
  });
});
