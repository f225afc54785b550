import type { ToolResultPart } from '@hookwise/core/messages';
import { FileIdentity } from './file-identity.js';
import { callJsonOf, F_PROMPT, F_SUMMARY, type FileTouches, type HistoryIndex } from './history-index.js';
import { commandOf, isShellTool, shellReads } from './shell-reads.js';

/**
 * The file context the model is likely to edit next. An edit must quote the file's old text
 * exactly, and the model quotes it from what it last saw of the file: a read's output, or the
 * new text of its own earlier write or edit. Clearing those while the model still works on the
 * file makes it read the file again (or guess). So while a file is in use — touched by one of
 * the newest `keepFileContext` tool results — every read of it and every write/edit of it since
 * the compaction stays whole; once the model has moved on, they are ordinary candidates.
 */

// Where read, write and edit tools name their file (Claude Code, OpenCode, Kilo, pi, Gemini CLI,
// Cline, MCP file servers). Cline's `read_files` takes `files: [{ path }]`: keyed when it names one file.
const PATH_FIELDS = ['file_path', 'filePath', 'path', 'notebook_path', 'absolute_path'] as const;
const READ_TOOL = /^(read|view|cat|read_file|read_files|readfile|notebookread)$/i;
const WRITE_TOOL =
  /^(write|edit|multiedit|notebookedit|str_replace_based_edit_tool|str_replace_editor|patch|apply_patch|create_file|write_file|edit_file|replace|editor)$/i;

function filePathOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  for (const field of PATH_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  const files = record.files;
  if (Array.isArray(files) && files.length === 1) return filePathOf(files[0]);
  return undefined;
}

/** Whether a tool writes or edits the file it names. */
export function writesFile(toolName: string): boolean {
  return WRITE_TOOL.test(toolName);
}

/** Whether a call reads or writes a named file: the file as named, else undefined. */
export function fileOfCall(toolName: string | undefined, input: unknown): string | undefined {
  if (toolName === undefined || !(READ_TOOL.test(toolName) || WRITE_TOOL.test(toolName))) return undefined;
  return filePathOf(input);
}

/** The keys of the files a call reads or writes (a read or write tool's file, the files a shell command shows), or null. */
export function filesOfCall(toolName: string | undefined, input: unknown, identity: FileIdentity): string[] | null {
  const file = fileOfCall(toolName, input);
  if (file !== undefined) return [identity.key(file)];
  if (toolName === undefined || !isShellTool(toolName)) return null;
  const command = commandOf(input);
  if (command === undefined) return null;
  const reads = shellReads(command);
  return reads.length === 0 ? null : [...new Set(reads.map((read) => identity.key(read.file, read.directory)))];
}

/**
 * A shell view longer than this marks its files in use but is not kept with them: a long shell
 * output is a survey (a chained `cat … && grep …`) more than the view an edit quotes, and keeping
 * those cost 0.02× overall on the sessions the rules were tuned on (bench/README.md).
 */
export const SHELL_VIEW_MAX_CHARS = 2_000;

/**
 * A read of a file this short (a shell view: `SHELL_VIEW_MAX_CHARS`) is kept until the compaction
 * (with `keepFileContext`, under pressure too), in use or not: agents read a batch of files, then
 * edit them one by one many calls later, and a short output costs little to keep; clearing it
 * saved less than the cache break it needed (bench/README.md).
 */
export const SHORT_VIEW_MAX_CHARS = 4_000;

/**
 * A file written whole (`Write`'s `content`) this short is kept like a short read: the model's
 * own copy of the file is what its later edits quote, also once the file has moved (`git mv`)
 * and its edits name another path, and under pressure (bench/README.md, issue #36).
 */
export const SHORT_WRITE_MAX_CHARS = SHORT_VIEW_MAX_CHARS;

