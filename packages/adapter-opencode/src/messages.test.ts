import { readFileSync } from 'node:fs';
import { validateToolPairing, type Message, type ToolResultPart } from '@hookwise/core/messages';
import { pruneToolOutputs } from '@hookwise/hook-prune';
import { describe, expect, it } from 'vitest';
import {
  applyToOpenCodeMessages,
  contextTokensOf,
  createOpenCodeConversion,
  fromOpenCodeMessages,
  OPENCODE_COMPACTION_PROMPT,
  type OpenCodeMessage,
} from './messages.js';

// A real `opencode export` of an OpenCode 1.18.33 session (provenance in __fixtures__/README.md).
const exported = JSON.parse(readFileSync(new URL('./__fixtures__/opencode-1.18.33-session.json', import.meta.url), 'utf8')) as {
  messages: OpenCodeMessage[];
};
const session = () => structuredClone(exported.messages);

const results = (messages: Message[]) =>
  messages.flatMap((message) => message.parts).filter((part): part is ToolResultPart => part.type === 'tool-result');

describe('fromOpenCodeMessages (a real session export)', () => {
  const messages = fromOpenCodeMessages(session());

  it('gives the messages in the order the model sees them, each step a call message and a results message', () => {
    expect(
      messages.map(
        (message) => `${message.role}${message.compactSummary ? '(summary)' : ''}:${message.parts.map((part) => part.type).join('+')}`,
      ),
    ).toEqual([
      'user:text',
      'assistant:tool-call+tool-call',
      'tool:tool-result+tool-result',
      'assistant:tool-call',
      'tool:tool-result',
      'assistant:text',
      'user:text',
      'assistant:text',
      'user:text',
      'assistant(summary):text',
      'user:text',
      'assistant:text',
    ]);
    expect(validateToolPairing(messages)).toEqual({ ok: true, problems: [] });
  });

  it('keeps tool names, call ids, inputs and outputs; an error result is marked', () => {
    const [notes, missing, hello] = results(messages);
    expect(notes).toMatchObject({ toolName: 'read', toolCallId: 'call_2_0' });
    expect(notes!.isError).toBeUndefined();
    expect(notes!.output).toContain('1: first note');
    expect(missing).toMatchObject({ toolName: 'read', toolCallId: 'call_2_1', isError: true });
    expect(missing!.output).toMatch(/not found/i);
    expect(hello).toMatchObject({ toolName: 'bash', output: 'hello\n' });
    const call = messages[1]!.parts[0]!;
    expect(call).toMatchObject({
      type: 'tool-call',
      toolCallId: 'call_2_0',
      toolName: 'read',
      input: { filePath: '/tmp/oc-explore/fx/notes.txt' },
    });
  });

  it('renders a compaction part as OpenCode sends it, and marks the summary so nothing before it is pruned', () => {
    expect(messages[8]!.parts[0]).toMatchObject({ type: 'text', text: OPENCODE_COMPACTION_PROMPT });
    expect(messages[9]!.compactSummary).toBe(true);
    expect(messages[10]!.parts[0]).toMatchObject({ type: 'text', text: expect.stringContaining('Continue if you have next steps') });
  });

  it('shows an output OpenCode itself compacted as its placeholder', () => {
    const original = session();
    const part = original[1]!.parts[1] as { state: { time: { compacted?: number } } };
    part.state.time.compacted = 1;
    expect(results(fromOpenCodeMessages(original))[0]!.output).toBe('[Old tool result content cleared]');
  });
});

