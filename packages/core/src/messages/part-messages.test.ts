import { describe, expect, it } from 'vitest';
import { fromTypedPartMessages, typedPartConversion, type TypedPartMessage } from './part-messages.js';

const messages: TypedPartMessage[] = [
  {
    id: 'u',
    role: 'user',
    content: [
      { type: 'text', text: 'go' },
      { type: 'file', mediaType: 'text/plain' },
    ],
  },
  {
    id: 'a',
    role: 'assistant',
    content: [
      { type: 'reasoning', text: 'thinking' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.ts' } },
    ],
  },
  {
    id: 't',
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: [{ result: 'alpha' }], isError: true }],
  },
  { id: 's', role: 'system', content: [{ type: 'text', text: 'left out' }] },
];

describe('messages of typed parts (the AI SDK shape) and core messages', () => {
  it('converts every part a model sees; a non-string output is its JSON text; other roles are left out', () => {
    const { messages: converted } = fromTypedPartMessages(messages, (message) => message.id === 'u');
    expect(converted).toEqual([
      {
        role: 'user',
        id: 'u',
        compactSummary: true,
        parts: [
          { type: 'text', text: 'go' },
          { type: 'image', mediaType: 'text/plain' },
        ],
      },
      {
        role: 'assistant',
        id: 'a',
        parts: [
          { type: 'reasoning', text: 'thinking' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'read', input: { path: 'a.ts' } },
        ],
      },
      {
        role: 'tool',
        id: 't',
        parts: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'read', output: '[{"result":"alpha"}]', isError: true }],
      },
    ]);
  });

  it('writes an edited output back onto a copy of its part as text; the rest stay the same objects', () => {
    const converted = fromTypedPartMessages(messages);
    const edited = converted.messages.map((message) =>
      message.role === 'tool' ? { ...message, parts: [{ ...message.parts[0]!, output: '[cleared]' } as never] } : message,
    );
    const applied = typedPartConversion().apply(messages, converted, edited);
    expect(applied.outputsReplaced).toBe(1);
    expect(applied.messages[2]!.content[0]).toEqual({ ...messages[2]!.content[0], output: '[cleared]' });
    expect(applied.messages[0]).toBe(messages[0]);
    expect(messages[2]!.content[0]!.output).toEqual([{ result: 'alpha' }]);
  });

  it('the reusing conversion gives what the plain one gives, and the same core messages for a repeated prefix', () => {
    const { convert } = typedPartConversion();
    const first = convert(JSON.parse(JSON.stringify(messages)));
    const next = [...messages, { id: 'u2', role: 'user', content: [{ type: 'text', text: 'more' }] }];
    const second = convert(JSON.parse(JSON.stringify(next)));
    expect(second.messages).toEqual(fromTypedPartMessages(next).messages);
    expect(second.messages[1]).toBe(first.messages[1]);
    expect(convert([{ ...messages[0]!, content: [{ type: 'text', text: 'changed' }] }, ...messages.slice(1)]).messages[1]).not.toBe(
      first.messages[1],
    );
  });
});
