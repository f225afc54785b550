import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isPiSessionHeader, piSessionEntries, usageOfPi } from './pi-session.js';
import type { ReplayEntry } from './replay-result.js';

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/pi/${name}`, import.meta.url));
const small = readFileSync(fixture('pi-1.5.2-session.jsonl'), 'utf8');
const long = readFileSync(fixture('pi-session-long.jsonl'), 'utf8');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const linesOf = (text: string): any[] =>
  text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

type Block = {
  type: string;
  id?: string;
  tool_use_id?: string;
  name?: string;
  text?: string;
  content?: unknown;
  is_error?: boolean;
  input?: unknown;
};
const blocksOf = (entry: ReplayEntry): Block[] => ('content' in entry && Array.isArray(entry.content) ? (entry.content as Block[]) : []);
const messages = (entries: ReplayEntry[]) => entries.filter((entry) => entry.type === 'message');

/** A session file of the given entries after pi's header; each entry's parent is the one before unless it says otherwise. */
function sessionOf(entries: Array<Record<string, unknown>>): string {
  let parent: string | null = null;
  const lines = [{ type: 'session', version: 3, id: 'ses-test', timestamp: '2026-01-01T00:00:00.000Z', cwd: '/p' }];
  entries.forEach((entry, index) => {
    const id = (entry['id'] as string | undefined) ?? `e${index}`;
    lines.push({ parentId: parent, timestamp: '2026-01-01T00:00:01.000Z', ...entry, id } as never);
    parent = id;
  });
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}
const user = (text: string) => ({ type: 'message', message: { role: 'user', content: [{ type: 'text', text }] } });
const assistant = (content: unknown[], usage = { input: 10, cacheRead: 0, cacheWrite: 0, output: 5 }, stopReason = 'stop') => ({
  type: 'message',
  message: { role: 'assistant', content, model: 'm', usage, stopReason },
});
const call = (id: string, name = 'read') => ({ type: 'toolCall', id, name, arguments: { path: 'a.txt' } });
const result = (id: string, text: string, isError = false) => ({
  type: 'message',
  message: { role: 'toolResult', toolCallId: id, toolName: 'read', content: [{ type: 'text', text }], isError },
});

describe('the recorded pi session files', () => {
  for (const [name, text] of [
    ['pi-1.5.2-session.jsonl', small],
    ['pi-session-long.jsonl', long],
  ] as const) {
    it(`${name}: one usage per assistant message, from its usage with cacheRead and cacheWrite, on its own line`, () => {
      const raw = linesOf(text);
      expect(isPiSessionHeader(raw[0])).toBe(true);
      const session = piSessionEntries(text);
      expect(session.sessionId).toBe(raw[0].id);
      const expected = raw.flatMap((entry, index) =>
        entry.type === 'message' && entry.message.role === 'assistant'
          ? [
              {
                line: index + 1,
                input: entry.message.usage.input,
                read: entry.message.usage.cacheRead,
                write: entry.message.usage.cacheWrite,
              },
            ]
          : [],
      );
      const usage = session.entries.filter((entry) => entry.type === 'usage');
      expect(usage.length).toBeGreaterThanOrEqual(4);
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
      expect(session.entries.filter((entry) => entry.type === 'malformed')).toEqual([]);
    });
  }

  it('records cache reads and writes in the long session', () => {
    const usage = piSessionEntries(long).entries.filter((entry) => entry.type === 'usage');
    expect(usage.some((entry) => entry.cacheReadInputTokens > 0 && entry.cacheCreationInputTokens > 0)).toBe(true);
  });

  it('pairs every tool call with its result right after it, a failed tool as an error result', () => {
    const all = messages(piSessionEntries(long).entries);
    const calls = all.flatMap((entry, index) =>
      blocksOf(entry)
        .filter((block) => block.type === 'tool_use')
        .map((block) => ({ block, next: all[index + 1] })),
    );
    expect(calls.map(({ block }) => block.name)).toEqual([
      'read',
      'read',
      'bash',
      'read',
      'read',
      'edit',
      'read',
      'read',
      'read',
      'read',
      'bash',
    ]);
    for (const { block, next } of calls)
      expect(blocksOf(next!).filter((candidate) => candidate.type === 'tool_result' && candidate.tool_use_id === block.id)).toHaveLength(1);
    const failed = all.flatMap(blocksOf).filter((block) => block.type === 'tool_result' && block.is_error === true);
    expect(failed).toHaveLength(1);
    expect(failed[0]!.content).toMatch(/ENOENT/);
    // pi's edit quotes its old text in `edits[].oldText`: what the report's lost-edit check reads.
    expect(calls.find(({ block }) => block.name === 'edit')!.block.input).toMatchObject({
      edits: [{ oldText: expect.stringMatching(/^charlie-line-003/) }],
    });
  });

  it('turns the compaction into a boundary with tokensBefore, then the history pi sends: its summary and the kept entries', () => {
    const raw = linesOf(long);
    const { entries } = piSessionEntries(long);
    const compactionLine = raw.findIndex((entry) => entry.type === 'compaction') + 1;
    const compaction = raw[compactionLine - 1];
    const boundaryAt = entries.findIndex((entry) => entry.type === 'compact-boundary');
    expect(entries[boundaryAt]).toMatchObject({
      type: 'compact-boundary',
      line: compactionLine,
      trigger: 'auto',
      preTokens: compaction.tokensBefore,
    });
    const history = entries.slice(boundaryAt + 1).filter((entry) => entry.type === 'history');
    expect(history[0]).toMatchObject({ role: 'user', compactSummary: true });
    expect(blocksOf(history[0]!)[0]!.text).toBe(
      `The conversation history before this point was compacted into the following summary:\n\n<summary>\n${compaction.summary}\n</summary>`,
    );
    // The kept tail: from firstKeptEntryId up to the compaction, as it was.
    const firstKept = raw.findIndex((entry) => entry.id === compaction.firstKeptEntryId) + 1;
    expect(firstKept).toBeGreaterThan(1);
    const tail = history.slice(1);
    expect(tail.length).toBeGreaterThan(0);
    expect(tail[0]!.line).toBe(firstKept);
    expect(Math.max(...tail.map((entry) => entry.line))).toBe(compactionLine - 1);
  });

  it('counts the typed prompts only', () => {
    const prompts = messages(piSessionEntries(long).entries).filter(
      (entry) => entry.role === 'user' && entry.isMeta !== true && !blocksOf(entry).some((block) => block.type === 'tool_result'),
    );
    expect(prompts.map((entry) => blocksOf(entry)[0]!.text)).toEqual(['explore the files', 'fix charlie', 'read the last one']);
  });
});

describe('converting pi entries', () => {
  it('walks the active branch back from the last entry: an abandoned branch sends nothing', () => {
    const text = sessionOf([
      { ...user('first'), id: 'u1' },
      { ...assistant([{ type: 'text', text: 'abandoned' }]), id: 'a1' },
      { ...user('second try'), id: 'u2', parentId: 'u1' },
      { ...assistant([{ type: 'text', text: 'kept' }]), id: 'a2' },
    ]);
    const texts = messages(piSessionEntries(text).entries).map((entry) => blocksOf(entry)[0]!.text);
    expect(texts).toEqual(['first', 'second try', 'kept']);
  });

  it("sends pi's own roles as pi does, none of them a prompt; leaves out errored responses and the results of their calls", () => {
    const text = sessionOf([
      user('go'),
      assistant([call('c1')], { input: 5, cacheRead: 0, cacheWrite: 0, output: 1 }, 'aborted'),
      result('c1', 'orphan'),
      { type: 'message', message: { role: 'bashExecution', command: 'ls', output: 'a b', exitCode: 2 } },
      { type: 'message', message: { role: 'bashExecution', command: 'secret', output: 'x', excludeFromContext: true } },
      { type: 'message', message: { role: 'custom', customType: 'note', content: 'from an extension', display: true } },
      { type: 'custom_message', customType: 'note', content: [{ type: 'text', text: 'injected' }], display: false },
      { type: 'branch_summary', fromId: 'x', summary: 'the other branch' },
      { type: 'custom', customType: 'state', data: {} },
      { type: 'label', targetId: 'e0', label: 'here' },
      assistant([
        { type: 'thinking', thinking: 'hmm' },
        { type: 'text', text: 'ok' },
      ]),
    ]);
    const { entries } = piSessionEntries(text);
    expect(
      messages(entries).map((entry) => [
        entry.role,
        entry.isMeta === true,
        blocksOf(entry)
          .map((block) => block.text ?? block.type)
          .join('|'),
      ]),
    ).toEqual([
      ['user', false, 'go'],
      ['user', true, 'Ran `ls`\n```\na b\n```\n\nCommand exited with code 2'],
      ['user', true, 'from an extension'],
      ['user', true, 'injected'],
      [
        'user',
        true,
        'The following is a summary of a branch that this conversation came back from:\n\n<summary>\nthe other branch</summary>',
      ],
      ['assistant', false, 'thinking|ok'],
    ]);
    expect(entries.filter((entry) => entry.type === 'usage')).toHaveLength(1);
    expect(entries.filter((entry) => entry.type === 'malformed')).toEqual([]);
  });

  it('counts lines that are not entries, roles pi does not send, and a broken parent chain as malformed, and goes on', () => {
    const good = sessionOf([user('go'), assistant([{ type: 'text', text: 'ok' }])])
      .trim()
      .split('\n');
    const text = [
      good[0],
      '{"type":"message","mess',
      '[1,2]',
      good[1],
      JSON.stringify({ type: 'message', id: 'w', parentId: 'e0', message: { role: 'wizard', content: 'x' } }),
      JSON.stringify({ ...JSON.parse(good[2]!), parentId: 'w' }),
    ].join('\n');
    const { entries } = piSessionEntries(text);
    expect(entries.filter((entry) => entry.type === 'malformed').map((entry) => entry.line)).toEqual([2, 3, 5]);
    expect(messages(entries).map((entry) => blocksOf(entry)[0]!.text)).toEqual(['go', 'ok']);

    const orphan = sessionOf([user('lost'), { ...assistant([{ type: 'text', text: 'tail' }]), parentId: 'nowhere' }]);
    const cut = piSessionEntries(orphan).entries;
    expect(cut.filter((entry) => entry.type === 'malformed')).toEqual([
      { type: 'malformed', line: 3, reason: expect.stringContaining('names no entry') },
    ]);
    expect(messages(cut).map((entry) => blocksOf(entry)[0]!.text)).toEqual(['tail']);
  });

  it('reads usage as pi records it; nothing measured for all-zero usage', () => {
    expect(usageOfPi({ input: 4, cacheRead: 100, cacheWrite: 20, output: 9 })).toEqual({
      inputTokens: 4,
      cacheReadInputTokens: 100,
      cacheCreationInputTokens: 20,
      contextTokens: 124,
    });
    expect(usageOfPi({ input: 0, cacheRead: 0, cacheWrite: 0, output: 3 })).toBeUndefined();
    expect(usageOfPi('nonsense')).toBeUndefined();
  });
});
