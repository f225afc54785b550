import { describe, expect, it } from 'vitest';
import type { HookwiseConfig } from '../config.js';
import { createEngine } from '../engine.js';
import type { HookMap } from '../hooks.js';
import { createMemoryEventLog } from '../state/event-log.js';
import { createMemoryStateStore } from '../state/file-state-store.js';
import { createHost, type HostErrorReport, type HostNotice } from './create-host.js';

/** A host over an in-memory engine built from `config` (a shared state store stands for the disk). */
function hostFor(
  config: HookwiseConfig | undefined,
  options: { stateStore?: ReturnType<typeof createMemoryStateStore>; loadError?: Error; hookTimeoutMs?: number } = {},
) {
  const eventLog = createMemoryEventLog();
  const stateStore = options.stateStore ?? createMemoryStateStore();
  const notices: HostNotice[] = [];
  const errors: HostErrorReport[] = [];
  const lines: string[] = [];
  const host = createHost<{ turns: number }>({
    host: 'test-host',
    projectDir: '/project',
    log: (entry) => void lines.push(`${entry.level}: ${entry.text}`),
    notify: (notice) => void notices.push(notice),
    onError: (report) => void errors.push(report),
    ...(options.hookTimeoutMs ? { hookTimeoutMs: options.hookTimeoutMs } : {}),
    loadConfig: async () => {
      if (options.loadError) throw options.loadError;
      return config ? { config, file: '/project/hookwise.config.json' } : { config: {}, file: undefined };
    },
    createEngine: (engineOptions) => createEngine({ ...engineOptions, stateStore, eventLog }),
    session: () => ({ turns: 0 }),
  });
  return { host, eventLog, stateStore, notices, errors, lines };
}

const hooks = (on: HookMap): HookwiseConfig => ({ on });

