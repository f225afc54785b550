import type { GuardPoint, PointName, TransformPoint, TransformValues } from './points.js';

/**
 * Something a notice offers the user. `command` names one of the plugin's own declared
 * commands (`definePlugin({ commands })`): hosts run it through `engine.runCommand(command,
 * args, { sessionId })` without knowing the plugin; `note` says what it does this time
 * (`quiet until 80%`). `hostAction: 'compact'` asks the host to compact the context now; hosts
 * that cannot leave it out. Hosts word the actions: a plugin never names a host's syntax.
 */
export type NoticeAction = { label: string; command: string; args?: string[]; note?: string } | { label: string; hostAction: 'compact' };

/** A notice with structure: what it states, what it is about and what it offers. */
export interface Notice {
  /** The statement, without the offers (hosts add those in their own words). */
  text: string;
  /**
   * What the notice is about, as data the report and hosts read (hook-suggest: `['capacity']`,
   * `['tool-calls']`, or both).
   */
  about?: string[];
  actions?: NoticeAction[];
}

/** A notice in a merged outcome, with the hook it came from. */
export interface MergedNotice {
  /** The statement followed by its offers in host-neutral words ({@link noticeText}). */
  text: string;
  /** The plugin's statement alone, for a host that words the offers itself. */
  statement: string;
  about: string[];
  actions: NoticeAction[];
  pluginName: string;
  hookName: string;
}

/** What one hook measured, for the later hooks of the same emit and the host (`{ contextTokens: 120000 }`). */
export type Measurements = Record<string, number>;

/** How a host words the offers of a notice: `compact` replaces the host-neutral call to compact. */
export interface NoticeWording {
  compact?: string;
}

/** How a command is typed on the command line (`hookwise suggest dismiss`). */
export const commandLine = (action: { command: string; args?: string[] }): string =>
  ['hookwise', action.command, ...(action.args ?? [])].join(' ');

/**
 * A notice as one line of text: the statement, then each offer — the compact action as a call
 * to compact (in the host's words when given), a command as its command line with its note.
 */
export function noticeText(notice: { text: string; actions?: readonly NoticeAction[] }, wording: NoticeWording = {}): string {
  const parts = [notice.text];
  for (const action of notice.actions ?? []) {
    if ('hostAction' in action) parts.push(wording.compact ?? 'Consider compacting the context now.');
    else parts.push(`(${commandLine(action)}${action.note ? `: ${action.note}` : ''})`);
  }
  return parts.join(' ');
}

interface BaseOutcome {
  /** Text for the model. */
  context?: string;
  /** For the user: text, or a Notice with its kind and actions. */
  notice?: string | Notice;
  /** On `compact:before`: short labels of what this hook made survive compaction (e.g. `/babysit`). */
  preserved?: string[];
  /**
   * Figures this hook measured (`{ contextTokens: 120000 }`): later hooks of the same emit read
   * them as `context.measurements`, the host as the merged outcome's `measurements`. Payloads
   * are never changed; a later hook's figure replaces an earlier one of the same name.
   */
  measurements?: Measurements;
}
export type ObserveOutcome = BaseOutcome;
export interface GuardOutcome extends BaseOutcome {
  block?: { reason: string };
}
export interface TransformOutcome<V> extends BaseOutcome {
  value?: V;
}

/** What a hook on point P may return. The point's kind (in the point table) decides which fields exist. */
export type OutcomeOf<P extends PointName> = P extends TransformPoint
  ? TransformOutcome<TransformValues[P]>
  : P extends GuardPoint
    ? GuardOutcome
    : ObserveOutcome;

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
  /** The notices one by one, with what each is about, its actions and the hook it came from. */
  notices: MergedNotice[];
  block?: { reason: string; pluginName: string; hookName: string };
  /** The final value of a transforming point, present only when some hook changed it. */
  value?: P extends TransformPoint ? TransformValues[P] : never;
  preserved: string[];
  /** Every hook's measurements, merged in hook order. */
  measurements: Measurements;
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
 * - transforms chain: each hook sees the value the previous one returned; the last is the result;
 * - measurements merge by name, a later hook's figure replacing an earlier one.
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