/**
 * An edit whose input (old and new text, as the call sent it) is this short is kept until the
 * compaction while `keepShortEdits` is on, even when edited files are not (pressure far from the
 * window): the agent's later edits quote what its earlier ones wrote (bench/README.md, issue #36).
 */
export const SHORT_EDIT_MAX_CHARS = SHORT_WRITE_MAX_CHARS;

/**
 * The editing phase: while one of the newest this-many tool results is an edit or write, the
 * newest read of each file not edited yet (up to `PHASE_READ_MAX_CHARS`) is kept, under pressure
 * too: an agent that edits works through the files it has just read, one after the other.
 */
export const EDITING_PHASE_RESULTS = 10;
export const PHASE_READ_MAX_CHARS = 6_000;

/**
 * Prompt reads: a whole project file read since the latest user prompt and not edited yet is
 * kept (while edited files are, so not under pressure) until the file is edited, then kept as an
 * edited file, or until the next prompt. Agents read the files a request names in a batch, then
 * edit them one by one many calls later with nothing touching them in between; a read past this
 * size, a read of a line range (a look more than the file to work on) or of a dependency
 * (`node_modules`, …: read, not edited) is not kept that way (bench/README.md, issue #36).
 */
export const PROMPT_READ_MAX_CHARS = 16_000;
const RANGE_FIELDS = ['offset', 'limit', 'start_line', 'end_line', 'startLine', 'endLine', 'view_range'] as const;
const DEPENDENCY_DIR = /(^|\/)(node_modules|vendor|site-packages|\.venv|venv|\.cargo|\.gradle)\//i;

/**
 * Plan bookkeeping: the agent's todo list or task list (Claude Code `TaskCreate`/`TaskUpdate`/
 * `TodoWrite`, OpenCode `todowrite`, Codex `update_plan`, Gemini CLI `write_todos`). Agents read
 * the files of a request whole, write their plan of it in a run of these calls, then edit the
 * files one by one: such calls do not take a whole-file read out of use (`keepFileContext`
 * counts the other results for it; not under pressure, like the edited files). Line-range reads
 * are looks and count as before: keeping those past the plan kept too much (bench/README.md,
 * issue #36, row 36).
 */
const PLAN_TOOL = /^(taskcreate|taskupdate|tasklist|taskget|todowrite|todoread|update_plan|write_todos)$/i;

/** Whether a tool only keeps the agent's plan (`PLAN_TOOL`). */
export function isPlanTool(toolName: string | undefined): boolean {
  return toolName !== undefined && PLAN_TOOL.test(toolName);
}

/** Whether a file key is inside a dependency directory (read for reference, not edited). */
export function isDependencyPath(file: string): boolean {
  return DEPENDENCY_DIR.test(file);
}

/** Whether a read tool's input asks for the whole file (no line range). */
function readsWholeFile(input: unknown): boolean {
  if (typeof input !== 'object' || input === null) return true;
  const record = input as Record<string, unknown>;
  return RANGE_FIELDS.every((field) => record[field] === undefined || record[field] === null);
}

/** Characters of the whole-file content a write-like call's input carries (`content`), or undefined. */
function writtenChars(input: unknown): number | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const content = (input as Record<string, unknown>).content;
  return typeof content === 'string' ? content.length : undefined;
}

function outputChars(output: ToolResultPart['output'] | undefined): number {
  if (output === undefined) return 0;
  if (typeof output === 'string') return output.length;
  let chars = 0;
  for (const item of output) if (item.type === 'text') chars += item.text.length;
  return chars;
}

/** The entries kept whole this run: the reads and writes of every file in use since the latest compaction summary. */
export interface FileContext {
  has(at: number): boolean;
}

/**
 * The entries of reads and writes of every file in use — one of the newest `keepFileContext`
 * results touched it, or (with `keepEditedFiles`) it was edited since the latest compaction
 * summary — back to that summary; with `keepShortEdits`, every short edit (`SHORT_EDIT_MAX_CHARS`)
 * since that summary too; undefined when none. Asked of each entry the walk looks at,
 * by the entry's file: the index keeps each entry's file, so no set of entries is built per run.
 * Valid during one run (the index's file touches grow with the next one).
 */
