import path from 'node:path';
import type { SessionState, StateStore } from '@hookwise/core';
import { assertSafeName, resolveInside } from '@hookwise/core/plugin';
import { openRegularFile } from '@hookwise/core/fs';
import { PLUGIN_NAME } from './meta.js';
import { toProjectState } from './state.js';

/**
 * An intent's history, from two sources that share one shape here:
 * - hookwise's own trace, recorded on `tool:after` while an intent is selected;
 * - the Roo Code fork's append-only ledger (`.orchestration/agent_trace.jsonl`, `AgentTraceEntry`).
 * Every field is optional: the fork wrote entries of many kinds (state transitions, hook
 * warnings) and its own summariser failed on the first entry lacking `payload` or `result`.
 */
export interface TraceEntry {
  /** ISO-8601. */
  time?: string;
  /** `write_to_file`, `Edit`, or the hook that wrote the entry. */
  tool?: string;
  /** The ledger's `action_type` (`TOOL_EXECUTION`, `STATE_TRANSITION`, `MUTATION_CONFLICT`, …). */
  action?: string;
  files: string[];
  /** True when the action changes files (or tried to). */
  mutation: boolean;
  /** `SUCCESS`, `FAILURE`, `DENIED`, `WARNING`, … as the source wrote it. */
  status?: string;
  source: 'hookwise' | 'ledger';
}

/** What hookwise stores per tool call: tool, target files, mutation or read, ok/failed, time. */
export interface StoredTraceEntry {
  time: string;
  tool: string;
  files: string[];
  mutation: boolean;
  ok: boolean;
}

/** The project-wide record: which intent is selected. */
export interface ProjectRecord {
  activeIntent?: { id: string; selectedAt: string };
}

type ProjectTarget = SessionState | { stateStore: StateStore; sessionId?: string };

export function assertIntentId(id: unknown): string {
  return assertSafeName(id, 'intent id');
}

/**
 * Selects the project's active intent (`hookwise intent select <id>`). The selection is per
 * project, not per session: an intent outlives the session that started it, and a new session
 * after `/clear` or a restart should still summarise it.
 */
export async function selectIntent(target: ProjectTarget, intentId: string, options: { selectedAt?: Date } = {}): Promise<void> {
  assertIntentId(intentId);
  const selectedAt = (options.selectedAt ?? new Date()).toISOString();
  await toProjectState(target).update<ProjectRecord>((current) => ({ ...current, activeIntent: { id: intentId, selectedAt } }));
}

export async function clearIntent(target: ProjectTarget): Promise<void> {
  await toProjectState(target).update<ProjectRecord>((current) => {
    const { activeIntent: _dropped, ...rest } = current ?? {};
    return rest;
  });
}

export async function getSelectedIntent(target: ProjectTarget): Promise<string | undefined> {
  const record = await toProjectState(target).read<ProjectRecord>();
  const id = record?.activeIntent?.id;
  return typeof id === 'string' ? id : undefined;
}

/** One namespace per intent: traces of different intents never contend for one lock. */
export function traceNamespace(intentId: string): string {
  return `${PLUGIN_NAME}/trace/${assertIntentId(intentId)}`;
}

export async function appendTraceEntry(target: ProjectTarget, intentId: string, entry: StoredTraceEntry, limit: number): Promise<void> {
  await toProjectState(target).update<{ entries?: StoredTraceEntry[] }>((current) => {
    const entries = [...(Array.isArray(current?.entries) ? current.entries : []), entry];
    return { entries: entries.slice(-limit) };
  }, traceNamespace(intentId));
}

export async function readStoredTrace(target: ProjectTarget, intentId: string): Promise<TraceEntry[]> {
  const record = await toProjectState(target).read<{ entries?: unknown }>(traceNamespace(intentId));
  if (!Array.isArray(record?.entries)) return [];
  return record.entries.filter(isObject).map((entry) => ({
    ...(typeof entry.time === 'string' ? { time: entry.time } : {}),
    ...(typeof entry.tool === 'string' ? { tool: entry.tool } : {}),
    files: stringList(entry.files),
    mutation: entry.mutation === true,
    ...(typeof entry.ok === 'boolean' ? { status: entry.ok ? 'SUCCESS' : 'FAILURE' } : {}),
    source: 'hookwise' as const,
  }));
}

/** The file paths a tool call targets, from the input fields Claude Code's and Roo Code's tools use. */
export function targetFilesOf(input: unknown, projectDir: string): string[] {
  if (!isObject(input)) return [];
  const files: string[] = [];
  for (const key of ['file_path', 'notebook_path', 'path', 'filePath', 'target_file']) {
    const value = input[key];
    if (typeof value === 'string' && value !== '') files.push(value);
  }
  for (const key of ['files', 'paths', 'target_files']) {
    for (const value of Array.isArray(input[key]) ? (input[key] as unknown[]) : []) {
      if (typeof value === 'string' && value !== '') files.push(value);
      else if (isObject(value) && typeof value.path === 'string') files.push(value.path);
    }
  }
  // Paths inside the project are shown relative to it: shorter, and the same as the ledger's.
  const shown = files.map((file) => {
    if (!path.isAbsolute(file)) return file;
    const relative = path.relative(projectDir, file);
    return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
  });
  return [...new Set(shown)].slice(0, 20);
}

