import { lstatSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UnsafeNameError } from '@hookwise/core';
import { assertSafeName, resolveInside } from '@hookwise/core/plugin';
import { readRegularFile } from '@hookwise/core/fs';

/**
 * Turning a command name into a file on a search path, without ever leaving the search folders.
 *
 * Names arrive from prompts (`/agileflow:story:list`), from scripts (`hookwise command activate`)
 * and from AgileFlow's session-state.json, so they are untrusted: `../etc/passwd`, absolute
 * paths, NUL bytes and symlinks pointing out of a commands folder are refused.
 */

/** One folder searched for `<name>.md`. */
export interface CommandFolder {
  /** Absolute, relative to the project, or starting with `~/` (the user's home). */
  path: string;
  /**
   * Claude Code prefixes commands of a sub-folder with its name (`.claude/commands/agileflow/babysit.md`
   * runs as `/agileflow:babysit`). In a folder with a namespace, `<namespace>:<rest>` is looked up
   * as `<rest>`, so AgileFlow's own folders find `agileflow:story:list` as `story/list.md`.
   */
  namespace?: string;
  /** The command files' extension, default `.md` (Gemini CLI's commands are `<name>.toml`). */
  extension?: string;
}

/**
 * The project's and the user's Claude Code commands, OpenCode's (`.opencode/command/<name>.md`
 * in the project and in its user config folder, `~/.config/opencode`), Kilo's (`.kilo/command`,
 * `~/.config/kilo/command`, and the `commands` spelling), pi's prompt templates
 * (`.pi/prompts/<name>.md`, `~/.pi/agent/prompts`), Gemini CLI's (`.gemini/commands/<name>.toml`,
 * whose `prompt` holds the markers), Codex's custom prompts (`/prompts:<name>` from
 * `~/.codex/prompts/<name>.md`, and a project's `.codex/prompts`), then AgileFlow's three
 * folders in AgileFlow's order.
 */
export const DEFAULT_COMMAND_FOLDERS: readonly CommandFolder[] = [
  { path: '.claude/commands' },
  { path: '~/.claude/commands' },
  { path: '.opencode/command' },
  { path: '.opencode/commands' },
  { path: '~/.config/opencode/command' },
  { path: '~/.config/opencode/commands' },
  { path: '.kilo/command' },
  { path: '.kilo/commands' },
  { path: '~/.config/kilo/command' },
  { path: '~/.config/kilo/commands' },
  { path: '.pi/prompts' },
  { path: '~/.pi/agent/prompts' },
  { path: '.gemini/commands', extension: '.toml' },
  { path: '~/.gemini/commands', extension: '.toml' },
  { path: '.codex/prompts', namespace: 'prompts' },
  { path: '~/.codex/prompts', namespace: 'prompts' },
  { path: 'packages/cli/src/core/commands', namespace: 'agileflow' },
  { path: '.agileflow/commands', namespace: 'agileflow' },
  { path: '.claude/commands/agileflow', namespace: 'agileflow' },
];

const ALLOWED_NAME = /^[A-Za-z0-9:/_.-]+$/;
export const MAX_COMMAND_NAME_LENGTH = 128;

/**
 * Returns the name when it may be used as a command name; throws UnsafeNameError (with the
 * reason) otherwise. Accepts `story:list` and AgileFlow's `story/list` spelling.
 */
export function assertCommandName(name: unknown): string {
  if (typeof name !== 'string') return assertSafeName(name, 'command name');
  if (name.includes('\u0000')) throw new UnsafeNameError('command name', name, 'contains a NUL character');
  if (name.startsWith('/')) throw new UnsafeNameError('command name', name, 'is an absolute path');
  if (name.includes('..')) throw new UnsafeNameError('command name', name, 'contains ".."');
  if (!ALLOWED_NAME.test(name)) {
    const bad = /[^A-Za-z0-9:/_.-]/.exec(name)?.[0] ?? '';
    throw new UnsafeNameError(
      'command name',
      name,
      `contains ${JSON.stringify(bad)}; only letters, digits and ":" "/" "_" "." "-" are allowed`,
    );
  }
  // Core's rules on top: length, empty or "." segments, a drive letter.
  assertSafeName(commandRelativePath(name), 'command name', { allowSlash: true, maxLength: MAX_COMMAND_NAME_LENGTH });
  return name;
}

/** `a:b` and `a/b` both mean `a/b` (no extension). */
function commandRelativePath(name: string): string {
  return name.replaceAll(':', '/');
}

