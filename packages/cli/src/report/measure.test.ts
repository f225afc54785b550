import type { TokenCounter } from '@hookwise/core';
import { createCharsTokenCounter } from '@hookwise/core/host';
import type { Message, MessagePart } from '@hookwise/core/messages';
import { describe, expect, it } from 'vitest';
import { LiveHistory, measureTransform, TransformMeter } from './measure.js';

const text = (value: string): MessagePart => ({ type: 'text', text: value });
const result = (id: string, output: string): MessagePart => ({ type: 'tool-result', toolCallId: id, toolName: 'Read', output });
const message = (role: Message['role'], ...parts: MessagePart[]): Message => ({ role, parts });
/** What a pruner writes: a copy of the message with one part replaced (copy on write). */
const withPart = (original: Message, index: number, part: MessagePart): Message => ({
  ...original,
  parts: original.parts.map((each, at) => (at === index ? part : each)),
});
const placeholder = (part: MessagePart): MessagePart => ({
  ...(part as Extract<MessagePart, { type: 'tool-result' }>),
  output: '[cleared]',
});

describe('measureTransform', () => {
  const chars = createCharsTokenCounter(4);
  const history: Message[] = [
    message('user', text('go')),
    message('user', result('a', 'x'.repeat(4_000)), text('note')),
    message('assistant', text('abcdefgh')),
  ];

  it('counts replaced parts as before minus after, a message with parts added or dropped by its totals, a shorter history by its totals', () => {
    expect(measureTransform(history, history, chars)).toStrictEqual({ tokens: 0, parts: 0 });
    expect(measureTransform(history, [...history], chars)).toStrictEqual({ tokens: 0, parts: 0 });
    // The 4,000-character output (1,000 tokens) replaced by '[cleared]' (3).
    const pruned = withPart(history[1]!, 0, placeholder(history[1]!.parts[0]!));
    expect(measureTransform(history, [history[0]!, pruned, history[2]!], chars)).toStrictEqual({ tokens: 1_000 - 3, parts: 1 });
    // The output dropped from its message: 1,001 tokens before, 1 after.
    const dropped: Message = { ...history[1]!, parts: [history[1]!.parts[1]!] };
    expect(measureTransform(history, [history[0]!, dropped, history[2]!], chars)).toStrictEqual({ tokens: 1_000, parts: 1 });
    // The last message dropped: the totals differ by its 2 tokens, and its one part is gone.
    expect(measureTransform(history, [history[0]!, history[1]!], chars)).toStrictEqual({ tokens: 2, parts: 1 });
  });
});

describe('TransformMeter', () => {
  const chars = createCharsTokenCounter(4);

  it('gives measureTransform’s figures request after request: the same pairs again, a new copy, a grown history, the same text twice', () => {
    const meter = new TransformMeter(chars);
    const big = 'x'.repeat(4_000);
    const history: Message[] = [
      message('user', text('go')),
      message('assistant', text('reading')),
      message('user', result('a', big)),
      message('user', result('b', big), text('note')),
    ];
    const check = (original: Message[], transformed: Message[]) =>
      expect(meter.measure(original, transformed)).toStrictEqual(measureTransform(original, transformed, chars));

    // First request: the two results (the same text, different parts) are replaced.
    const prunedA = withPart(history[2]!, 0, placeholder(history[2]!.parts[0]!));
    const prunedB = withPart(history[3]!, 0, placeholder(history[3]!.parts[0]!));
    const first = [history[0]!, history[1]!, prunedA, prunedB];
    check(history, first);
    expect(meter.measure(history, first)).toStrictEqual({ tokens: 2 * (1_000 - 3), parts: 2 });
    // The same copies on the next request, and the history grew: the kept pairs count again.
    const grown = [...history, message('assistant', text('done'))];
    check(grown, [...first, grown[4]!]);
    // A new copy at one position (the transformer rewrote it): measured anew, not taken from before.
    const rewritten = withPart(history[3]!, 1, text('n'));
    check(grown, [history[0]!, history[1]!, prunedA, rewritten, grown[4]!]);
    expect(meter.measure(grown, [history[0]!, history[1]!, prunedA, rewritten, grown[4]!])).toStrictEqual({ tokens: 1_000 - 3, parts: 2 });
    // A grown message at a position (a response read further): a new original, measured anew.
    const longer = message('user', result('b', big), text('note'), text('more'));
    const grownAgain = [history[0]!, history[1]!, history[2]!, longer];
    check(grownAgain, [history[0]!, history[1]!, prunedA, withPart(longer, 0, placeholder(longer.parts[0]!))]);
    // Nothing changed, and a transformer that drops messages (totals compared).
    check(grownAgain, grownAgain);
    check(grownAgain, [history[0]!, history[3]!]);
  });

  it('adds figures that are not whole numbers part by part, in measureTransform’s order (the same floating-point sums)', () => {
    const fractional: TokenCounter = { name: 'thirds', count: (value) => value.length / 3 };
    const meter = new TransformMeter(fractional);
    // Results of 3n characters and a 9-character placeholder: whole figures; a rewritten text: a third.
    const original = Array.from({ length: 8 }, (_, index) =>
      message('user', result(`r${index}`, 'y'.repeat(12 + 3 * index)), text('z'.repeat(7 + index))),
    );
    const transformed = original.map((each, index) => {
      if (index % 2 === 1) return each;
      const pruned = withPart(each, 0, placeholder(each.parts[0]!));
      return index % 4 === 0 ? withPart(pruned, 1, text('w')) : pruned;
    });
    for (let round = 0; round < 3; round++)
      expect(meter.measure(original, transformed)).toStrictEqual(measureTransform(original, transformed, fractional));
  });
});

describe('LiveHistory', () => {
  it('converts each message once, anew when a later line adds to it, and never writes into a line’s content', () => {
    const history = new LiveHistory();
    const firstLine = [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/a' } }];
    history.addUser('read a and b', {});
    history.addAssistant(firstLine, 'm1');
    history.addResults([{ type: 'tool_result', tool_use_id: 't1', content: 'A' }]);
    const before = [...history.messages()];
    expect(before.map((each) => each.parts.length)).toStrictEqual([1, 1, 1]);
    expect(before[2]!.parts[0]).toMatchObject({ type: 'tool-result', toolName: 'Read' });

    // The same response streams a second call and its result (Claude Code writes a line per block).
    history.addAssistant([{ type: 'tool_use', id: 't2', name: 'Grep', input: { pattern: 'b' } }], 'm1');
    history.addResults([{ type: 'tool_result', tool_use_id: 't2', content: 'B' }]);
    const after = history.messages();
    expect(firstLine).toHaveLength(1);
    expect(after[0]).toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
    expect(after.map((each) => each.parts.length)).toStrictEqual([1, 2, 2]);
    expect(after[2]!.parts[1]).toMatchObject({ type: 'tool-result', toolCallId: 't2', toolName: 'Grep' });
    // Asked again with nothing new: the very same messages.
    expect([...history.messages()]).toStrictEqual([...after]);
    expect(history.messages()[1]).toBe(after[1]);

    history.clear();
    expect(history.messages()).toStrictEqual([]);
    expect(history.length).toBe(0);
  });
});
