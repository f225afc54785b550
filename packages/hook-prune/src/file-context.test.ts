import { readTranscript } from '@hookwise/core/claude-code';
import type { Message } from '@hookwise/core/messages';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  EDITING_PHASE_RESULTS,
  fileContextEntries,
  filesOfCall,
  isDependencyPath,
  isPlanTool,
  PHASE_READ_MAX_CHARS,
  PROMPT_READ_MAX_CHARS,
  SHELL_VIEW_MAX_CHARS,
  SHORT_EDIT_MAX_CHARS,
  SHORT_VIEW_MAX_CHARS,
  SHORT_WRITE_MAX_CHARS,
  writesFile,
} from './file-context.js';
import { prompt, tokens, toolTurn } from './__fixtures__/history.js';
import { isShellTool } from './shell-reads.js';
import { FileIdentity } from './file-identity.js';
import { buildIndex, extendedIndex, F_PROMPT, F_SUMMARY, type HistoryIndex } from './history-index.js';

const transcripts = fileURLToPath(new URL('../../../fixtures/claude-code-transcripts/', import.meta.url));
const files = [
  'marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl',
  'marot-spotter/tool_heavy.jsonl',
  'daaain-claude-code-log/representative_messages.jsonl',
];

const textOf = (output: unknown): string =>
  typeof output === 'string'
    ? output
    : Array.isArray(output)
      ? output.map((item: { type: string; text?: string }) => (item.type === 'text' ? item.text : '')).join('')
      : '';

/**
 * The file context written out plainly, as its spec: from the latest compaction summary on, the
 * files of the newest `keepFileContext` results and (with `keepEditedFiles`) every file an
 * edit-like call wrote, then every entry whose call reads or writes one of them, and (with
 * `keepFileContext`) every read or view of a file in a short output, every whole-file write of a
 * short content, and, while one of the newest `EDITING_PHASE_RESULTS` results is an edit, the
 * newest read of each file not edited yet when it is short enough; and (with both) every whole
 * read of a project file since the latest prompt, short enough (an edited file's are kept anyway).
 */