describe('createHost', () => {
  it('without a config, hookwise is off: emits give undefined and nothing is reported', async () => {
    const { host, errors, lines } = hostFor(undefined);
    expect(await host.session('s1').emit('tool:after', () => ({ toolName: 'Read', input: {}, output: 'x', ok: true }))).toBeUndefined();
    expect(errors).toEqual([]);
    expect(lines).toEqual([]); // "no config" is an info line; the level is warn until a config says otherwise
  });

  it("loads the config once and gives payloads the session's common fields", async () => {
    const seen: unknown[] = [];
    const { host } = hostFor(hooks({ 'tool:after': (payload) => void seen.push(payload) }));
    const session = host.session('s1');
    session.fields.model = 'm';
    session.usage = () => ({ contextTokens: 1_200 });
    await session.emit('tool:after', () => ({ toolName: 'Read', input: {}, output: 'x', ok: true }));
    await session.emit('tool:after', () => ({ toolName: 'Read', input: {}, output: 'y', ok: true }));
    expect(await host.engine()).toBe(await host.engine());
    expect(seen[0]).toMatchObject({ sessionId: 's1', cwd: '/project', model: 'm', contextTokens: 1_200, toolName: 'Read' });
  });

  it('gives every session the fields the host was told', async () => {
    const seen: unknown[] = [];
    const host = createHost({
      host: 'test-host',
      projectDir: '/project',
      fields: { contextWindow: 50_000 },
      loadConfig: async () => ({
        config: hooks({ 'agent:stop': (payload) => void seen.push(payload.contextWindow) }),
        file: '/project/hookwise.config.json',
      }),
      createEngine: (engineOptions) =>
        createEngine({ ...engineOptions, stateStore: createMemoryStateStore(), eventLog: createMemoryEventLog() }),
    });
    await host.session('s1').emit('agent:stop');
    await host.session('s2').emit('agent:stop');
    expect(seen).toEqual([50_000, 50_000]);
  });

  it('starts a session once, whatever the source of later calls', async () => {
    const { host } = hostFor(hooks({ 'session:start': (payload) => ({ context: `started ${payload.source}` }) }));
    expect(await host.session('s1').start('resume')).toBe('started resume');
    expect(await host.session('s1').start('startup')).toBeUndefined();
    expect(host.session('s1').data).toEqual({ turns: 0 });
  });

  it('fails open: a failing point is logged, recorded as hook:error and reported; the host gets undefined', async () => {
    const { host, eventLog, errors, lines } = hostFor(hooks({ 'tool:after': () => undefined }));
    const outcome = await host.session('s1').emit('tool:after', () => {
      throw new Error('payload bug');
    });
    expect(outcome).toBeUndefined();
    expect(lines).toEqual([expect.stringMatching(/^error: tool:after failed: payload bug/)]);
    expect(errors).toEqual([
      expect.objectContaining({ kind: 'error', message: 'tool:after failed: payload bug', sessionId: 's1', point: 'tool:after' }),
    ]);
    expect((await eventLog.readAll()).filter((record) => record.type === 'hook:error')).toEqual([
      expect.objectContaining({ host: 'test-host', sessionId: 's1', point: 'tool:after', pluginName: 'hookwise' }),
    ]);
  });

  it("names a failing point with the adapter's label, when it gives one", async () => {
    const { host, errors, lines } = hostFor(hooks({ 'tool:after': () => undefined }));
    const payload = () => {
      throw new Error('payload bug');
    };
    await host.session('s1').emit('tool:after', payload, { label: '[Task#7]', details: { taskId: '7' } });
    expect(lines).toEqual([
      expect.stringMatching(/^error: \[Task#7\] tool:after failed: payload bug \{"taskId":"7","stack":"Error: payload bug/),
    ]);
    expect(errors).toEqual([expect.objectContaining({ message: '[Task#7] tool:after failed: payload bug', point: 'tool:after' })]);
  });

  it('reports a config that does not load as kind config, once', async () => {
    const { host, errors } = hostFor(undefined, { loadError: new Error('bad JSON') });
    await host.session('s1').emit('agent:stop');
    await host.session('s1').emit('agent:stop');
    expect(errors.map((error) => [error.kind, error.message])).toEqual([['config', expect.stringContaining('bad JSON')]]);
  });

  it('bounds a point by one deadline and gives what finished; the late hook is reported', async () => {
    const config: HookwiseConfig = {
      on: {
        'tool:after': [() => ({ context: 'quick' }), { handler: () => new Promise(() => undefined), name: 'stuck' }],
      },
    };
    const { host, errors } = hostFor(config, { hookTimeoutMs: 30 });
    const outcome = await host.session('s1').emit('tool:after', () => ({ toolName: 'Read', input: {}, output: 'x', ok: true }));
    expect(outcome?.context).toBe('quick');
    expect(errors).toEqual([expect.objectContaining({ kind: 'timeout', hookName: 'stuck', point: 'tool:after' })]);
  });

  it('hands notices to notify and the event log', async () => {
    const { host, notices, eventLog } = hostFor(hooks({ 'agent:stop': () => ({ notice: 'consider compacting' }) }));
    await host.session('s1').emit('agent:stop');
    expect(notices).toEqual([
      expect.objectContaining({ text: 'consider compacting', hostText: 'consider compacting', sessionId: 's1', point: 'agent:stop' }),
    ]);
    expect((await eventLog.readAll()).filter((record) => record.type === 'notice')).toEqual([
      expect.objectContaining({ sessionId: 's1', text: 'consider compacting' }),
    ]);
  });

  it('keeps what a compaction handed back for a later process of the same session', async () => {
    const stateStore = createMemoryStateStore();
    const first = hostFor(hooks({}), { stateStore }).host;
    await first.session('s1').keep({ afterCompaction: 'the rules', summaryAddition: 'kept' });
    const later = hostFor(hooks({}), { stateStore }).host;
    expect(await later.session('s1').restore()).toEqual({ afterCompaction: 'the rules', summaryAddition: 'kept' });
    await later.session('s1').keep({ summaryAddition: undefined });
    expect(await hostFor(hooks({}), { stateStore }).host.session('s1').restore()).toEqual({ afterCompaction: 'the rules' });
  });

  it('warns once, in one place, when the post-compaction context cannot be kept', async () => {
    const stateStore = createMemoryStateStore();
    stateStore.update = () => Promise.reject(new Error('disk full'));
    const { host, lines } = hostFor(hooks({}), { stateStore });
    await host.session('s1').keep({ afterCompaction: 'the rules' });
    expect(await host.session('s1').restore()).toEqual({ afterCompaction: 'the rules' });
    expect(lines).toEqual(['warn: could not keep the post-compaction context for later processes: disk full']);
  });

  it("keeps a compaction's context for every later request, in place of the last one, and sets the context size", async () => {
    const contexts = ['the rules', undefined];
    const { host } = hostFor(hooks({ 'compact:after': () => ({ context: contexts.shift() }) }));
    const session = host.session('s1');
    session.fields.contextTokens = 90_000;
    await session.compacted({ trigger: 'auto', contextTokens: 12_000 });
    expect(session.fields.contextTokens).toBe(12_000);
    session.addContext('from a tool');
    session.addContext('  ');
    expect(await session.requestTexts('this request', '')).toEqual(['the rules', 'from a tool', 'this request']);
    expect(await session.requestTexts()).toEqual(['the rules']);
    await session.compacted({ trigger: 'manual' });
    expect(session.fields.contextTokens).toBeUndefined();
    expect(await session.requestTexts()).toEqual([]);
  });

  it('reports a compaction seen after the fact once per key, in this process and a later one', async () => {
    const stateStore = createMemoryStateStore();
    const phases: string[] = [];
    const config = hooks({
      'compact:before': (payload) => {
        phases.push(`before ${payload.trigger} ${payload.contextTokens}`);
        return { block: { reason: 'too late' } };
      },
      'compact:after': (payload) => {
        phases.push(`after ${payload.compactionId} ${payload.tokensAfter}`);
        return { context: 'the rules' };
      },
    });
    const { host, lines } = hostFor(config, { stateStore });
    await host.session('s1').compactedEarlier('k1', () => ({ trigger: 'auto', tokensBefore: 900, tokensAfter: 300 }));
    await host.session('s1').compactedEarlier('k1', () => ({ trigger: 'auto', tokensBefore: 900, tokensAfter: 300 }));
    await hostFor(config, { stateStore })
      .host.session('s1')
      .compactedEarlier('k1', () => ({ trigger: 'auto' }));
    expect(phases).toEqual(['before auto 900', 'after k1 300']);
    expect(lines).toEqual(['warn: a hook asked to stop a compaction already made: too late']);
    expect(await host.session('s1').requestTexts()).toEqual(['the rules']);
    await host.session('s1').compactedEarlier('k2', () => ({ trigger: 'manual' }));
    expect(phases.slice(2)).toEqual(['before manual undefined', 'after k2 undefined']);
  });

  it('logs a block the host cannot honour, at the level asked', async () => {
    const { host, lines } = hostFor(hooks({ 'agent:stop': () => ({ block: { reason: 'not done' } }) }));
    const outcome = await host.session('s1').emitUnblockable('agent:stop', () => ({}), 'the agent to go on, which this host cannot do');
    expect(outcome?.block?.reason).toBe('not done');
    expect(lines).toEqual(['warn: a hook asked the agent to go on, which this host cannot do: not done']);
  });
});
