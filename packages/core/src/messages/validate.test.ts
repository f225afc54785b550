import { describe, expect, it } from 'vitest';
import { estimateMessageTokens, IMAGE_TOKEN_ESTIMATE } from './estimate.js';
import type { Message } from './message-model.js';
import { validateToolPairing } from './validate.js';

const call = (toolCallId: string): Message => ({
  role: 'assistant',
  parts: [{ type: 'tool-call', toolCallId, toolName: 'Read', input: { path: 'a' } }],
});
const result = (toolCallId: string): Message => ({ role: 'user', parts: [{ type: 'tool-result', toolCallId, output: 'ok' }] });

describe('validateToolPairing', () => {
  it('accepts calls each answered once later', () => {
    expect(validateToolPairing([call('a'), result('a'), call('b'), result('b')])).toStrictEqual({ ok: true, problems: [] });
  });

  it('names every kind of problem', () => {
    const { ok, problems } = validateToolPairing([
      result('early'),
      call('early'),
      call('a'),
      result('a'),
      result('a'),
      call('a'),
      call('open'),
    ]);
    expect(ok).toBe(false);
    expect(problems).toStrictEqual([
      'message 0: tool result early has no earlier tool call',
      'message 4: tool call a has more than one result',
      'message 5: tool call id a is used more than once',
      'message 1: tool call early has no result',
      'message 6: tool call open has no result',
    ]);
  });

  it('does not accept a result in the same message as its call', () => {
    const same: Message = { role: 'assistant', parts: [...call('x').parts, ...result('x').parts] };
    expect(validateToolPairing([same]).ok).toBe(false);
  });
});

describe('estimateMessageTokens', () => {
  it('counts text, reasoning, tool input as JSON, tool output and images', () => {
    const characters = (text: string) => text.length;
    const message: Message = {
      role: 'user',
      parts: [
        { type: 'text', text: 'hello' },
        { type: 'reasoning', text: 'hmm' },
        { type: 'tool-call', toolCallId: 'a', toolName: 'Read', input: { p: 1 } },
        {
          type: 'tool-result',
          toolCallId: 'a',
          output: [
            { type: 'text', text: 'abc' },
            { type: 'image', data: 'AAAA' },
          ],
        },
        { type: 'tool-result', toolCallId: 'b', output: 'xy' },
        { type: 'image', url: 'https://example.invalid/a.png' },
      ],
    };
    expect(estimateMessageTokens(message, characters)).toBe(5 + 3 + '{"p":1}'.length + 3 + IMAGE_TOKEN_ESTIMATE + 2 + IMAGE_TOKEN_ESTIMATE);
  });
});