// ---------------------------------------------------------------------------------------------
// The Roo Code fork's ledger

/** `mutation_class` values that mean a file was (meant to be) changed; `OBSERVATIONAL` and `N/A` are not. */
const MUTATION_CLASSES = new Set(['AST_REFACTOR', 'INTENT_EVOLUTION', 'STALE_FILE_CONFLICT']);

/** Turns one `AgentTraceEntry` into a TraceEntry; undefined when the line is not an object. */
export function fromAgentTraceEntry(raw: unknown, mutatingTools: ReadonlySet<string>): TraceEntry | undefined {
  if (!isObject(raw)) return undefined;
  const payload = isObject(raw.payload) ? raw.payload : {};
  const result = isObject(raw.result) ? raw.result : {};
  const files = new Set<string>();
  for (const file of [...stringList(payload.target_files), payload.target_file, payload.file, ...rangeFiles(raw.ranges)]) {
    if (typeof file === 'string' && file !== '' && file.toLowerCase() !== 'n/a') files.add(file);
  }
  const tool = typeof payload.tool_name === 'string' && payload.tool_name !== '' ? payload.tool_name : undefined;
  const mutationClass = typeof raw.mutation_class === 'string' ? raw.mutation_class : undefined;
  // A hook's observation about a written file (SCOPE_WARNING, OBSERVATIONAL) names the file but changed nothing.
  const mutation =
    (tool !== undefined && mutatingTools.has(tool)) ||
    (mutationClass !== undefined && MUTATION_CLASSES.has(mutationClass) && files.size > 0);
  return {
    ...(typeof raw.timestamp === 'string' ? { time: raw.timestamp } : {}),
    ...(tool !== undefined ? { tool } : {}),
    ...(typeof raw.action_type === 'string' ? { action: raw.action_type } : {}),
    files: [...files],
    mutation,
    ...(typeof result.status === 'string' ? { status: result.status } : {}),
    source: 'ledger',
  };
}

export interface LedgerRead {
  /** Entries of the intent, in file order. */
  entries: TraceEntry[];
  /** Lines that were not JSON objects (skipped). */
  malformed: number;
  /** True when only the file's tail was read. */
  partial: boolean;
}

/**
 * Reads the entries of one intent from the ledger. The ledger only grows, and a summary needs its
 * end, so only the last `maxBytes` are read (the first, possibly partial, line of that tail is
 * dropped). A missing ledger is an empty history.
 */
export async function readLedger(
  projectDir: string,
  ledgerPath: string,
  intentId: string,
  options: { maxBytes: number; mutatingTools: ReadonlySet<string> },
): Promise<LedgerRead> {
  const file = resolveInside(projectDir, ledgerPath);
  let handle;
  try {
    handle = await openRegularFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { entries: [], malformed: 0, partial: false };
    throw error;
  }
  let text: string;
  let partial = false;
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, options.maxBytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    text = buffer.toString('utf8');
    if (length < size) {
      partial = true;
      text = text.slice(text.indexOf('\n') + 1);
    }
  } finally {
    await handle.close();
  }
  const entries: TraceEntry[] = [];
  let malformed = 0;
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      malformed++;
      continue;
    }
    if (!isObject(raw)) {
      malformed++;
      continue;
    }
    if (raw.intent_id !== intentId) continue;
    const entry = fromAgentTraceEntry(raw, options.mutatingTools);
    if (entry) entries.push(entry);
  }
  return { entries, malformed, partial };
}

/**
 * Both sources in time order. Each source is already in order; entries without a time keep
 * their place behind the entry before them in the same source.
 */
export function mergeTraces(first: readonly TraceEntry[], second: readonly TraceEntry[]): TraceEntry[] {
  if (first.length === 0) return [...second];
  if (second.length === 0) return [...first];
  const keyed = (entries: readonly TraceEntry[], sourceRank: number) => {
    let last = Number.NEGATIVE_INFINITY;
    return entries.map((entry, index) => {
      const parsed = entry.time ? Date.parse(entry.time) : Number.NaN;
      if (!Number.isNaN(parsed)) last = parsed;
      return { entry, time: last, sourceRank, index };
    });
  };
  return [...keyed(first, 0), ...keyed(second, 1)]
    .sort((left, right) => left.time - right.time || left.sourceRank - right.sourceRank || left.index - right.index)
    .map(({ entry }) => entry);
}

function rangeFiles(ranges: unknown): unknown[] {
  if (Array.isArray(ranges)) return ranges.map((range) => (isObject(range) ? range.file : undefined));
  return isObject(ranges) ? [ranges.file] : [];
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