function plainFileContext(index: HistoryIndex, keepFileContext: number, keepEditedFiles: boolean): Set<number> | undefined {
  if (keepFileContext <= 0 && !keepEditedFiles) return undefined;
  const { entries, flags } = index;
  let from = 0;
  for (let at = 0; at < entries.length; at++) if ((flags[at]! & F_SUMMARY) !== 0) from = at + 1;
  // Keys in history order, as the index learns the working directory.
  const identity = new FileIdentity();
  const keys = entries.map((entry, at) =>
    (flags[at]! & (F_SUMMARY | F_PROMPT)) !== 0 ? [] : (filesOfCall(entry.toolName, entry.call?.part.input, identity) ?? []),
  );
  const inUse = new Set<string>();
  if (keepEditedFiles)
    for (let at = from; at < entries.length; at++)
      if (writesFile(entries[at]!.toolName ?? '')) for (const file of keys[at]!) inUse.add(file);
  let results = 0;
  for (let at = entries.length - 1; at >= from && results < keepFileContext; at--) {
    if ((flags[at]! & F_PROMPT) !== 0) continue;
    results++;
    for (const file of keys[at]!) inUse.add(file);
  }
  // Whole-file reads: in use while one of the newest results that are not plan calls touched the file (not under pressure).
  const inUseByWork = new Set<string>();
  let work = 0;
  for (let at = entries.length - 1; keepEditedFiles && at >= from && work < keepFileContext; at--) {
    if ((flags[at]! & F_PROMPT) !== 0 || isPlanTool(entries[at]!.toolName)) continue;
    work++;
    for (const file of keys[at]!) inUseByWork.add(file);
  }
  const keepShort = keepFileContext > 0;
  if (inUse.size === 0 && !keepShort) return undefined;
  const kept = new Set<number>();
  const writes = (at: number) => writesFile(entries[at]!.toolName ?? '');
  const content = (at: number) => (entries[at]!.call?.part.input as { content?: unknown } | undefined)?.content;
  const short = (at: number) =>
    keepShort &&
    keys[at]!.length > 0 &&
    (writes(at)
      ? typeof content(at) === 'string' && (content(at) as string).length <= SHORT_WRITE_MAX_CHARS
      : textOf(entries[at]!.part?.output).length <= SHORT_VIEW_MAX_CHARS);
  // The editing phase: an edit among the newest results keeps the newest read of each file not edited yet.
  const written = new Set<string>();
  let lastWrite = -1;
  for (let at = from; at < entries.length; at++)
    if (keys[at]!.length > 0 && writes(at)) {
      lastWrite = at;
      for (const file of keys[at]!) written.add(file);
    }
  let newer = 0;
  for (let at = entries.length - 1; at > lastWrite; at--) if ((flags[at]! & F_PROMPT) === 0) newer++;
  const phaseReads = new Set<number>();
  if (keepShort && lastWrite >= 0 && newer < EDITING_PHASE_RESULTS) {
    const newest = new Map<string, number>();
    for (let at = from; at < entries.length; at++)
      if (keys[at]!.length > 0 && !writes(at)) for (const file of keys[at]!) newest.set(file, at);
    for (const [file, at] of newest)
      if (!written.has(file) && textOf(entries[at]!.part?.output).length <= PHASE_READ_MAX_CHARS) phaseReads.add(at);
  }
  let lastPrompt = from - 1;
  for (let at = from; at < entries.length; at++) if ((flags[at]! & F_PROMPT) !== 0) lastPrompt = at;
  const input = (at: number) => (entries[at]!.call?.part.input ?? {}) as Record<string, unknown>;
  const wholeRead = (at: number) =>
    keys[at]!.length === 1 &&
    !writes(at) &&
    !isShellTool(entries[at]!.toolName ?? '') &&
    !isDependencyPath(keys[at]![0]!) &&
    ['offset', 'limit', 'start_line', 'end_line', 'startLine', 'endLine', 'view_range'].every((field) => input(at)[field] == null);
  const promptRead = (at: number) =>
    keepShort && keepEditedFiles && at > lastPrompt && wholeRead(at) && textOf(entries[at]!.part?.output).length <= PROMPT_READ_MAX_CHARS;
  // A long shell output marks its files in use without being kept with them.
  const longShell = (at: number) =>
    isShellTool(entries[at]!.toolName ?? '') && textOf(entries[at]!.part?.output).length > SHELL_VIEW_MAX_CHARS;
  for (let at = from; at < entries.length; at++)
    if (
      (keys[at]!.some((file) => inUse.has(file)) ||
        short(at) ||
        phaseReads.has(at) ||
        promptRead(at) ||
        (wholeRead(at) && inUseByWork.has(keys[at]![0]!))) &&
      !longShell(at)
    )
      kept.add(at);
  return kept;
}

function expectSameContext(index: HistoryIndex, keepFileContext: number, keepEditedFiles: boolean): void {
  const context = fileContextEntries(index, keepFileContext, keepEditedFiles);
  const plain = plainFileContext(index, keepFileContext, keepEditedFiles);
  expect(context === undefined, `keepFileContext ${keepFileContext}, keepEditedFiles ${keepEditedFiles}`).toBe(plain === undefined);
  const kept = index.entries.map((_, at) => context?.has(at) === true);
  expect(kept).toEqual(index.entries.map((_, at) => plain?.has(at) === true));
}

describe('fileContextEntries, against its plain spec', () => {
  for (const file of files) {
    it(`${file}: the same entries as the index grows, across compactions`, async () => {
      const { messages } = await readTranscript(`${transcripts}${file}`);
      let index: HistoryIndex | undefined;
      const cuts: number[] = [];
      for (let end = 1; end <= messages.length; end += 7) cuts.push(end);
      cuts.push(messages.length);
      for (const end of cuts) {
        const history: Message[] = messages.slice(0, end);
        index = (index && extendedIndex(index, history)) ?? buildIndex(history);
        for (const [keepFileContext, keepEditedFiles] of [
          [10, true],
          [3, false],
          [0, true],
          [1, true],
          [0, false],
        ] as const)
          expectSameContext(index, keepFileContext, keepEditedFiles);
      }
      expect(index!.entries.some((_, at) => (index!.flags[at]! & F_SUMMARY) !== 0) || file !== files[0]).toBe(true);
    });
  }
});

