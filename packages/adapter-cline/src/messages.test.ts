import { describe, expect, it } from 'vitest';
import { readCall, readResult, user } from './__fixtures__/fake-cline.js';
import type { ClineMessage } from './index.js';
import { clineConversion, fromClineMessages, withHookwiseText } from './messages.js';

describe("Cline's messages and core's", () => {
  const messages: ClineMessage[] = [
    user('go'),
    { id: 'r', role: 'assistant', content: [{ type: 'reasoning', text: 'thinking' }, ...readCall('c1', 'a.ts').content], createdAt: 0 },
    readResult('c1', 'a.ts', 'alpha'),
  ];

  it("converts every part a model sees; read_files' array output is the JSON text Cline sends", () => {
    const { messages: converted } = fromClineMessages(messages);
    expect(converted.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
    expect(converted[1]!.parts).toEqual([
      { type: 'reasoning', text: 'thinking' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'read_files', input: { files: [{ path: 'a.ts' }] } },
    ]);
    expect(converted[2]!.parts[0]).toMatchObject({ output: '[{"query":"a.ts","result":"alpha","success":true}]' });
  });

  it("marks Cline's compaction summary (agentic and basic), so nothing before it is pruned", () => {
    const agentic = { ...user('Context summary:\n\nEarlier.'), metadata: { kind: 'compaction_summary', tokensBefore: 27_806 } };
    const basic = { ...user('Context summary:\n\nEarlier.'), metadata: { kind: 'compaction', reason: 'auto_compaction' } };
    const converted = fromClineMessages([agentic, basic, user('go on')]).messages;
    expect(converted.map((message) => message.compactSummary === true)).toEqual([true, true, false]);
  });

  it('writes an edited output back onto a copy of its part; the rest are the same objects', () => {
    const converted = fromClineMessages(messages);
    const edited = converted.messages.map((message, index) =>
      index === 2 ? { ...message, parts: [{ ...message.parts[0]!, output: '[cleared]' } as never] } : message,
    );
    const applied = clineConversion().apply(messages, converted, edited);
    expect(applied.outputsReplaced).toBe(1);
    expect(applied.messages[2]!.content[0]).toEqual({ ...messages[2]!.content[0], output: '[cleared]' });
    expect(applied.messages[0]).toBe(messages[0]);
    expect((messages[2]!.content[0] as { output: unknown }).output).toEqual([{ query: 'a.ts', result: 'alpha', success: true }]);
  });

  it('the reusing conversion gives what the plain one gives, and the same core messages for a repeated prefix', () => {
    const { convert } = clineConversion();
    const first = convert(JSON.parse(JSON.stringify(messages)));
    const next = [...messages, readCall('c2', 'b.ts'), readResult('c2', 'b.ts', 'bravo')];
    const second = convert(JSON.parse(JSON.stringify(next)));
    expect(second.messages).toEqual(fromClineMessages(next).messages);
    expect(second.messages[2]).toBe(first.messages[2]);
  });

  it("adds hookwise's texts to the first user message only", () => {
    expect(withHookwiseText(messages, [])).toBe(messages);
    const added = withHookwiseText(messages, ['A', 'B']);
    expect(added[0]!.content.at(-1)).toEqual({ type: 'text', text: '<hookwise>\nA\n\nB\n</hookwise>' });
    expect(added[1]).toBe(messages[1]);
  });
});
