import type { GuardPoint, PointName, TransformPoint, TransformValues } from './points.js';

/**
 * Something a notice offers the user. `command` names one of the plugin's own declared
 * commands (`definePlugin({ commands })`): hosts run it through `engine.runCommand(command,
 * args, { sessionId })` without knowing the plugin. `hostAction: 'compact'` asks the host to
 * compact the context now; hosts that cannot leave it out.
 */
export type NoticeAction = { label: string; command: string; args?: string[] } | { label: string; hostAction: 'compact' };

/** A notice with structure: what it is about (`kind`, the plugin's own word) and what it offers. */
export interface Notice {
  text: string;
  /** What the notice is about, in the plugin's words (hook-suggest: `capacity`, `tool-calls`). */
  kind?: string;
  actions?: NoticeAction[];
}

/** A notice in a merged outcome, with the hook it came from. */
export interface MergedNotice extends Notice {
  pluginName: string;
  hookName: string;
  actions: NoticeAction[];
}

interface BaseOutcome {
  /** Text for the model. */
  context?: string;
  /** For the user: text, or a Notice with its kind and actions. */
  notice?: string | Notice;
  /** On `compact:before`: short labels of what this hook made survive compaction (e.g. `/babysit`). */
  preserved?: string[];
}
export type ObserveOutcome = BaseOutcome;
export interface GuardOutcome extends BaseOutcome {
  block?: { reason: string };
}
export interface TransformOutcome<V> extends BaseOutcome {
  value?: V;
}

/** What a hook on point P may return. The point's kind (in the point table) decides which fields exist. */
export type OutcomeOf<P extends PointName> = P extends TransformPoint ? TransformOutcome<TransformValues[P]> : P extends GuardPoint ? GuardOutcome : ObserveOutcome;

export interface HookFailure {
  pluginName: string;
  hookName: string;
  kind: 'error' | 'timeout' | 'invalid-outcome' | 'invalid-payload';
  message: string;
  stack?: string;
}

/** The one outcome `emit` returns: every hook's outcome merged by the rules below. */
export interface MergedOutcome<P extends PointName = PointName> {
  point: P;
  context?: string;
  /** Every notice's text, joined. */
  notice?: string;
  /** The notices one by one, with kind, actions and the hook each came from. */
  notices: MergedNotice[];
  block?: { reason: string; pluginName: string; hookName: string };
  /** The final value of a transforming point, present only when some hook changed it. */
  value?: P extends TransformPoint ? TransformValues[P] : never;
  preserved: string[];
  /** Hooks that threw, timed out or returned something unusable: reported, then skipped. */
  errors: HookFailure[];
  hooksRun: number;
}

/**
 * The merge rules, in one place (the engine merges with them; hosts that join outcomes of
 * several points use `joinText`):
 * - contexts are joined in hook order with a blank line between them;
 * - notices are joined in hook order with a newline;
 * - preserved labels are concatenated in order without duplicates;
 * - the first block wins (and the engine stops running guard hooks after it);
 * - transforms chain: each hook sees the value the previous one returned; the last is the result.
 */
const separators = { context: '\n\n', notice: '\n' } as const;

/** Two contexts (or notices) joined the way the engine joins them; blank text adds nothing. */
export function joinText(previous: string | undefined, next: string | undefined, field: 'context' | 'notice'): string | undefined {
  if (next === undefined || next.trim() === '') return previous;
  return previous === undefined ? next : `${previous}${separators[field]}${next}`;
}

export function addPreserved(into: string[], labels: readonly string[] | undefined): void {
  if (!labels) return;
  for (const label of labels) if (!into.includes(label)) into.push(label);
}
