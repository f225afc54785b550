import { describe, expect, it } from 'vitest';
import type { HookwiseConfig } from '../config.js';
import { createEngine } from '../engine.js';
import type { Message } from '../messages/message-model.js';
import { estimateMessageTokens } from '../messages/estimate.js';
import { createMemoryEventLog } from '../state/event-log.js';
import { createMemoryStateStore } from '../state/file-state-store.js';
import { createHost } from './create-host.js';

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
});
