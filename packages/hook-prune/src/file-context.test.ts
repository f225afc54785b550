import { readTranscript } from '@hookwise/core/claude-code';
import type { Message } from '@hookwise/core/messages';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileContextEntries, filesOfCall, SHELL_VIEW_MAX_CHARS, SHORT_VIEW_MAX_CHARS, writesFile } from './file-context.js';
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
 * `keepFileContext`) every read or view of a file in a short output.
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
  const keepShort = keepFileContext > 0;
  if (inUse.size === 0 && !keepShort) return undefined;
  const kept = new Set<number>();
  const short = (at: number) =>
    keepShort &&
    keys[at]!.length > 0 &&
    !writesFile(entries[at]!.toolName ?? '') &&
    textOf(entries[at]!.part?.output).length <= SHORT_VIEW_MAX_CHARS;
  // A long shell output marks its files in use without being kept with them.
  const longShell = (at: number) =>
    isShellTool(entries[at]!.toolName ?? '') && textOf(entries[at]!.part?.output).length > SHELL_VIEW_MAX_CHARS;
  for (let at = from; at < entries.length; at++)
    if ((keys[at]!.some((file) => inUse.has(file)) || short(at)) && !longShell(at)) kept.add(at);
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