describe('what the file context keeps besides the files in use (issue #36)', () => {
  const bash = (n: number) => toolTurn(tokens(2_000), { toolName: 'Bash', input: { command: `make step${n}` } });
  const read = (file: string, chars: number, range?: { offset: number; limit: number }) =>
    toolTurn('r'.repeat(chars), { toolName: 'Read', input: { file_path: file, ...range } });
  const write = (file: string, chars: number) =>
    toolTurn('File created successfully.', { toolName: 'Write', input: { file_path: file, content: 'w'.repeat(chars) } });
  const edit = (file: string) =>
    toolTurn('The file has been updated.', { toolName: 'Edit', input: { file_path: file, old_string: 'a'.repeat(40), new_string: 'b' } });
  const steps = (count: number, from = 0) => Array.from({ length: count }, (_, n) => bash(from + n)).flat();
  /** Whether the entry of the result in `history[messageIndex]` is kept, the file context as under pressure (no edited files kept). */
  const keptUnderPressure = (history: Message[], messageIndex: number): boolean => {
    const index = buildIndex(history);
    const at = index.entries.findIndex((entry) => entry.messageIndex === messageIndex);
    return fileContextEntries(index, 8, false)?.has(at) === true;
  };

  it('a file written whole in a short content stays, long after, under pressure and once it is moved; a long one does not', () => {
    const history = [
      prompt('write the skill'),
      ...write('/repo/.claude/SKILL.md', SHORT_WRITE_MAX_CHARS),
      ...write('/repo/big.md', SHORT_WRITE_MAX_CHARS + 1),
      ...steps(20),
    ];
    expect(keptUnderPressure(history, 2)).toBe(true);
    expect(keptUnderPressure(history, 4)).toBe(false);
  });

  it('with keepShortEdits, an edit of a short input stays until the compaction, edited files off; a longer one does not', () => {
    const editOf = (file: string, chars: number) =>
      toolTurn('The file has been updated.', {
        toolName: 'Edit',
        input: { file_path: file, old_string: 'a', new_string: 'b'.repeat(chars) },
      });
    const history = [prompt('fix it'), ...editOf('/repo/a.go', 1_000), ...editOf('/repo/b.go', SHORT_EDIT_MAX_CHARS), ...steps(20)];
    const index = buildIndex(history);
    const at = (messageIndex: number) => index.entries.findIndex((entry) => entry.messageIndex === messageIndex);
    const context = fileContextEntries(index, 8, false, undefined, true);
    expect([context?.has(at(2)), context?.has(at(4))]).toEqual([true, false]);
    expect(fileContextEntries(index, 8, false)?.has(at(2))).toBe(false);
  });

  it('while the agent edits, the newest read of each file it has not edited yet stays, up to PHASE_READ_MAX_CHARS', () => {
    const size = SHORT_VIEW_MAX_CHARS + 500;
    const history = [
      prompt('fix them all'),
      ...read('/repo/next.ts', size),
      ...read('/repo/next.ts', size),
      ...read('/repo/huge.ts', PHASE_READ_MAX_CHARS + 1),
      ...steps(12),
      ...edit('/repo/first.ts'),
      ...steps(EDITING_PHASE_RESULTS - 1, 100),
    ];
    // The edit is the 10th newest result: the newest read of next.ts stays, not the older one, not the huge one.
    expect(keptUnderPressure(history, 4)).toBe(true);
    expect(keptUnderPressure(history, 2)).toBe(false);
    expect(keptUnderPressure(history, 6)).toBe(false);
    // One more step without an edit: the phase is over.
    expect(keptUnderPressure([...history, ...bash(999)], 4)).toBe(false);
    // Without the edit there is no phase.
    const noEdit = [...history.slice(0, -2 * EDITING_PHASE_RESULTS), ...steps(EDITING_PHASE_RESULTS, 100)];
    expect(keptUnderPressure(noEdit, 4)).toBe(false);
  });
});

