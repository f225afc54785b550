import { describe, expect, it } from 'vitest';
import type { HookwiseConfig } from '../config.js';
import { createEngine } from '../engine.js';
import type { Message } from '../messages/message-model.js';
import { estimateMessageTokens } from '../messages/estimate.js';
import { createMemoryEventLog } from '../state/event-log.js';
import { createMemoryStateStore } from '../state/file-state-store.js';
import type { LogEntry } from '../logger.js';
import { definePlugin } from '../plugin.js';
import { createHost, type HostNotice } from './create-host.js';

/** A host over an in-memory engine built from `config` (none: hookwise is off). */
const hostFor = (config: HookwiseConfig | undefined) =>
  createHost({
    host: 'test-host',
    projectDir: '/project',
    log: () => undefined,
    loadConfig: async () => (config ? { config, file: '/project/hookwise.config.json' } : { config: {}, file: undefined }),
    createEngine: (options) => createEngine({ ...options, stateStore: createMemoryStateStore(), eventLog: createMemoryEventLog() }),
  });

describe("the host kit's session helpers", () => {
  it('ends a session: session:end with its reason, then the host forgets it', async () => {
    const reasons: unknown[] = [];
    const host = hostFor({ on: { 'session:end': (payload) => void reasons.push(payload.reason) } });
    const session = host.session('s1');
    await session.end('deleted');
    expect(reasons).toEqual(['deleted']);
    expect(host.findSession('s1')).toBeUndefined();
    expect(host.session('s1')).not.toBe(session);
  });

  it("keeps beforeRequest's context for the next requestTexts only, after the waiting contexts", async () => {
    const contexts = ['intent A', undefined, 'intent B', 'intent C'];
    const host = hostFor({ on: { 'llm:before': () => ({ context: contexts.shift() }) } });
    const session = host.session('s1');
    const fields = () => ({ systemPrompt: '', messages: [] });
    expect((await session.beforeRequest(fields))?.context).toBe('intent A');
    session.addContext('from a tool');
    expect(await session.requestTexts('extra')).toEqual(['from a tool', 'intent A', 'extra']);
    expect(await session.requestTexts()).toEqual([]);
    await session.beforeRequest(fields);
    expect(await session.requestTexts()).toEqual([]);
    // A request whose system step never came: the next request's context replaces its own.
    await session.beforeRequest(fields);
    await session.beforeRequest(fields);
    expect(await session.requestTexts()).toEqual(['intent C']);
  });

  it('hands the pending slash command to one prompt, and the compact:before trigger to compact:after unless it names one', async () => {
    const seen: unknown[] = [];
    const host = hostFor({ on: { 'compact:after': (payload) => void seen.push(payload.trigger) } });
    const session = host.session('s1');
    session.pendingCommand = { name: 'review', args: 'a.ts' };
    expect(session.takeCommand()).toEqual({ name: 'review', args: 'a.ts' });
    expect(session.takeCommand()).toBeUndefined();
    session.compactTrigger = 'manual';
    await session.compacted({});
    expect(session.compactTrigger).toBeUndefined();
    // Another session: the engine takes a second compact:after of one session this soon for the same compaction.
    const other = host.session('s2');
    other.compactTrigger = 'manual';
    await other.compacted({ trigger: 'auto' });
    expect(seen).toEqual(['manual', 'auto']);
  });

  it("counts core messages with the engine's token counter, and gives undefined when hookwise is off", async () => {
    const messages: Message[] = [
      { role: 'user', parts: [{ type: 'text', text: 'read the file please' }] },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c1', output: 'x'.repeat(4_000) }] },
    ];
    const host = hostFor({});
    const counter = (await host.engine())!.services.tokenCounter;
    const expected = messages.reduce((total, message) => total + estimateMessageTokens(message, (text) => counter.count(text)), 0);
    expect(expected).toBeGreaterThan(1_000);
    expect(await host.countTokens(messages)).toBe(expected);
    expect(await hostFor(undefined).countTokens(messages)).toBeUndefined();
  });

  it('keeps the command the latest notice offered, counts tool calls, and runs the command with its answer logged', async () => {
    const suggest = definePlugin({
      meta: { name: 'suggest', version: '1.0.0' },
      on: {
        'tool:after': (payload) =>
          payload.toolName === 'Read'
            ? {
                notice: {
                  text: 'compact?',
                  actions: [
                    { label: 'Compact now', hostAction: 'compact' },
                    { label: 'Dismiss', command: 'suggest dismiss', args: ['--for', 'now'] },
                  ],
                },
              }
            : { notice: { text: 'plain' } },
      },
      commands: [
        { name: 'suggest dismiss', description: 'dismiss', run: (args, context) => `dismissed ${context.sessionId} ${args.join(' ')}` },
        {
          name: 'suggest broken',
          description: 'fails',
          run: () => {
            throw new Error('no state');
          },
        },
      ],
    });
    const lines: LogEntry[] = [];
    const seen: Array<[HostNotice, unknown]> = [];
    const host = createHost({
      host: 'test-host',
      projectDir: '/project',
      logLevel: 'info',
      log: (entry) => void lines.push(entry),
      notify: (notice, session) => void seen.push([notice, session.offeredCommand]),
      loadConfig: async () => ({ config: { plugins: [suggest()] }, file: '/project/hookwise.config.json' }),
      createEngine: (options) => createEngine({ ...options, stateStore: createMemoryStateStore(), eventLog: createMemoryEventLog() }),
    });
    const session = host.session('s1');
    const toolAfter = (toolName: string) => () => ({ toolName, input: {}, output: 'x', ok: true });
    await session.emit('tool:after', toolAfter('Read'));
    const offered = { label: 'Dismiss', command: 'suggest dismiss', args: ['--for', 'now'] };
    expect(seen[0]![1]).toEqual(offered); // known to notify already
    await session.emit('tool:after', toolAfter('Bash')); // a notice offering nothing keeps the earlier offer
    await session.emit('tool:before', () => ({ toolName: 'Bash', input: {} }));
    expect(session.offeredCommand).toEqual(offered);
    expect(session.toolCalls).toBe(2);
    expect(host.session('s2').toolCalls).toBe(0);
    expect(host.findSession('s1')).toBe(session);
    expect(host.findSession('nobody')).toBeUndefined();

    expect(await session.runCommand(session.offeredCommand!)).toEqual({ text: 'dismissed s1 --for now' });
    const failure = '[suggest › suggest broken] command "suggest broken" failed: no state';
    expect(await session.runCommand({ command: 'suggest broken' })).toEqual({ error: failure });
    expect(lines.map((entry) => `${entry.level}: ${entry.text}`).slice(-2)).toEqual([
      'info: suggest dismiss (session s1): dismissed s1 --for now',
      `warn: suggest broken (session s1) failed: ${failure}`,
    ]);
    // Hookwise off: nothing runs, nothing is counted, and the host is told why.
    const off = hostFor(undefined).session('s1');
    await off.emit('tool:after', toolAfter('Read'));
    expect(off.toolCalls).toBe(0);
    expect(await off.runCommand({ command: 'suggest dismiss' })).toEqual({ error: 'hookwise is off here: suggest dismiss did not run' });
  });

  it("gives the session's context usage as a percent of the window, or tokens alone, from usage() over fields", () => {
    const session = hostFor(undefined).session('s1');
    expect(session.contextUsage()).toBeUndefined();
    session.fields.contextTokens = 48_000;
    expect(session.contextUsage()).toEqual({ tokens: 48_000, short: '48,000 tok', long: '48,000 tokens' });
    session.fields.contextWindow = 200_000;
    expect(session.contextUsage()).toEqual({
      tokens: 48_000,
      window: 200_000,
      percent: 24,
      short: '24%',
      long: '48,000 of 200,000 tokens (24%)',
    });
    session.usage = () => ({ contextTokens: 150_000 });
    expect(session.contextUsage()?.short).toBe('75%');
    session.fields.contextWindow = 0; // a window of 0 is no window
    expect(session.contextUsage()?.short).toBe('150,000 tok');
  });
});
