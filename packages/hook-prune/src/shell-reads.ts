/**
 * Files a shell command shows the text of: `cat`, `sed -n '120,155p'`, `head`, `tail`, `nl`,
 * `grep`/`rg` with a file argument, `awk`, PowerShell `Get-Content`/`gc`/`type`, each maybe after
 * `cd dir &&`. An edit quotes what the model last saw of a file, and agents view files through
 * the shell as often as through a read tool, so the keep rules count these as reads.
 * A plain word splitter, not a shell: `$(…)`, globs and variables are taken as written.
 */

/** A file a command shows, and the directory the command ran it in (`cd dir && …`), relative to the session's when not absolute. */
export interface ShellRead {
  file: string;
  directory: string | undefined;
}

// Where hosts' shell tools put the command: Claude Code and pi `command`, Codex `cmd`, OpenCode `command`.
const COMMAND_FIELDS = ['command', 'cmd', 'script'] as const;
const SHELL_TOOL =
  /^(bash|shell|sh|zsh|powershell|pwsh|cmd|terminal|run_shell_command|run_terminal_cmd|execute_command|exec_command|local_shell|run_command|shell_command)$/i;

/** Whether a tool runs shell commands (Claude Code `Bash`, `PowerShell`, OpenCode and pi `bash`, Gemini `run_shell_command`, …). */
export function isShellTool(toolName: string): boolean {
  return SHELL_TOOL.test(toolName);
}

/** The command text of a shell call's input, or undefined. */
export function commandOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  for (const field of COMMAND_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' && value !== '') return value;
    // Codex: `["bash", "-lc", "sed -n 1,40p src/x.rs"]`.
    if (Array.isArray(value) && value.every((item) => typeof item === 'string'))
      return value.length >= 3 && /^-l?c$/.test(value[1]!) ? value[2] : value.join(' ');
  }
  return undefined;
}

// Per program: options that take a value (the next word), and whether the first plain word is a script or pattern, not a file.
interface Viewer {
  valued: ReadonlySet<string>;
  script: boolean;
}
const viewer = (valued: string[], script = false): Viewer => ({ valued: new Set(valued), script });
const VIEWERS: Record<string, Viewer> = {
  cat: viewer([]),
  bat: viewer(['-r', '--line-range', '-l', '--language']),
  head: viewer(['-n', '-c']),
  tail: viewer(['-n', '-c']),
  nl: viewer(['-b', '-n', '-w', '-s', '-v', '-i']),
  less: viewer([]),
  more: viewer([]),
  sed: viewer(['-e', '-f', '-l'], true),
  awk: viewer(['-F', '-v', '-f'], true),
  gawk: viewer(['-F', '-v', '-f'], true),
  grep: viewer(['-e', '-f', '-A', '-B', '-C', '-m', '--include', '--exclude'], true),
  egrep: viewer(['-e', '-f', '-A', '-B', '-C', '-m'], true),
  rg: viewer(['-e', '-f', '-A', '-B', '-C', '-m', '-g', '--glob', '-t', '--type', '-T', '-M'], true),
  'get-content': viewer(['-totalcount', '-tail', '-head', '-first', '-last', '-encoding', '-readcount', '-delimiter']),
  gc: viewer(['-totalcount', '-tail', '-head', '-first', '-last', '-encoding']),
  type: viewer([]),
};
// Words that run the next word as the program.
const PREFIXES = new Set(['sudo', 'command', 'exec', 'time', 'nice']);

/** Words of a command, quotes removed, split into simple commands at `&&`, `||`, `;`, `|` and new lines. */
function simpleCommands(command: string): string[][] {
  const commands: string[][] = [];
  let words: string[] = [];
  let word = '';
  let inWord = false;
  const endWord = () => {
    if (inWord) words.push(word);
    word = '';
    inWord = false;
  };
  const endCommand = () => {
    endWord();
    if (words.length > 0) commands.push(words);
    words = [];
  };
  for (let at = 0; at < command.length; at++) {
    const char = command[at]!;
    if (char === "'" || char === '"') {
      const close = command.indexOf(char, at + 1);
      const end = close === -1 ? command.length : close;
      word += command.slice(at + 1, end);
      inWord = true;
      at = end;
    } else if (char === '\\' && at + 1 < command.length && command[at + 1] !== '\n' && /[ "'&|;]/.test(command[at + 1]!)) {
      word += command[++at];
      inWord = true;
    } else if (char === ' ' || char === '\t') endWord();
    else if (char === '\n' || char === ';' || char === '|' || (char === '&' && command[at + 1] === '&')) {
      if (char === '&' || (char === '|' && command[at + 1] === '|')) at++;
      endCommand();
    } else {
      word += char;
      inWord = true;
    }
  }
  endCommand();
  return commands;
}

const REDIRECT = /^\d*[<>]/;
// A glob, a variable or a directory names no one file.
const NOT_A_FILE = /[*?$`{}]|[\\/]$|^\.{1,2}$/;
// Searchers walk directories: an argument without an extension is most likely one (`src`, `docs/api`).
const SEARCHERS = new Set(['grep', 'egrep', 'rg']);
const HAS_EXTENSION = /\.[^\\/.]+$/;

/** The files a shell command shows the text of, in order, each with the directory a `cd` before it moved to. */
export function shellReads(command: string): ShellRead[] {
  const reads: ShellRead[] = [];
  let directory: string | undefined;
  for (const words of simpleCommands(command)) {
    let at = 0;
    while (at < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[at]!) || PREFIXES.has(words[at]!))) at++;
    const program = words[at]?.replace(/^.*[\\/]/, '').toLowerCase();
    if (program === undefined) continue;
    const args = words.slice(at + 1);
    if (program === 'cd' || program === 'pushd' || program === 'set-location') {
      const target = args.find((arg) => !arg.startsWith('-'));
      if (target !== undefined)
        directory = directory === undefined || /^([A-Za-z]:|[\\/])/.test(target) ? target : `${directory}/${target}`;
      continue;
    }
    const spec = VIEWERS[program];
    if (spec === undefined) continue;
    // `sed -i` edits in place: not a view.
    if (program === 'sed' && args.some((arg) => /^-[a-zA-Z]*i/.test(arg) || arg.startsWith('--in-place'))) continue;
    // `grep -r`: a search through a tree, not a view of a file.
    if (SEARCHERS.has(program) && args.some((arg) => /^-[a-zA-Z]*[rR]/.test(arg) || arg === '--recursive')) continue;
    let scriptGiven = !spec.script;
    for (let index = 0; index < args.length; index++) {
      const arg = args[index]!;
      if (REDIRECT.test(arg)) {
        // `> out`, `2> err`: the target is the next word unless joined.
        if (/^\d*[<>]+&?$/.test(arg)) index++;
        continue;
      }
      if (arg === '--') continue;
      if (arg.startsWith('-') && arg.length > 1) {
        const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg;
        const lower = name.toLowerCase();
        if (name === '-e' || name === '-f' || name === '--regexp' || name === '--file') scriptGiven = true;
        if (lower === '-path' || lower === '-literalpath') {
          if (!arg.includes('=') && index + 1 < args.length) reads.push({ file: args[++index]!, directory });
          continue;
        }
        if (!arg.includes('=') && (spec.valued.has(name) || spec.valued.has(lower))) index++;
        continue;
      }
      if (!scriptGiven) {
        scriptGiven = true;
        continue;
      }
      if (NOT_A_FILE.test(arg) || (SEARCHERS.has(program) && !HAS_EXTENSION.test(arg))) continue;
      reads.push({ file: arg, directory });
    }
  }
  return reads;
}
