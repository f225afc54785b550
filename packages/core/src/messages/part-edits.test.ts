import { describe, expect, it } from 'vitest';
import type { Message, MessagePart } from './message-model.js';
import {
  applyPartEdits,
  createReusingConverter,
  describeEdits,
  sameJson,
  toolResultText,
  type PartOrigin,
  type PartWriter,
} from './part-edits.js';

/** A host whose messages are lists of parts, with a tool call and its result. */
type HostPart = { kind: 'call' | 'result' | 'text'; id?: string; value: unknown };
type HostMessage = HostPart[];
const writer: PartWriter<HostMessage, HostPart> = {
  parts: (message) => message,
  withParts: (_message, parts) => parts,
  output: (part, text) => ({ ...part, value: text }),
  input: (part, input) => ({ ...part, value: input }),
};

function convert(host: readonly HostMessage[]) {
  const origins = new Map<MessagePart, PartOrigin>();
  const messages: Message[] = host.map((message, index) => ({
    role: message[0]?.kind === 'result' ? 'tool' : 'assistant',
    parts: message.map((part, partIndex) => {
      const core: MessagePart =
        part.kind === 'call'
          ? { type: 'tool-call', toolCallId: part.id!, toolName: 'read', input: part.value }
          : part.kind === 'result'
            ? { type: 'tool-result', toolCallId: part.id!, toolName: 'read', output: String(part.value) }
            : { type: 'text', text: String(part.value) };
      if (part.kind !== 'text') origins.set(core, { message: index, part: partIndex });
      return core;
    }),
  }));
  return { messages, origins };
}

const host: HostMessage[] = [
  [
    { kind: 'text', value: 'reading' },
    { kind: 'call', id: 'c1', value: { path: 'a.ts' } },
  ],
  [{ kind: 'result', id: 'c1', value: 'contents' }],
];
const prune = (messages: Message[]): Message[] =>
  messages.map((message) =>
    message.role === 'tool'
      ? { ...message, parts: message.parts.map((part) => (part.type === 'tool-result' ? { ...part, output: '[pruned]' } : part)) }
      : message,
  );

describe('applying a hook edits onto host messages by part origin', () => {
  it('replaces a changed output on a copy and keeps every untouched message the same object', () => {
    const converted = convert(host);
    const applied = applyPartEdits(host, converted, prune(converted.messages), writer);
    expect(applied).toMatchObject({ outputsReplaced: 1, inputsReplaced: 0, editsIgnored: 0, outputsLeft: 0 });
    expect(applied.messages[1]).toEqual([{ kind: 'result', id: 'c1', value: '[pruned]' }]);
    expect(applied.messages[0]).toBe(host[0]);
    expect(host[1]![0]!.value).toBe('contents');
  });

  it('replaces an input, leaves outputs to the provider when told, and counts what has no place', () => {
    const converted = convert(host);
    const digested = converted.messages.map((message) => ({
      ...message,
      parts: message.parts.map((part) => (part.type === 'tool-call' ? { ...part, input: { digest: 1 } } : part)),
    }));
    expect(applyPartEdits(host, converted, digested, writer).messages[0]![1]).toEqual({ kind: 'call', id: 'c1', value: { digest: 1 } });
    expect(applyPartEdits(host, converted, prune(converted.messages), writer, { toolResults: false })).toMatchObject({
      outputsLeft: 1,
      outputsReplaced: 0,
      messages: host,
    });
    const dropped = applyPartEdits(host, converted, converted.messages.slice(1), writer);
    expect(dropped.editsIgnored).toBe(1);
    expect(dropped.messages).toBe(host);
  });

  it('with a memo, gives back the message applied last call for the same edit', () => {
    const converted = convert(host);
    const memo = new WeakMap();
    const pruned = prune(converted.messages);
    const first = applyPartEdits(host, converted, pruned, writer, { memo });
    const again = applyPartEdits(host, converted, pruned, writer, { memo });
    expect(again.messages[1]).toBe(first.messages[1]);
    expect(again.outputsReplaced).toBe(1);
  });

  it('describes applied edits in one line', () => {
    expect(describeEdits({ outputsReplaced: 2, textsReplaced: 0, messagesDropped: 1 })).toBe(
      '2 tool output(s) replaced, 0 text(s) replaced, 1 message(s) left out',
    );
  });

  it('reads a tool output as text, images as a placeholder', () => {
    expect(
      toolResultText([
        { type: 'text', text: 'a' },
        { type: 'image', mediaType: 'image/png' },
      ]),
    ).toBe('a\n[image image/png]');
  });
});

describe('a converter that reuses core messages across requests', () => {
  const toCore = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });

  it('keeps the core message of a message equal to last time at its place, and equals converting anew', () => {
    const convertAll = createReusingConverter(
      (text: string) => toCore(text),
      (a, b) => a === b,
    );
    const first = convertAll(['a', 'b', 'c']);
    const second = convertAll(['a', 'x', 'c', 'd']);
    expect(second).toEqual(['a', 'x', 'c', 'd'].map(toCore));
    expect(second[0]).toBe(first[0]);
    expect(second[2]).toBe(first[2]);
    expect(second[1]).not.toBe(first[1]);
  });

  it('with `prefix`, reuses only what comes before the first change', () => {
    const convertAll = createReusingConverter(
      (text: string) => toCore(text),
      (a, b) => a === b,
      { prefix: true },
    );
    const first = convertAll(['a', 'b', 'c']);
    const second = convertAll(['a', 'x', 'c']);
    expect(second[0]).toBe(first[0]);
    expect(second[2]).not.toBe(first[2]);
    expect(second).toEqual(['a', 'x', 'c'].map(toCore));
  });

  it('flattens a host message that converts to several core messages, reusing them together', () => {
    const convertAll = createReusingConverter(
      (text: string) => (text.includes('+') ? text.split('+').map(toCore) : text === '' ? undefined : toCore(text)),
      (a, b) => a === b,
    );
    const first = convertAll(['a+b', '', 'c']);
    expect(first).toEqual(['a', 'b', 'c'].map(toCore));
    const second = convertAll(['a+b', 'd+e']);
    expect(second).toEqual(['a', 'b', 'd', 'e'].map(toCore));
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
  });

  it('compares plain JSON by content', () => {
    expect(sameJson({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] })).toBe(true);
    expect(sameJson({ a: [1] }, { a: [1, 2] })).toBe(false);
    expect(sameJson([1], { 0: 1 })).toBe(false);
    expect(sameJson({ a: undefined }, { b: undefined })).toBe(false);
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).toBe(false);
  });
});