export function fileContextEntries(
  index: HistoryIndex,
  keepFileContext: number,
  keepEditedFiles: boolean,
  workingDirectory?: string,
  keepShortEdits = false,
): FileContext | undefined {
  if (keepFileContext <= 0 && !keepEditedFiles && !keepShortEdits) return undefined;
  const { entries, flags } = index;
  const touches = fileTouchesOf(index, workingDirectory);
  // In use: edited since the compaction (edits come in runs), or touched by one of the newest results.
  const written = keepEditedFiles && touches.written.size > 0 ? touches.written : undefined;
  let recent: Set<string> | undefined;
  // The same for whole-file reads, plan calls not counted (`PLAN_TOOL`).
  let recentWhole: Set<string> | undefined;
  let results = 0;
  let workResults = 0;
  for (let at = entries.length - 1; at >= 0 && (results < keepFileContext || (keepEditedFiles && workResults < keepFileContext)); at--) {
    const flag = flags[at]!;
    if ((flag & F_SUMMARY) !== 0) break;
    if ((flag & F_PROMPT) !== 0) continue;
    const files = entries[at]!.files;
    if (results++ < keepFileContext && files) for (const file of files) if (written?.has(file) !== true) (recent ??= new Set()).add(file);
    // Like the edited files, they go under pressure (`keepEditedFiles` off).
    if (!keepEditedFiles || isPlanTool(entries[at]!.toolName)) continue;
    workResults++;
    if (files) for (const file of files) (recentWhole ??= new Set()).add(file);
  }
  // Short reads and views are kept with the file context on, under pressure too: clearing them frees little.
  const keepShort = keepFileContext > 0;
  const phaseReads = keepShort ? editingPhaseReads(index, touches) : undefined;
  // Prompt reads go with the edited files: under pressure both are cleared.
  const promptReads = keepShort && keepEditedFiles && touches.promptReads.size > 0 ? touches.promptReads : undefined;
  if (written === undefined && recent === undefined && !keepShort && !keepShortEdits) return undefined;
  return new FilesInUse(entries, touches.from, written, recent, keepShort, phaseReads, promptReads, recentWhole, keepShortEdits);
}

/** In an editing phase (`EDITING_PHASE_RESULTS`), the newest read of each file not edited yet, when short enough; else undefined. */
function editingPhaseReads(index: HistoryIndex, touches: FileTouches): Set<number> | undefined {
  if (touches.lastWrite < 0) return undefined;
  const { flags } = index;
  let results = 0;
  let editing = false;
  for (let at = flags.length - 1; at >= touches.lastWrite && results < EDITING_PHASE_RESULTS; at--) {
    if ((flags[at]! & F_PROMPT) !== 0) continue;
    results++;
    editing = at === touches.lastWrite;
  }
  if (!editing) return undefined;
  let reads: Set<number> | undefined;
  for (const [file, at] of touches.newestRead)
    if (!touches.written.has(file) && index.entries[at]!.outputChars <= PHASE_READ_MAX_CHARS) (reads ??= new Set()).add(at);
  return reads;
}

/** An entry is kept when it follows the latest summary and its call reads or writes a file in use. */
class FilesInUse implements FileContext {
  constructor(
    private readonly entries: HistoryIndex['entries'],
    /** The first entry after the latest compaction summary. */
    private readonly from: number,
    private readonly written: ReadonlySet<string> | undefined,
    private readonly recent: ReadonlySet<string> | undefined,
    /** Short reads and views kept too (`SHORT_VIEW_MAX_CHARS`). */
    private readonly keepShort: boolean,
    /** The reads the editing phase keeps (`EDITING_PHASE_RESULTS`). */
    private readonly phaseReads: ReadonlySet<number> | undefined,
    /** Prompt reads (`PROMPT_READ_MAX_CHARS`): per file, the first entry kept. */
    private readonly promptReads: ReadonlyMap<string, number> | undefined,
    /** Files touched by one of the newest results that are not plan calls: their whole-file reads are kept. */
    private readonly recentWhole: ReadonlySet<string> | undefined,
    /** Short edits kept too (`SHORT_EDIT_MAX_CHARS`). */
    private readonly keepShortEdits: boolean,
  ) {}