/** The name as Claude Code shows it: colons between segments. */
export function displayCommandName(name: string): string {
  return name.replaceAll('/', ':');
}

/** The same command spelled `story/list` or `story:list` is one command. */
export function commandKey(name: string): string {
  return displayCommandName(name);
}

export function expandHome(folder: string, homeDir: string = os.homedir()): string {
  if (folder === '~') return homeDir;
  if (folder.startsWith('~/') || folder.startsWith('~\\')) return path.join(homeDir, folder.slice(2));
  return folder;
}

export type CommandLookup =
  | { found: true; file: string; folder: string; markdown: string }
  | { found: false; refused?: string; searched: string[] };

/**
 * Finds `<name>.md` (or the folder's extension) on the search path; the first folder that has it wins. A name or a path that
 * resolves outside its folder (symlinks included) is refused with the reason.
 */
export async function findCommandFile(
  name: string,
  folders: readonly CommandFolder[],
  options: { projectDir: string; homeDir?: string },
): Promise<CommandLookup> {
  try {
    assertCommandName(name);
  } catch (error) {
    return { found: false, refused: (error as Error).message, searched: [] };
  }
  const searched: string[] = [];
  let refused: string | undefined;
  const seen = new Map<string, PathKind>();
  for (const folder of folders) {
    const root = path.resolve(options.projectDir, expandHome(folder.path, options.homeDir));
    let relative = commandRelativePath(name);
    if (folder.namespace && relative.startsWith(`${folder.namespace}/`)) relative = relative.slice(folder.namespace.length + 1);
    const candidate = `${relative}${folder.extension ?? '.md'}`;
    searched.push(path.join(root, candidate));
    // Most folders of the search path do not exist. When nothing is at the folder and the
    // nearest thing above it is a plain folder, no file can be there and resolveInside would
    // find nothing to refuse (a name that passed assertCommandName passes its other checks):
    // the folder is skipped for a few lstat calls instead of two walks and a realpath.
    if (absentBelowPlainFolder(root, seen)) continue;
    let file: string;
    try {
      file = resolveInside(root, candidate);
    } catch (error) {
      if (UnsafeNameError.isInstance(error)) {
        // Keep looking: another folder may hold a genuine file. The refusal is still reported.
        refused ??= `${(error as Error).message} (in ${root})`;
        continue;
      }
      throw error;
    }
    // A folder without the file: a synchronous look first spares it an asynchronous open (a
    // thread-pool round trip). Any other answer leaves the decision to the read below, as before.
    if (isMissing(file)) continue;
    let markdown: string;
    try {
      // Not readFile: a FIFO planted as a command file would block the hook process for good.
      markdown = await readRegularFile(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') continue;
      if (code === 'HW_NOT_REGULAR_FILE') {
        refused ??= (error as Error).message;
        continue;
      }
      throw error;
    }
    return { found: true, file, folder: root, markdown };
  }
  return refused === undefined ? { found: false, searched } : { found: false, refused, searched };
}

/** True when nothing is at `file` (ENOENT) or a part of its path is no folder (ENOTDIR). */
function isMissing(file: string): boolean {
  try {
    // No exception (and no stack trace to build) for the usual ENOENT.
    return statSync(file, { throwIfNoEntry: false }) === undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR';
  }
}

type PathKind = 'absent' | 'folder' | 'other';

/** What `lstat` finds at `file` (a link is 'other'; so is an error such as ENOTDIR), remembered in `known`. */
function kindOf(file: string, known: Map<string, PathKind>): PathKind {
  let kind = known.get(file);
  if (kind === undefined) {
    try {
      const stats = lstatSync(file, { throwIfNoEntry: false });
      kind = stats === undefined ? 'absent' : stats.isDirectory() ? 'folder' : 'other';
    } catch {
      kind = 'other';
    }
    known.set(file, kind);
  }
  return kind;
}

/**
 * True when nothing is at `folder` and the nearest existing path above it is a folder, not a
 * link or anything else. `known` holds what one lookup has seen (the search path's folders share
 * their parents). Any other answer is false: the full checks decide.
 */
function absentBelowPlainFolder(folder: string, known: Map<string, PathKind>): boolean {
  if (kindOf(folder, known) !== 'absent') return false;
  for (let current = folder; ; ) {
    const parent = path.dirname(current);
    if (parent === current) return false;
    const kind = kindOf(parent, known);
    if (kind !== 'absent') return kind === 'folder';
    current = parent;
  }
}
