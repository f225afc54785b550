import { readTranscript } from '@hookwise/core/claude-code';
import type { Message } from '@hookwise/core/messages';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileContextEntries, fileOfCall, isShellTool, sameFile, writesFile } from './file-context.js';
import { buildIndex, extendedIndex, F_PROMPT, F_SUMMARY, type HistoryIndex } from './history-index.js';

const transcripts = fileURLToPath(new URL('../../../fixtures/claude-code-transcripts/', import.meta.url));
const files = [
  'marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl',
  'marot-spotter/tool_heavy.jsonl',
  'daaain-claude-code-log/representative_messages.jsonl',
];

/**
 * The file context written out plainly, as its spec: from the latest compaction summary on, the
 * files of the newest `keepFileContext` results (shell views aside) and (with `keepEditedFiles`)
 * every file an edit-like call wrote, then every entry whose call reads, views or writes one of
 * them under any of its names.
 */
function plainFileContext(index: HistoryIndex, keepFileContext: number, keepEditedFiles: boolean): Set<number> | undefined {
  if (keepFileContext <= 0 && !keepEditedFiles) return undefined;
  const { entries, flags } = index;
  let from = 0;
  for (let at = 0; at < entries.length; at++) if ((flags[at]! & F_SUMMARY) !== 0) from = at + 1;
  const fileAt = (at: number) =>
    (flags[at]! & (F_SUMMARY | F_PROMPT)) !== 0 ? undefined : fileOfCall(entries[at]!.toolName, entries[at]!.call?.part.input);
  const inUse = new Set<string>();
  if (keepEditedFiles)
    for (let at = from; at < entries.length; at++)
      if (fileAt(at) !== undefined && writesFile(entries[at]!.toolName!)) inUse.add(fileAt(at)!);
  let results = 0;
  for (let at = entries.length - 1; at >= from && results < keepFileContext; at--) {
    if ((flags[at]! & F_PROMPT) !== 0) continue;
    results++;
    // A shell view is kept with its file but puts no file in use itself.
    if (fileAt(at) !== undefined && !isShellTool(entries[at]!.toolName)) inUse.add(fileAt(at)!);
  }
  if (inUse.size === 0) return undefined;
  const kept = new Set<number>();
  // A file is in use under any of its names (`src/x.ts`, `/repo/src/x.ts`).
  for (let at = from; at < entries.length; at++)
    if (fileAt(at) !== undefined && [...inUse].some((file) => sameFile(file, fileAt(at)!))) kept.add(at);
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
