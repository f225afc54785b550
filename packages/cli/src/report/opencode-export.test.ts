import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isOpenCodeExport, openCodeEntries, usageOfTokens, type OpenCodeExport } from './opencode-export.js';
import type { ReplayEntry } from './replay-result.js';

const fixture = fileURLToPath(new URL('./__fixtures__/opencode/opencode-export.json', import.meta.url));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const raw: any = JSON.parse(readFileSync(fixture, 'utf8'));

type Block = { type: string; id?: string; tool_use_id?: string; name?: string; text?: string; content?: unknown; is_error?: boolean };
const blocksOf = (entry: ReplayEntry): Block[] => ('content' in entry && Array.isArray(entry.content) ? (entry.content as Block[]) : []);

/** A minimal export around the given messages. */
function exportOf(messages: unknown[]): OpenCodeExport {
  return { info: { id: 'ses_test' }, messages };
}

const tokens = (input: number, read: number, write: number) => ({ input, output: 5, reasoning: 0, cache: { read, write } });

describe('the recorded OpenCode export', () => {
  const session = openCodeEntries(raw);
  const entries = session.entries;

  it('is recognised by its shape and keeps its session id and model', () => {
    expect(isOpenCodeExport(raw)).toBe(true);
    expect(session.sessionId).toBe(raw.info.id);
    expect(session.model).toBe('m');
  });

  it('gives one usage per request, from the step tokens with cache read and write, the summary left out', () => {
    // Independently: every assistant message that is not a compaction's summary, its step-finish tokens.
    const expected = raw.messages.flatMap((message: any, index: number) =>
      message.info.role === 'assistant' && message.info.summary !== true
        ? message.parts
            .filter((part: any) => part.type === 'step-finish')
            .map((part: any) => ({
              line: index + 1,
              input: part.tokens.input,
              read: part.tokens.cache.read,
              write: part.tokens.cache.write,
            }))
        : [],
    );
    const usage = entries.filter((entry) => entry.type === 'usage');
    expect(expected.length).toBeGreaterThanOrEqual(8);
    expect(expected.some((figures: { read: number; write: number }) => figures.read > 0 && figures.write > 0)).toBe(true);
    expect(
      usage.map((entry) => ({
        line: entry.line,
        input: entry.inputTokens,
        read: entry.cacheReadInputTokens,
        write: entry.cacheCreationInputTokens,
      })),
    ).toEqual(expected);
    for (const entry of usage)
      expect(entry).toMatchObject({
        model: 'm',
        isSidechain: false,
        contextTokens: entry.inputTokens + entry.cacheReadInputTokens + entry.cacheCreationInputTokens,
      });
  });

  it('pairs every tool call with its result in the user message right after it', () => {
    const messages = entries.filter((entry) => entry.type === 'message');
    const calls = messages.flatMap((entry, index) =>
      blocksOf(entry)
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({ block, next: messages[index + 1] })),
    );
    expect(calls.length).toBe(6);
    for (const { block, next } of calls) {
      expect(next).toMatchObject({ role: 'user' });
      expect(blocksOf(next!).filter((result) => result.type === 'tool_result' && result.tool_use_id === block.id)).toHaveLength(1);
    }
    expect(calls.map(({ block }) => block.name)).toEqual(['read', 'read', 'glob', 'read', 'read', 'edit']);
  });

  it('gives a failed tool its error text as an error result', () => {
    const failed = entries
      .filter((entry) => entry.type === 'message')
      .flatMap(blocksOf)
      .filter((block) => block.type === 'tool_result' && block.is_error === true);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.content).toMatch(/^File not found: /);
  });

  it('turns the compaction into a boundary, then the history OpenCode sends after it: question, summary, kept tail', () => {
    const boundaryAt = entries.findIndex((entry) => entry.type === 'compact-boundary');
    const compactionLine = raw.messages.findIndex((message: any) => message.parts.some((part: any) => part.type === 'compaction')) + 1;
    expect(entries[boundaryAt]).toMatchObject({ type: 'compact-boundary', line: compactionLine, trigger: 'auto' });
    const history = entries.slice(boundaryAt + 1).filter((entry) => entry.type === 'history');
    expect(history[0]).toMatchObject({ role: 'user', compactSummary: true, content: [{ type: 'text', text: 'What did we do so far?' }] });
    expect(history[1]).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: expect.stringMatching(/^Summary:/) }] });
    // The tail: from tail_start_id up to the compaction, as it was.
    const part = raw.messages[compactionLine - 1].parts.find((candidate: any) => candidate.type === 'compaction');
    const tailStart = raw.messages.findIndex((message: any) => message.info.id === part.tail_start_id) + 1;
    expect(tailStart).toBeGreaterThan(0);
    const tailLines = history.slice(2).map((entry) => entry.line);
    expect(tailLines[0]).toBe(tailStart);
    expect(Math.max(...tailLines)).toBe(compactionLine - 1);
    // Then OpenCode's synthetic "Continue…" message: not a prompt the user typed.
    const after = entries.slice(boundaryAt + 1).find((entry) => entry.type === 'message');
    expect(after).toMatchObject({
      role: 'user',
      isMeta: true,
      content: [{ type: 'text', text: expect.stringMatching(/^Continue if you have next steps/) }],
    });
  });

  it('gives each entry the position of its message, prompts not meta', () => {
    const prompts = entries.filter(
      (entry) =>
        entry.type === 'message' &&
        entry.role === 'user' &&
        entry.isMeta !== true &&
        !blocksOf(entry).some((block) => block.type === 'tool_result'),
    );
    expect(prompts.map((entry) => blocksOf(entry)[0]!.text)).toEqual(['explore the files', 'fix charlie']);
    expect(prompts.map((entry) => entry.line)).toEqual(
      raw.messages.flatMap((message: any, index: number) =>
        message.parts.some((p: any) => p.type === 'text' && !p.synthetic) && message.info.role === 'user' ? [index + 1] : [],
      ),
    );
  });
});

