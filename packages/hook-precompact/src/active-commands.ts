import path from 'node:path';
import { HookwiseError } from '@hookwise/core';
import { resolveInside } from '@hookwise/core/plugin';
import { readRegularFile } from '@hookwise/core/fs';
import { assertCommandName, commandKey } from './command-files.js';
import { toSessionState, type StateTarget } from './state.js';

/** A command the user ran in this session whose summary must survive compaction. */
export interface ActiveCommand {
  /** As registered: `babysit`, `agileflow:story:list`. */
  name: string;
  /** The text after the command name (may be empty). */
  args: string;
  /** ISO-8601. */
  activatedAt: string;
  /** How it became active. */
  source: 'prompt' | 'api' | 'agileflow';
}

/** This plugin's per-session record (one document, so one atomic update covers it). */
export interface SessionRecord {
  commands?: ActiveCommand[];
  /** The block handed out at the last `compact:before`, handed back at `compact:after`. */
  lastPreserved?: { text: string; labels: string[]; at: string };
  /** What earlier hand-offs of this session said about the task, for hand-offs that do not. */
  handoff?: { taskId?: string; feature?: string; specPath?: string };
}

export interface ActivateOptions {
  /** Default: now. */
  activatedAt?: Date;
  source?: ActiveCommand['source'];
}

/**
 * Marks a command active in a session (what `prompt:submit` does for `/name args`, and
 * `hookwise command activate` for scripts). The same command twice is kept once, moved to the
 * end with the newer arguments. Throws UnsafeNameError for a name that could escape the
 * commands folder; nothing is stored then.
 */
export async function activateCommand(
  target: StateTarget,
  name: string,
  args = '',
  options: ActivateOptions = {},
): Promise<ActiveCommand[]> {
  assertCommandName(name);
  const entry: ActiveCommand = {
    name,
    args: typeof args === 'string' ? args.trim() : '',
    activatedAt: (options.activatedAt ?? new Date()).toISOString(),
    source: options.source ?? 'api',
  };
  const record = await toSessionState(target).update<SessionRecord>((current) => {
    const commands = (current?.commands ?? []).filter((existing) => commandKey(existing.name) !== commandKey(name));
    return { ...current, commands: [...commands, entry] };
  });
  return record.commands ?? [];
}

/** Removes a command from the session's active list; returns whether it was there. */
export async function deactivateCommand(target: StateTarget, name: string): Promise<boolean> {
  let removed = false;
  await toSessionState(target).update<SessionRecord>((current) => {
    const before = current?.commands ?? [];
    const commands = before.filter((existing) => commandKey(existing.name) !== commandKey(name));
    removed = commands.length !== before.length;
    return { ...current, commands };
  });
  return removed;
}

export async function listActiveCommands(target: StateTarget): Promise<ActiveCommand[]> {
  const record = await toSessionState(target).read<SessionRecord>();
  return Array.isArray(record?.commands) ? record.commands : [];
}

/** Empties the session's list (and forgets the last preserved block, which described it). */
export async function clearActiveCommands(target: StateTarget): Promise<void> {
  await toSessionState(target).update<SessionRecord>((current) => {
    const { lastPreserved: _dropped, ...rest } = current ?? {};
    return { ...rest, commands: [] };
  });
}

// ---------------------------------------------------------------------------------------------
// AgileFlow drop-in

export interface AgileflowCommand {
  name: string;
  type?: string;
}

/**
 * The `active_commands` of AgileFlow's session-state.json, in order. A missing file is no
 * commands; an unreadable one is reported through the returned `problem`.
 */
export async function readAgileflowCommands(
  projectDir: string,
  statePath: string,
): Promise<{ commands: AgileflowCommand[]; problem?: string }> {
  let text: string;
  try {
    text = await readRegularFile(resolveInside(projectDir, statePath));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { commands: [] };
    return { commands: [], problem: `cannot read ${statePath}: ${(error as Error).message}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { commands: [], problem: `${statePath} is not valid JSON: ${(error as Error).message}` };
  }
  const list = (parsed as { active_commands?: unknown })?.active_commands;
  if (!Array.isArray(list)) return { commands: [] };
  const commands: AgileflowCommand[] = [];
  for (const entry of list) {
    const name = (entry as { name?: unknown })?.name;
    if (typeof name !== 'string' || name === '') continue;
    const type = (entry as { type?: unknown }).type;
    commands.push(typeof type === 'string' ? { name, type } : { name });
  }
  return { commands };
}

/**
 * Leaves AgileFlow's handshake: its SessionStart script keeps `active_commands` only when
 * `last_precompact_at` is younger than 600 s, so without it an AgileFlow project that swaps
 * `precompact-context.sh` for hookwise would lose its commands right after every compaction.
 * Only an existing, valid file is touched; written to a temp file and renamed (atomic).
 */
export async function writeAgileflowPrecompactStamp(projectDir: string, statePath: string, now: Date): Promise<void> {
  const file = resolveInside(projectDir, statePath);
  let document: Record<string, unknown>;
  try {
    const parsed = JSON.parse(await readRegularFile(file)) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return;
    document = parsed as Record<string, unknown>;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw new HookwiseError(`cannot update ${statePath}: ${(error as Error).message}`, { code: 'HW_PRECOMPACT_AGILEFLOW', cause: error });
  }
  document.last_precompact_at = now.toISOString();
  // Loaded here: node:fs/promises is slow to load for every hook process, and only PreCompact writes this.
  const { rename, writeFile } = await import('node:fs/promises');
  const temporary = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${Date.now()}.tmp`);
  await writeFile(temporary, `${JSON.stringify(document, null, 2)}\n`, 'utf8');
  await rename(temporary, file);
}
