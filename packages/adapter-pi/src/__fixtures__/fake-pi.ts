import type { HookwiseConfig } from '@hookwise/core';
import { createEngine, createMemoryEventLog, createMemoryStateStore } from '@hookwise/core/host';
import { registerHookwise } from '../binding.js';
import type { PiContext, PiExtensionApi, PiHandler, PiMessage } from '../pi-types.js';

type PiCustomMessage = Parameters<NonNullable<PiExtensionApi['sendMessage']>>[0];

/**
 * A fake pi for unit tests: records handlers by event, a context with a session id and a usage
 * figure, and what hookwise showed or sent. What reaches a user is judged by the end-to-end
 * suite against the real pi; these pin the rules.
 */
export function fakePi(config: HookwiseConfig | undefined, options: { loadError?: Error; usage?: { tokens: number | null; contextWindow: number }; hasUI?: boolean } = {}) {
  const handlers = new Map<string, PiHandler[]>();
  const notified: string[] = [];
  const lines: string[] = [];
  const sent: Array<{ message: PiCustomMessage; deliverAs?: string }> = [];
  const eventLog = createMemoryEventLog();
  const usage: { tokens: number | null; contextWindow: number } = { tokens: options.usage?.tokens ?? 1_000, contextWindow: options.usage?.contextWindow ?? 200_000 };
  const context: PiContext = {
    cwd: '/project',
    hasUI: options.hasUI ?? true,
    ui: { notify: (message) => void notified.push(message) },
    sessionManager: { getSessionId: () => 'ses-1', getSessionFile: () => '/agent/sessions/ses-1.jsonl', buildSessionProjection: () => ({ messages: [{ role: 'user', content: 'hello' }] }) },
    model: { id: 'm' },
    getContextUsage: () => ({ ...usage, percent: usage.tokens === null ? null : (usage.tokens / usage.contextWindow) * 100 }),
    getSystemPrompt: () => 'You are pi.',
  };
  registerHookwise(
    { on: (event, handler) => void handlers.set(event, [...(handlers.get(event) ?? []), handler]), sendMessage: (message, sendOptions) => void sent.push({ message, ...(sendOptions?.deliverAs ? { deliverAs: sendOptions.deliverAs } : {}) }) },
    {},
    {
      loadConfig: async () => {
        if (options.loadError) throw options.loadError;
        return config ? { config, file: '/project/hookwise.config.json' } : { config: {}, file: undefined };
      },
      createEngine: (engineOptions) => createEngine({ ...engineOptions, stateStore: createMemoryStateStore(), eventLog }),
      writeLine: (line) => void lines.push(line),
    },
  );
  /** Fires an event the way pi does: every handler in order, the result of the last one that gave one. */
  const fire = async (event: string, payload: unknown): Promise<any> => {
    let result: unknown;
    for (const handler of handlers.get(event) ?? []) result = (await handler(payload, context)) ?? result;
    return result;
  };
  return { fire, handlers, notified, lines, sent, eventLog, usage, context };
}

export const user = (text: string): PiMessage => ({ role: 'user', content: text, timestamp: 1 });
export const toolCall = (id: string, path: string): PiMessage => ({ role: 'assistant', content: [{ type: 'toolCall', id, name: 'read', arguments: { path } }], stopReason: 'toolUse', usage: { input: 1 } });
export const toolResult = (id: string, text: string): PiMessage => ({ role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text }], isError: false, timestamp: 1 });