describe('applyToOpenCodeMessages', () => {
  it('unchanged messages come back as the very same objects', () => {
    const original = session();
    const applied = applyToOpenCodeMessages(original, fromOpenCodeMessages(original));
    expect(applied.messages).toHaveLength(original.length);
    applied.messages.forEach((message, index) => expect(message).toBe(original[index]));
    expect(applied).toMatchObject({ outputsReplaced: 0, textsReplaced: 0, messagesDropped: 0, partsIgnored: 0 });
  });

  it('a pruned result changes only state.output of a copy of its part: id, call id, input, metadata stay, and the original is untouched', () => {
    // The session before its compaction (hook-prune never touches what a summary replaced).
    const original = session().slice(0, 6);
    const before = structuredClone(original);
    const converted = fromOpenCodeMessages(original);
    // Thresholds small enough for this session's short outputs.
    const pruned = pruneToolOutputs(converted, { protectTurns: 1, keepRecent: 0, supersede: false, protectTokens: 0, minimumTokens: 0 });
    expect(pruned.prunedCount).toBeGreaterThan(0);
    const applied = applyToOpenCodeMessages(original, pruned.messages, converted);
    expect(applied.outputsReplaced).toBe(pruned.prunedCount);
    expect(original).toEqual(before);

    const sentPart = applied.messages[1]!.parts[1] as Record<string, any>;
    const storedPart = original[1]!.parts[1] as Record<string, any>;
    expect(sentPart).not.toBe(storedPart);
    expect(sentPart.state.output).toBe('[Old tool result content cleared]');
    const { output: _sent, ...sentRest } = sentPart.state;
    const { output: _stored, ...storedRest } = storedPart.state;
    expect(sentRest).toEqual(storedRest);
    expect({ ...sentPart, state: undefined }).toEqual({ ...storedPart, state: undefined });
    // Converting what is sent gives the pruned view, with every call still paired.
    const resent = fromOpenCodeMessages(applied.messages);
    expect(validateToolPairing(resent).ok).toBe(true);
    expect(results(resent).map((part) => part.output)).toEqual(results(pruned.messages).map((part) => part.output));
  });

  it('applies a changed text and leaves out a message a hook removed; parts a hook added have no OpenCode part and are reported', () => {
    const original = session();
    const converted = fromOpenCodeMessages(original);
    const edited = converted
      .filter((message) => message.id !== original[5]!.info.id)
      .map((message, index) =>
        index === 0
          ? { ...message, parts: [{ ...message.parts[0]!, text: 'read the notes, please' } as Message['parts'][number]] }
          : message,
      );
    edited.push({ role: 'user', parts: [{ type: 'text', text: 'added by a hook' }] });
    const applied = applyToOpenCodeMessages(original, edited, converted);
    expect(applied).toMatchObject({ textsReplaced: 1, messagesDropped: 1, partsIgnored: 1 });
    expect(applied.messages).toHaveLength(original.length - 1);
    expect((applied.messages[0]!.parts[0] as { text: string }).text).toBe('read the notes, please');
    expect((original[0]!.parts[0] as { text: string }).text).toBe('read the notes');
  });
});

describe('contextTokensOf', () => {
  it("counts input and cache tokens of a finished assistant message, not a summary's", () => {
    const original = session();
    expect(contextTokensOf(original[1]!.info)).toBeGreaterThan(0);
    expect(contextTokensOf(original[7]!.info)).toBeUndefined();
    expect(contextTokensOf(original[0]!.info)).toBeUndefined();
  });
});

describe('createOpenCodeConversion (one session, request after request)', () => {
  it('equals fromOpenCodeMessages on every request and keeps the core messages of the messages a request repeats', () => {
    const convert = createOpenCodeConversion();
    const all = session();
    const first = convert(all.slice(0, -2));
    expect(first).toEqual(fromOpenCodeMessages(all.slice(0, -2)));
    // The next request reads the same messages afresh (new objects) and adds two.
    const second = convert(session());
    expect(second).toEqual(fromOpenCodeMessages(session()));
    first.forEach((message, index) => expect(second[index]).toBe(message));
    // A message that changed is converted again.
    const changed = session();
    const tool = changed.flatMap((message) => message.parts).find((part) => part.type === 'tool' && part.state.status === 'completed');
    if (tool?.type === 'tool' && tool.state.status === 'completed') tool.state.output = 'changed';
    const third = convert(changed);
    expect(third).toEqual(fromOpenCodeMessages(changed));
    expect(third.some((message, index) => message !== second[index])).toBe(true);
    // So is one whose tool part was compacted by OpenCode's own prune, or whose text changed.
    const compacted = structuredClone(changed);
    const part = compacted.flatMap((message) => message.parts).find((entry) => entry.type === 'tool' && entry.state.status === 'completed');
    if (part?.type === 'tool' && part.state.status === 'completed') part.state.time = { ...part.state.time, compacted: 1 };
    const text = compacted.flatMap((message) => message.parts).find((entry) => entry.type === 'text');
    if (text?.type === 'text') text.text = 'new text';
    expect(convert(compacted)).toEqual(fromOpenCodeMessages(compacted));
  });
});
