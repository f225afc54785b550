import { describe, expect, it } from 'vitest';
import type { HookwiseConfig } from '../config.js';
import { createEngine } from '../engine.js';
import type { Message } from '../messages/message-model.js';
import { createLevelLogger } from '../logger.js';
import { createMemoryEventLog } from '../state/event-log.js';
import { createMemoryStateStore } from '../state/file-state-store.js';
import { createHost } from './create-host.js';
import { createPartConversion, emitLlmBefore, type PartConversionSpec } from './part-conversion.js';

/** A host whose messages are a role and tool results: `{ id, text }`. */
interface HostMessage {
  role: 'user' | 'tool';
  results: Array<{ id: string; text: string }>;
}
type HostResult = HostMessage['results'][number];

let conversions = 0;
const spec: PartConversionSpec<HostMessage, HostResult> = {
  convert: (message, index, origins) => {
    conversions++;
    const parts = message.results.map((result, part) => {
      const converted = { type: 'tool-result' as const, toolCallId: result.id, output: result.text };
      origins.set(converted, { message: index, part });
      return converted;
    });
    return { role: message.role, parts };
  },
  same: (a, b) => a.role === b.role && JSON.stringify(a.results) === JSON.stringify(b.results),
  parts: (message) => message.results,
  withParts: (message, results) => ({ ...message, results }),
  output: (part, text) => ({ ...part, text }),
  input: (part) => part,
};

const conversation = (count: number): HostMessage[] =>
  Array.from({ length: count }, (_, index) => ({ role: 'tool', results: [{ id: `c${index}`, text: `output ${index}` }] }));

/** Replaces every tool output, the same message object for the same original (as hook-prune does). */
function pruner() {
  const done = new Map<Message, Message>();
  return (messages: Message[]) =>
    messages.map((message) => {
      if (!done.has(message))
        done.set(message, { ...message, parts: message.parts.map((part) => ({ ...part, output: '[pruned]' }) as typeof part) });
      return done.get(message)!;
    });
}

describe('createPartConversion', () => {
  it('converts only what is new, and applies the same edits as the message applied last call', () => {
    const conversion = createPartConversion(spec);
    const prune = pruner();
    conversions = 0;
    const first = conversion.convert(conversation(3));
    const applied = conversion.apply(conversation(3), first, prune(first.messages));
    const second = conversion.convert(conversation(4));
    expect(conversions).toBe(4);
    expect(second.messages.slice(0, 3)).toEqual(first.messages);
    const again = conversion.apply(conversation(4), second, prune(second.messages));
    expect(again.messages[0]).toBe(applied.messages[0]);
    expect(again.messages.map((message) => message.results[0]!.text)).toEqual(['[pruned]', '[pruned]', '[pruned]', '[pruned]']);
    expect(again.outputsReplaced).toBe(4);
    expect(conversion.apply(conversation(4), second, second.messages, { toolResults: false }).outputsReplaced).toBe(0);
  });
});

describe('emitLlmBefore', () => {
  function sessionWith(config: HookwiseConfig) {
    const lines: string[] = [];
    const logger = createLevelLogger(
      (entry) => void lines.push(`${entry.level}: ${entry.text}`),
      () => 'warn',
    );
    const host = createHost({
      host: 'test-host',
      projectDir: '/project',
      ephemeral: true,
      logger,
      loadConfig: async () => ({ config, file: '/project/hookwise.config.json' }),
      createEngine: (options) => createEngine({ ...options, stateStore: createMemoryStateStore(), eventLog: createMemoryEventLog() }),
    });
    return { session: host.session('s1'), logger, lines };
  }

  it("gives the very messages when no hook listens, and the hooks' edits and context when one does", async () => {
    const messages = conversation(2);
    const quiet = sessionWith({});
    conversions = 0;
    const untouched = await emitLlmBefore(quiet.session, createPartConversion(spec), { systemPrompt: '', messages }, quiet);
    expect(untouched).toEqual({ messages, context: undefined });
    expect(untouched.messages).toBe(messages);
    expect(conversions).toBe(0);
    const prune = pruner();
    const seen: string[] = [];
    const { session, logger, lines } = sessionWith({
      on: {
        'llm:before': (payload) => {
          seen.push(payload.systemPrompt);
          return { value: [...prune(payload.messages), { role: 'user', parts: [] }], context: 'pruned' };
        },
      },
    });
    const edited = await emitLlmBefore(session, createPartConversion(spec), { systemPrompt: 'rules', messages }, { logger });
    expect(seen).toEqual(['rules']);
    expect(edited.context).toBe('pruned');
    expect(edited.messages.map((message) => message.results[0]!.text)).toEqual(['[pruned]', '[pruned]']);
    expect(messages[0]!.results[0]!.text).toBe('output 0');
    expect(lines).toEqual([expect.stringMatching(/^warn: llm:before asked for 1 edit\(s\) the host's messages cannot take/)]);
  });
});