  has(at: number): boolean {
    if (at < this.from) return false;
    const entry = this.entries[at];
    if (entry?.files == null || !entry.keptWithFile) return false;
    if (this.keepShort && entry.shortView) return true;
    if (this.keepShortEdits && entry.shortEdit) return true;
    if (this.phaseReads?.has(at) === true) return true;
    if (entry.wholeRead && this.recentWhole?.has(entry.files[0]!) === true) return true;
    if (entry.promptRead && this.promptReads !== undefined) {
      const since = this.promptReads.get(entry.files[0]!);
      if (since !== undefined && at >= since) return true;
    }
    for (const file of entry.files) if (this.written?.has(file) === true || this.recent?.has(file) === true) return true;
    return false;
  }
}

/** The index's file touches, brought up to its newest entry: each entry is looked at once. */
function fileTouchesOf(index: HistoryIndex, workingDirectory: string | undefined): FileTouches {
  const touches = (index.fileTouches ??= {
    upTo: 0,
    from: 0,
    written: new Set(),
    newestRead: new Map(),
    lastWrite: -1,
    promptReads: new Map(),
    identity: new FileIdentity(workingDirectory),
  });
  if (workingDirectory !== undefined && workingDirectory !== '' && touches.identity.directory === undefined)
    touches.identity.setWorkingDirectory(workingDirectory);
  const { entries, flags } = index;
  for (let at = touches.upTo; at < entries.length; at++) {
    const flag = flags[at]!;
    if ((flag & F_SUMMARY) !== 0) {
      // Only what follows the latest compaction summary counts.
      touches.written.clear();
      touches.newestRead.clear();
      touches.promptReads.clear();
      touches.lastWrite = -1;
      touches.from = at + 1;
      continue;
    }
    if ((flag & F_PROMPT) !== 0) {
      touches.promptReads.clear();
      continue;
    }
    const entry = entries[at]!;
    const files = (entry.files = filesOfCall(entry.toolName, entry.call?.part.input, touches.identity));
    if (files === null) continue;
    if (writesFile(entry.toolName!)) {
      for (const file of files) {
        touches.written.add(file);
        touches.promptReads.delete(file);
      }
      touches.lastWrite = at;
      const written = writtenChars(entry.call?.part.input);
      entry.shortView = written !== undefined && written <= SHORT_WRITE_MAX_CHARS;
      entry.shortEdit = written === undefined && entry.call !== undefined && (callJsonOf(entry)?.length ?? 0) <= SHORT_EDIT_MAX_CHARS;
    } else {
      const chars = (entry.outputChars = outputChars(entry.part?.output));
      const shell = isShellTool(entry.toolName!);
      if (shell) entry.keptWithFile = chars <= SHELL_VIEW_MAX_CHARS;
      entry.shortView = chars <= SHORT_VIEW_MAX_CHARS;
      for (const file of files) touches.newestRead.set(file, at);
      // A shell view is kept whole only when short (`SHELL_VIEW_MAX_CHARS`): the short-read rule has it.
      const file = files[0]!;
      entry.wholeRead = !shell && files.length === 1 && !isDependencyPath(file) && readsWholeFile(entry.call?.part.input);
      entry.promptRead = entry.wholeRead && chars <= PROMPT_READ_MAX_CHARS;
      if (entry.promptRead && !touches.written.has(file) && !touches.promptReads.has(file)) touches.promptReads.set(file, at);
    }
  }
  touches.upTo = entries.length;
  return touches;
}
