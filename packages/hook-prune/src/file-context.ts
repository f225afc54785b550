import path from 'node:path';
import { F_PROMPT, F_SUMMARY, type FileTouches, type HistoryIndex } from './history-index.js';

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
const WRITE_TOOL =
  /^(write|edit|multiedit|notebookedit|str_replace_based_edit_tool|str_replace_editor|patch|apply_patch|create_file|write_file|edit_file)$/i;

// Shell tools of Claude Code (Bash), OpenCode and pi (bash), Codex (shell), Gemini CLI
// (run_shell_command), Cline/Roo (execute_command), PowerShell.
const SHELL_TOOL = /^(bash|shell|sh|zsh|powershell|pwsh|run_shell_command|execute_command|run_terminal_cmd|terminal|exec_command)$/i;
const SHELL_COMMAND_FIELDS = ['command', 'cmd', 'script'] as const;
// Commands that show a file's text; those whose first operand is a script or a pattern skip it.
const SHOWS_FILE = /^(cat|head|tail|nl|less|more|bat|batcat|type|get-content|gc)$/i;
const SHOWS_FILE_AFTER_SCRIPT = /^(sed|awk|grep|egrep|fgrep|rg|ag|select-string)$/i;

function filePathOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  for (const field of PATH_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/**
 * One file, one name, whatever way a session wrote it: `\\` and `/` alike, `./` and `..`
 * resolved, and a Windows path (a drive letter or backslashes) compared without case. Relative
 * and absolute names of one file meet in {@link sameFile}.
 */
export function fileIdentity(file: string): string {
  const windows = /^[a-z]:[\\/]/i.test(file) || file.includes('\\');
  let normalized = path.posix.normalize(file.replaceAll('\\', '/'));
  if (normalized.startsWith('./')) normalized = normalized.slice(2);
  if (normalized.length > 1 && normalized.endsWith('/')) normalized = normalized.slice(0, -1);
  return windows ? normalized.toLowerCase() : normalized;
}

/** Whether two identities name one file: equal, or one is the other relative to some folder (`src/x.ts`, `/repo/src/x.ts`). */
export function sameFile(left: string, right: string): boolean {
  if (left === right) return true;
  const [short, long] = left.length < right.length ? [left, right] : [right, left];
  if (short.startsWith('/') || /^[a-z]:\//i.test(short) || short.startsWith('../')) return false;
  // A Windows path is kept in lower case: a relative name of it compares the same way.
  return long.endsWith(`/${/^[a-z]:\//.test(long) ? short.toLowerCase() : short}`);
}

/**
 * The file a shell command shows the text of (`cat f`, `sed -n '1,80p' f`, `head -50 f`,
 * `grep -n x f`, `Get-Content f`, after `cd dir &&`), else undefined. The first such file.
 */
export function shellViewedFile(command: string): string | undefined {
  let folder: string | undefined;
  for (const words of shellCommands(command)) {
    const [name, ...rest] = words;
    if (name === undefined) continue;
    if (name === 'cd' || name === 'Set-Location' || name === 'pushd') {
      folder = rest[0];
      continue;
    }
    const operands: string[] = [];
    for (let index = 0; index < rest.length; index++) {
      const word = rest[index]!;
      // A redirection's target is written or read by the shell, not shown: skip it with its operator.
      if (/^\d?[<>]{1,2}$/.test(word)) {
        index++;
        continue;
      }
      if (!word.startsWith('-') && !/^\d+$/.test(word) && !/^\d?[<>]/.test(word)) operands.push(word);
    }
    const files = SHOWS_FILE.test(name) ? operands : SHOWS_FILE_AFTER_SCRIPT.test(name) ? operands.slice(1) : [];
    const file = files.find((word) => !/[*?]/.test(word) && word !== '/dev/null');
    if (file !== undefined) return folder && !path.posix.isAbsolute(file) && !/^[a-z]:[\\/]/i.test(file) ? `${folder}/${file}` : file;
  }
  return undefined;
}

/**
 * The simple commands of a command line, each as its words: split at `&&`, `||`, `;`, `|` and
 * newlines outside quotes; quotes group words and are removed. No expansion.
 */
function shellCommands(line: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word: string | undefined;
  let quote: string | undefined;
  const endWord = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let index = 0; index < line.length; index++) {
    const character = line[index]!;
    if (quote !== undefined) {
      if (character === quote) quote = undefined;
      else if (character === '\\' && quote === '"' && index + 1 < line.length) word += line[++index]!;
      else word += character;
    } else if (character === '"' || character === "'") {
      quote = character;
      word ??= '';
    } else if (character === '&' && line[index + 1] === '&') {
      index++;
      endCommand();
    } else if (character === '|' || character === ';' || character === '\n') {
      if (line[index + 1] === '|') index++;
      endCommand();
    } else if (/\s/.test(character)) endWord();
    else word = (word ?? '') + character;
  }
  endCommand();
  return commands;
}

/** Whether a tool runs shell commands (Bash, bash, shell, run_shell_command, …). */
export function isShellTool(toolName: string | undefined): boolean {
  return toolName !== undefined && SHELL_TOOL.test(toolName);
}

/** Whether a tool writes or edits the file it names. */
export function writesFile(toolName: string): boolean {
  return WRITE_TOOL.test(toolName);
}

/** Whether a call reads or writes a named file, a shell view included: the file's identity, else undefined. */
export function fileOfCall(toolName: string | undefined, input: unknown): string | undefined {
  if (toolName === undefined) return undefined;
  let file: string | undefined;
  if (READ_TOOL.test(toolName) || WRITE_TOOL.test(toolName)) file = filePathOf(input);
  else if (isShellTool(toolName) && typeof input === 'object' && input !== null) {
    const record = input as Record<string, unknown>;
    const command = SHELL_COMMAND_FIELDS.map((field) => record[field]).find((value) => typeof value === 'string' || Array.isArray(value));
    // An argument vector (`["bash", "-lc", "cat x"]`) runs its `-c` script.
    const script = Array.isArray(command)
      ? (command[command.findIndex((word) => word === '-c' || word === '-lc') + 1] ?? command.join(' '))
      : command;
    file = typeof script === 'string' ? shellViewedFile(script) : undefined;
  }
  return file === undefined ? undefined : fileIdentity(file);
}

/** The entries kept whole this run: the reads and writes of every file in use since the latest compaction summary. */
export interface FileContext {
  has(at: number): boolean;
}

/**
 * The entries of reads and writes of every file in use — one of the newest `keepFileContext`
 * results touched it, or (with `keepEditedFiles`) it was edited since the latest compaction
 * summary — back to that summary; undefined when none. Asked of each entry the walk looks at,
 * by the entry's file: the index keeps each entry's file, so no set of entries is built per run.
 * Valid during one run (the index's file touches grow with the next one).
 */
export function fileContextEntries(index: HistoryIndex, keepFileContext: number, keepEditedFiles: boolean): FileContext | undefined {
  if (keepFileContext <= 0 && !keepEditedFiles) return undefined;
  const { entries, flags } = index;
  const touches = fileTouchesOf(index);
  // In use: edited since the compaction (edits come in runs), or touched by one of the newest results.
  const written = keepEditedFiles && touches.written.size > 0 ? touches.written : undefined;
  let recent: Set<string> | undefined;
  let results = 0;
  for (let at = entries.length - 1; at >= 0 && results < keepFileContext; at--) {
    const flag = flags[at]!;
    if ((flag & F_SUMMARY) !== 0) break;
    if ((flag & F_PROMPT) !== 0) continue;
    results++;
    const entry = entries[at]!;
    // A shell view is kept while its file is in use, but does not itself put a file in use: the
    // shell looks at many files in passing (grep, head), and keeping all their reads costs more
    // under caching than the edits it saves.
    if (entry.file && !inSet(written, entry.file) && !isShellTool(entry.toolName)) (recent ??= new Set()).add(entry.file);
  }
  if (written === undefined && recent === undefined) return undefined;
  return new FilesInUse(entries, touches.from, written, recent);
}

/** An entry is kept when it follows the latest summary and its call reads or writes a file in use. */
class FilesInUse implements FileContext {
  constructor(
    private readonly entries: HistoryIndex['entries'],
    /** The first entry after the latest compaction summary. */
    private readonly from: number,
    private readonly written: ReadonlySet<string> | undefined,
    private readonly recent: ReadonlySet<string> | undefined,
  ) {}

  has(at: number): boolean {
    if (at < this.from) return false;
    const file = this.entries[at]?.file;
    return typeof file === 'string' && (inSet(this.written, file) || inSet(this.recent, file));
  }
}

/** Whether a set of identities holds this file under this name or another of its names. */
function inSet(files: ReadonlySet<string> | undefined, file: string): boolean {
  if (files === undefined) return false;
  if (files.has(file)) return true;
  for (const other of files) if (sameFile(other, file)) return true;
  return false;
}

/** The index's file touches, brought up to its newest entry: each entry is looked at once. */
function fileTouchesOf(index: HistoryIndex): FileTouches {
  const touches = (index.fileTouches ??= { upTo: 0, from: 0, written: new Set() });
  const { entries, flags } = index;
  for (let at = touches.upTo; at < entries.length; at++) {
    const flag = flags[at]!;
    if ((flag & F_SUMMARY) !== 0) {
      // Only what follows the latest compaction summary counts.
      touches.written.clear();
      touches.from = at + 1;
      continue;
    }
    if ((flag & F_PROMPT) !== 0) continue;
    const entry = entries[at]!;
    const file = (entry.file = fileOfCall(entry.toolName, entry.call?.part.input) ?? null);
    if (file !== null && writesFile(entry.toolName!)) touches.written.add(file);
  }
  touches.upTo = entries.length;
  return touches;
}
