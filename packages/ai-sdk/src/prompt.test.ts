import type { Message } from '@hookwise/core/messages';
import { describe, expect, it } from 'vitest';
import { fromPrompt, lastUserText, promptConversion, withSystemText, type PromptMessage } from './prompt.js';

const applyToPrompt = (...args: Parameters<ReturnType<typeof promptConversion>['apply']>) => promptConversion().apply(...args);

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
      {
        role: 'assistant',
        parts: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.ts' } },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: '{"lines":3}' }] },
    ]);
  });

  it('reads every kind of tool output', () => {
    const outputs = [
      { type: 'text', value: 'plain' },
      { type: 'error-text', value: 'boom' },
      { type: 'error-json', value: { code: 1 } },
      { type: 'execution-denied', reason: 'not allowed' },
      {
        type: 'content',
        value: [
          { type: 'text', text: 'seen' },
          { type: 'media', data: 'AAAA', mediaType: 'image/png' },
        ],
      },
    ];
    const converted = fromPrompt([
      { role: 'tool', content: outputs.map((output, index) => ({ type: 'tool-result', toolCallId: `c${index}`, toolName: 't', output })) },
    ]);
    expect(
      converted.messages[0]!.parts.map((part) => (part.type === 'tool-result' ? [part.output, part.isError ?? false] : undefined)),
    ).toEqual([
      ['plain', false],
      ['boom', true],
      ['{"code":1}', true],
      ['not allowed', true],
      [
        [
          { type: 'text', text: 'seen' },
          { type: 'image', mediaType: 'image/png' },
        ],
        false,
      ],
    ]);
  });
});

describe('applying edits to the prompt', () => {
  it('replaces only what changed, as a text output, and keeps every other message the same object', () => {
    const converted = fromPrompt(prompt);
    const transformed: Message[] = converted.messages.map((message) =>
      message.role === 'tool'
        ? { ...message, parts: message.parts.map((part) => (part.type === 'tool-result' ? { ...part, output: '[pruned]' } : part)) }
        : message,
    );
    const applied = applyToPrompt(prompt, converted, transformed);
    expect(applied.outputsReplaced).toBe(1);
    expect(applied.messages[3]).toEqual({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: '[pruned]' } }],
    });
    expect(applied.messages.slice(0, 3).every((message, index) => message === prompt[index])).toBe(true);
    expect(prompt[3]!.content).toEqual([
      { type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'json', value: { lines: 3 } } },
    ]);
  });

  it('never sends an empty tool result', () => {
    const converted = fromPrompt(prompt);
    const transformed = converted.messages.map((message) => ({
      ...message,
      parts: message.parts.map((part) => (part.type === 'tool-result' ? { ...part, output: '' } : part)),
    }));
    const applied = applyToPrompt(prompt, converted, transformed);
    expect((applied.messages[3]!.content[0] as { output: unknown }).output).toEqual({ type: 'text', value: ' ' });
  });

  it('gives back the very prompt when nothing changed, and counts edits it has no place for', () => {
    const converted = fromPrompt(prompt);
    expect(applyToPrompt(prompt, converted, converted.messages).messages).toBe(prompt);
    const dropped = applyToPrompt(prompt, converted, converted.messages.slice(1));
    expect(dropped.editsIgnored).toBe(1);
    expect(dropped.messages).toBe(prompt);
  });
});

describe('system text and turns', () => {
  it("puts hookwise's text right after the app's system messages", () => {
    expect(
      withSystemText(prompt, 'rules')
        .slice(0, 3)
        .map((message) => message.role),
    ).toEqual(['system', 'system', 'user']);
    expect(withSystemText(prompt.slice(1), 'rules')[0]).toEqual({ role: 'system', content: 'rules' });
  });

  it('reads a new turn only from a prompt that ends with the user', () => {
    expect(lastUserText(prompt.slice(0, 2))).toBe('Fix the bug.');
    expect(lastUserText(prompt)).toBeUndefined();
  });
});

describe('promptConversion', () => {
  const grow = (prompt: PromptMessage[], id: string): PromptMessage[] => [
    ...prompt.map((message) =>
      message.role === 'system' ? { ...message } : { ...message, content: message.content.map((part) => ({ ...part })) },
    ),
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read', input: { path: `${id}.ts` } }] },
    {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: id, toolName: 'read', output: { type: 'text', value: `contents of ${id}` } }],
    },
  ];

  it('gives what fromPrompt gives, call after call, on fresh copies of a growing prompt', () => {
    const conversion = promptConversion();
    let current = prompt;
    for (const id of ['c2', 'c3', 'c4']) {
      current = grow(current, id);
      const converted = conversion.convert(current);
      expect(converted.messages).toEqual(fromPrompt(current).messages);
      for (const message of converted.messages)
        for (const part of message.parts) if (part.type === 'tool-result') expect(converted.origins.get(part)).toBeDefined();
    }
  });

  it('keeps the core messages of the part that did not change, and converts a changed one anew', () => {
    const conversion = promptConversion();
    const convert = (messages: PromptMessage[]) => conversion.convert(messages);
    const first = convert(prompt);
    const second = convert(grow(prompt, 'c2'));
    expect(second.messages.slice(0, first.messages.length).every((message, index) => message === first.messages[index])).toBe(true);
    const edited = grow(prompt, 'c2');
    edited[3] = {
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: { type: 'text', value: 'changed' } }],
    };
    const third = convert(edited);
    expect(third.messages[2]).not.toBe(second.messages[2]);
    expect(third.messages).toEqual(fromPrompt(edited).messages);
  });
});

describe("applying edits with the conversation's memo", () => {
  it('gives the message applied last call when the hook changed it the same way, and the same prompt as without', () => {
    const conversion = promptConversion();
    const pruneAll = (messages: Message[], kept: Map<Message, Message>) =>
      messages.map((message) => {
        if (message.role !== 'tool') return message;
        let done = kept.get(message);
        if (!done)
          kept.set(
            message,
            (done = {
              ...message,
              parts: message.parts.map((part) => (part.type === 'tool-result' ? { ...part, output: '[pruned]' } : part)),
            }),
          );
        return done;
      });
    const kept = new Map<Message, Message>();
    const first = conversion.convert(prompt);
    const applied = conversion.apply(prompt, first, pruneAll(first.messages, kept));
    const copy = prompt.map((message) =>
      message.role === 'system' ? { ...message } : { ...message, content: message.content.map((part) => ({ ...part })) },
    );
    const second = conversion.convert(copy);
    const again = conversion.apply(copy, second, pruneAll(second.messages, kept));
    expect(again.messages[3]).toBe(applied.messages[3]);
    expect(again.outputsReplaced).toBe(1);
    expect(again.messages).toEqual(applyToPrompt(copy, fromPrompt(copy), pruneAll(fromPrompt(copy).messages, new Map())).messages);
  });
});