describe('prompt reads (issue #36, third round)', () => {
  const read = (file: string, chars: number, range?: { offset: number; limit: number }) =>
    toolTurn('r'.repeat(chars), { toolName: 'Read', input: { file_path: file, ...range } });
  const edit = (file: string) =>
    toolTurn('The file has been updated.', { toolName: 'Edit', input: { file_path: file, old_string: 'a'.repeat(40), new_string: 'b' } });
  const steps = (count: number) =>
    Array.from({ length: count }, (_, n) => toolTurn(tokens(2_000), { toolName: 'Bash', input: { command: `make step${n}` } })).flat();
  const size = PHASE_READ_MAX_CHARS + 1_000;
  // The request names the files; the agent reads them, works 30 calls, then edits the first.
  const history = [
    prompt('implement the plan in src/a.ts and src/b.ts'),
    ...read('/repo/src/a.ts', size),
    ...read('/repo/src/b.ts', size),
    ...read('/repo/src/c.ts', size, { offset: 100, limit: 80 }),
    ...read('/repo/node_modules/lib/index.d.ts', size),
    ...read('/repo/src/huge.ts', PROMPT_READ_MAX_CHARS + 1),
    ...steps(30),
    ...edit('/repo/src/a.ts'),
  ];
  /** Whether the read in `history[messageIndex]` is kept; with edited files (the default) or as under pressure. */
  const kept = (messages: Message[], messageIndex: number, keepEditedFiles = true): boolean => {
    const index = buildIndex(messages);
    const at = index.entries.findIndex((entry) => entry.messageIndex === messageIndex);
    return fileContextEntries(index, 8, keepEditedFiles)?.has(at) === true;
  };

  it('keeps a whole read of a project file since the prompt until the file is edited, 30 calls on', () => {
    expect(kept(history, 2)).toBe(true);
    expect(kept(history, 4)).toBe(true);
    // Not a line range, a dependency, or a read past PROMPT_READ_MAX_CHARS.
    expect(kept(history, 6)).toBe(false);
    expect(kept(history, 8)).toBe(false);
    expect(kept(history, 10)).toBe(false);
    // Under pressure they go, like the edited files' reads.
    expect(kept(history, 4, false)).toBe(false);
  });

  it('keeps a whole read in use while the agent writes its plan; plan calls still push a line-range read out', () => {
    const plan = (count: number) =>
      Array.from({ length: count }, (_, n) =>
        toolTurn(`Task #${n} created`, { toolName: 'TaskCreate', input: { subject: `step ${n}` } }),
      ).flat();
    const big = PROMPT_READ_MAX_CHARS + 1;
    // Two reads, ten plan calls, six steps: seven results that are not plan calls came after the whole read.
    const planned = [
      prompt('implement the plan'),
      ...read('/repo/src/big.ts', big),
      ...read('/repo/src/c.ts', big, { offset: 1, limit: 500 }),
      ...plan(10),
      ...steps(6),
    ];
    expect(kept(planned, 2)).toBe(true);
    // Not under pressure: then only the results count, as for any read.
    expect(kept(planned, 2, false)).toBe(false);
    expect(kept(planned, 4)).toBe(false);
    // Eight steps: out of use like any read.
    expect(kept([...planned, ...steps(2)], 2)).toBe(false);
    expect(isPlanTool('todowrite') && isPlanTool('TodoWrite') && isPlanTool('update_plan') && !isPlanTool('Task')).toBe(true);
  });

  it('lets them go at the next prompt, except the edited file, kept as an edited file', () => {
    const next = [...history, prompt('now something else'), ...steps(10)];
    expect(kept(next, 2)).toBe(true);
    expect(kept(next, 4)).toBe(false);
    // A read since the new prompt is kept again.
    const reread = [...next, ...read('/repo/src/b.ts', size), ...steps(20)];
    expect(kept(reread, next.length + 1)).toBe(true);
    expect(isDependencyPath('d:/repo/vendor/x.go')).toBe(true);
    expect(isDependencyPath('/repo/src/vendors.ts')).toBe(false);
  });
});

describe('the file of a read or write call, by host', () => {
  const identity = new FileIdentity('/repo');
  it("keys Gemini CLI's and Cline's file tools like the others; a read of several files keys none", () => {
    expect(filesOfCall('read_file', { absolute_path: '/repo/src/a.ts' }, identity)).toEqual([identity.key('/repo/src/a.ts')]);
    expect(filesOfCall('replace', { file_path: 'src/a.ts' }, identity)).toEqual([identity.key('src/a.ts')]);
    expect(filesOfCall('read_files', { files: [{ path: 'src/a.ts', start_line: 1 }] }, identity)).toEqual([identity.key('src/a.ts')]);
    expect(filesOfCall('read_files', { files: [{ path: 'src/a.ts' }, { path: 'src/b.ts' }] }, identity)).toBeNull();
    expect(writesFile('editor') && writesFile('replace') && !writesFile('read_files')).toBe(true);
  });
});