describe('converting OpenCode messages', () => {
  it('splits a message of several steps into one request each, with its own usage', () => {
    const { entries } = openCodeEntries(
      exportOf([
        { info: { id: 'u1', role: 'user' }, parts: [{ type: 'text', text: 'go' }] },
        {
          info: { id: 'a1', role: 'assistant', modelID: 'claude-x', tokens: tokens(1, 200, 300) },
          parts: [
            { type: 'step-start' },
            { type: 'tool', tool: 'bash', callID: 'c1', state: { status: 'completed', input: { command: 'ls' }, output: 'a b', time: {} } },
            { type: 'step-finish', tokens: tokens(1, 100, 50) },
            { type: 'step-start' },
            { type: 'text', text: 'done' },
            { type: 'step-finish', tokens: tokens(1, 151, 60) },
          ],
        },
      ]),
    );
    expect(entries.filter((entry) => entry.type === 'usage').map((entry) => [entry.messageId, entry.contextTokens])).toEqual([
      ['a1', 151],
      ['a1#1', 212],
    ]);
    expect(
      entries
        .filter((entry) => entry.type === 'message')
        .map((entry) => [
          entry.role,
          blocksOf(entry)
            .map((block) => block.type)
            .join(','),
        ]),
    ).toEqual([
      ['user', 'text'],
      ['assistant', 'tool_use'],
      ['user', 'tool_result'],
      ['assistant', 'text'],
    ]);
  });

  it('sends what OpenCode sends for pruned, interrupted and failed tools', () => {
    const { entries } = openCodeEntries(
      exportOf([
        {
          info: { id: 'a1', role: 'assistant', tokens: tokens(3, 0, 10) },
          parts: [
            {
              type: 'tool',
              tool: 'read',
              callID: 'c1',
              state: { status: 'completed', input: {}, output: 'long text', time: { start: 1, end: 2, compacted: 3 } },
            },
            { type: 'tool', tool: 'bash', callID: 'c2', state: { status: 'running', input: {} } },
            { type: 'tool', tool: 'bash', callID: 'c3', state: { status: 'error', input: {}, error: 'boom' } },
          ],
        },
      ]),
    );
    const results = entries.flatMap(blocksOf).filter((block) => block.type === 'tool_result');
    expect(results).toEqual([
      { type: 'tool_result', tool_use_id: 'c1', content: '[Old tool result content cleared]' },
      { type: 'tool_result', tool_use_id: 'c2', content: '[Tool execution was interrupted]', is_error: true },
      { type: 'tool_result', tool_use_id: 'c3', content: 'boom', is_error: true },
    ]);
  });

  it('leaves out a failed request and measures nothing for all-zero tokens', () => {
    const { entries } = openCodeEntries(
      exportOf([
        {
          info: { id: 'a1', role: 'assistant', error: { name: 'APIError', data: {} }, tokens: tokens(5, 5, 5) },
          parts: [{ type: 'text', text: 'partial' }],
        },
        { info: { id: 'a2', role: 'assistant', tokens: tokens(0, 0, 0) }, parts: [{ type: 'text', text: 'ok' }] },
      ]),
    );
    expect(entries.map((entry) => [entry.type, entry.line])).toEqual([['message', 2]]);
    expect(usageOfTokens(tokens(0, 0, 0))).toBeUndefined();
    expect(usageOfTokens('nonsense')).toBeUndefined();
  });

  it("marks user messages of OpenCode's own text as meta, and a compaction without a finished summary as its question", () => {
    const { entries } = openCodeEntries(
      exportOf([
        {
          info: { id: 'u1', role: 'user' },
          parts: [
            { type: 'text', text: 'Called the Read tool', synthetic: true },
            { type: 'text', text: 'hidden', ignored: true },
          ],
        },
        { info: { id: 'u2', role: 'user' }, parts: [{ type: 'compaction', auto: false }] },
      ]),
    );
    expect(entries).toEqual([
      {
        type: 'message',
        line: 1,
        role: 'user',
        content: [{ type: 'text', text: 'Called the Read tool' }],
        isSidechain: false,
        isMeta: true,
      },
      {
        type: 'message',
        line: 2,
        role: 'user',
        content: [{ type: 'text', text: 'What did we do so far?' }],
        isSidechain: false,
        isMeta: true,
      },
    ]);
  });

  it('counts a message that is not { info, parts } or of another role as malformed, and goes on', () => {
    const { entries } = openCodeEntries(
      exportOf([
        42,
        { info: { role: 'user' } },
        { info: { role: 'system' }, parts: [] },
        { info: { id: 'u', role: 'user' }, parts: ['x', { type: 'text', text: 'hi' }] },
      ]),
    );
    expect(entries.map((entry) => [entry.type, entry.line])).toEqual([
      ['malformed', 1],
      ['malformed', 2],
      ['malformed', 3],
      ['message', 4],
    ]);
  });
});
