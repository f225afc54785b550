import { F_PROMPT, F_SUMMARY, type HistoryIndex } from './history-index.js';

/**
 * The file context the model is likely to edit next. An edit must quote the file's old text
 * exactly, and the model quotes it from what it last saw of the file: a read's output, or the
 * new text of its own earlier write or edit. Clearing those while the model still works on the
 * file makes it read the file again (or guess). So while a file is in use — touched by one of
 * the newest `keepFileContext` tool results — every read of it and every write/edit of it since
 * the compaction stays whole; once the model has moved on, they are ordinary candidates.
 */

// Where read, write and edit tools name their file (Claude Code, OpenCode, pi, MCP file servers).
const PATH_FIELDS = ['file_path', 'filePath', 'path', 'notebook_path'] as const;
const READ_TOOL = /^(read|view|cat|read_file|readfile|notebookread)$/i;
const WRITE_TOOL = /^(write|edit|multiedit|notebookedit|str_replace_based_edit_tool|str_replace_editor|patch|apply_patch|create_file|write_file|edit_file)$/i;

function filePathOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  for (const field of PATH_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** Whether a call reads or writes a named file: the file, else undefined. */
export function fileOfCall(toolName: string | undefined, input: unknown): string | undefined {
  if (toolName === undefined || !(READ_TOOL.test(toolName) || WRITE_TOOL.test(toolName))) return undefined;
  return filePathOf(input);
}

/**
 * The entries of reads and writes of every file in use — one of the newest `keepFileContext`
 * results touched it, or (with `keepEditedFiles`) it was edited since the latest compaction
 * summary — back to that summary; undefined when none.
 */
export function fileContextEntries(index: HistoryIndex, keepFileContext: number, keepEditedFiles: boolean): Set<number> | undefined {
  if (keepFileContext <= 0 && !keepEditedFiles) return undefined;
  const { entries, flags } = index;
  // First the files in use, newest to oldest; then the entries that touch them.
  let inUse: Set<string> | undefined;
  let results = 0;
  let oldest = entries.length;
  for (let at = entries.length - 1; at >= 0; at--) {
    const flag = flags[at]!;
    if ((flag & F_SUMMARY) !== 0) break;
    oldest = at;
    if ((flag & F_PROMPT) !== 0) continue;
    results++;
    const entry = entries[at]!;
    const file = fileOf(entry);
    // In use: touched by one of the newest results, or edited since the compaction (edits come in runs).
    if (file !== null && (results <= keepFileContext || (keepEditedFiles && entry.writes))) (inUse ??= new Set()).add(file);
  }
  if (inUse === undefined) return undefined;
  const kept = new Set<number>();
  for (let at = entries.length - 1; at >= oldest; at--) {
    if ((flags[at]! & F_PROMPT) !== 0) continue;
    const file = entries[at]!.file;
    if (file !== null && file !== undefined && inUse.has(file)) kept.add(at);
  }
  return kept;
}

/** The entry's file (kept on the entry: a host prunes the same growing history before every request). */
function fileOf(entry: HistoryIndex['entries'][number]): string | null {
  if (entry.file === undefined) {
    entry.file = fileOfCall(entry.toolName, entry.call?.part.input) ?? null;
    entry.writes = entry.file !== null && WRITE_TOOL.test(entry.toolName!);
  }
  return entry.file;
}
