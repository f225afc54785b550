import type { Message } from '@hookwise/core/messages';
import { describe, expect, it } from 'vitest';
import { applyToPrompt, fromPrompt, lastUserText, withSystemText, type PromptMessage } from './prompt.js';

const prompt: PromptMessage[] = [
  { role: 'system', content: 'You are a coding agent.' },
  { role: 'user', content: [{ type: 'text', text: 'Fix the bug.' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading.' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.ts' } },
      { type: 'tool-call', toolCallId: 's1', toolName: 'web_search', input: {}, providerExecuted: true },
      { type: 'tool-result', toolCallId: 's1', toolName: 'web_search', output: { type: 'json', value: [] } } as never,
    ],
  },
  { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'json', value: { lines: 3 } } }] },
];

describe('fromPrompt', () => {
  it('gives core messages with the system text apart and the provider-executed tools left out', () => {
    const converted = fromPrompt(prompt);
    expect(converted.systemPrompt).toBe('You are a coding agent.');
    expect(converted.messages).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Fix the bug.' }] },
      { role: 'assistant', parts: [{ type: 'text', text: 'Reading.' }, { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.ts' } }] },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: '{"lines":3}' }] },
    ]);
  });

  it('reads every kind of tool output', () => {
    const outputs = [
      { type: 'text', value: 'plain' },
      { type: 'error-text', value: 'boom' },
      { type: 'error-json', value: { code: 1 } },
      { type: 'execution-denied', reason: 'not allowed' },
      { type: 'content', value: [{ type: 'text', text: 'seen' }, { type: 'media', data: 'AAAA', mediaType: 'image/png' }] },
    ];
    const converted = fromPrompt([{ role: 'tool', content: outputs.map((output, index) => ({ type: 'tool-result', toolCallId: `c${index}`, toolName: 't', output })) }]);
    expect(converted.messages[0]!.parts.map((part) => (part.type === 'tool-result' ? [part.output, part.isError ?? false] : undefined))).toEqual([
      ['plain', false],
      ['boom', true],
      ['{"code":1}', true],
      ['not allowed', true],
      [[{ type: 'text', text: 'seen' }, { type: 'image', mediaType: 'image/png' }], false],
    ]);
  });
});

describe('applyToPrompt', () => {
  it('replaces only what changed, as a text output, and keeps every other message the same object', () => {
    const converted = fromPrompt(prompt);
    const transformed: Message[] = converted.messages.map((message) =>
      message.role === 'tool' ? { ...message, parts: message.parts.map((part) => (part.type === 'tool-result' ? { ...part, output: '[pruned]' } : part)) } : message,
    );
    const applied = applyToPrompt(prompt, converted, transformed);
    expect(applied.outputsReplaced).toBe(1);
    expect(applied.prompt[3]).toEqual({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: '[pruned]' } }] });
    expect(applied.prompt.slice(0, 3).every((message, index) => message === prompt[index])).toBe(true);
    expect(prompt[3]!.content).toEqual([{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'json', value: { lines: 3 } } }]);
  });

  it('never sends an empty tool result', () => {
    const converted = fromPrompt(prompt);
    const transformed = converted.messages.map((message) => ({ ...message, parts: message.parts.map((part) => (part.type === 'tool-result' ? { ...part, output: '' } : part)) }));
    const applied = applyToPrompt(prompt, converted, transformed);
    expect((applied.prompt[3]!.content[0] as { output: unknown }).output).toEqual({ type: 'text', value: ' ' });
  });

  it('gives back the very prompt when nothing changed, and counts edits it has no place for', () => {
    const converted = fromPrompt(prompt);
    expect(applyToPrompt(prompt, converted, converted.messages).prompt).toBe(prompt);
    const dropped = applyToPrompt(prompt, converted, converted.messages.slice(1));
    expect(dropped.editsIgnored).toBe(1);
    expect(dropped.prompt).toBe(prompt);
  });
});

describe('system text and turns', () => {
  it('puts hookwise\'s text right after the app\'s system messages', () => {
    expect(withSystemText(prompt, 'rules').slice(0, 3).map((message) => message.role)).toEqual(['system', 'system', 'user']);
    expect(withSystemText(prompt.slice(1), 'rules')[0]).toEqual({ role: 'system', content: 'rules' });
  });

  it('reads a new turn only from a prompt that ends with the user', () => {
    expect(lastUserText(prompt.slice(0, 2))).toBe('Fix the bug.');
    expect(lastUserText(prompt)).toBeUndefined();
  });
});
