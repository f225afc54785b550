import { addPreserved, joinText, noticeText, type MergedNotice, type MergedOutcome, type NoticeAction } from '../outcome.js';
import type { PointName } from '../points.js';
import type { PreparedHook } from './scopes.js';

/** A transforming point's field and the check its new value must pass. */
export interface TransformSpec {
  field: string;
  expected: string;
  accepts(value: unknown): boolean;
}

/** What merging one hook's result leaves to the emit loop. */
export interface MergeStep {
  /** The payload the next hook sees (a new object when the hook transformed it). */
  payload: Record<string, unknown>;
  /** The hook transformed the payload. */
  changed: boolean;
  /** The hook blocked a guard point: the chain ends here. */
  blocked: boolean;
  /** Parts of the outcome refused, each reported as an `invalid-outcome` failure, in order. */
  problems: string[];
}

/**
 * Merges one hook's result into `merged` by the rules in outcome.ts. Never throws: a result
 * the point does not allow is left out and described in `problems`.
 */
export function mergeOutcome(
  merged: MergedOutcome,
  hook: PreparedHook,
  result: unknown,
  payload: Record<string, unknown>,
  kind: string,
  transform: TransformSpec | undefined,
): MergeStep {
  const step: MergeStep = { payload, changed: false, blocked: false, problems: [] };
  if (result === undefined || result === null) return step;
  if (typeof result !== 'object') {
    step.problems.push(`returned ${typeof result}, expected an outcome object`);
    return step;
  }
  const point: PointName = merged.point;
  const outcome = result as {
    context?: unknown;
    notice?: unknown;
    block?: { reason?: unknown };
    value?: unknown;
    preserved?: unknown;
    measurements?: unknown;
  };
  if (typeof outcome.context === 'string') merged.context = joinText(merged.context, outcome.context, 'context');
  if (outcome.notice !== undefined) {
    const notice = noticeOf(hook, outcome.notice, step.problems);
    if (notice) {
      merged.notices.push(notice);
      merged.notice = joinText(merged.notice, notice.text, 'notice');
    }
  }
  if (outcome.measurements !== undefined) mergeMeasurements(merged, outcome.measurements, step.problems);
  if (Array.isArray(outcome.preserved))
    addPreserved(
      merged.preserved,
      outcome.preserved.filter((label): label is string => typeof label === 'string'),
    );
  if (transform && outcome.value !== undefined) {
    if (transform.accepts(outcome.value)) {
      step.payload = { ...payload, [transform.field]: outcome.value };
      step.changed = true;
    } else {
      step.problems.push(`value for ${point} must be ${transform.expected}`);
    }
  }
  if (outcome.block !== undefined) {
    if (kind !== 'guard') {
      step.problems.push(`${point} cannot be blocked; block ignored`);
    } else {
      const reason =
        typeof outcome.block?.reason === 'string' && outcome.block.reason !== '' ? outcome.block.reason : `blocked by ${hook.pluginName}`;
      merged.block = { reason, pluginName: hook.pluginName, hookName: hook.hookName };
      step.blocked = true;
    }
  }
  return step;
}

/** Adds a hook's measurements (finite numbers by name) to the merged outcome; anything else is refused. */
function mergeMeasurements(merged: MergedOutcome, raw: unknown, problems: string[]): void {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problems.push('measurements must be an object of numbers by name');
    return;
  }
  for (const [name, figure] of Object.entries(raw)) {
    if (typeof figure === 'number' && Number.isFinite(figure)) merged.measurements[name] = figure;
    else problems.push(`measurement "${name}" must be a finite number`);
  }
}

/**
 * Turns a hook's `notice` (text or a Notice) into a merged notice. Actions must name a
 * command the same plugin declares (or the `compact` host action); others are dropped and
 * reported, so a host never runs a command the plugin does not offer.
 */
function noticeOf(hook: PreparedHook, raw: unknown, problems: string[]): MergedNotice | undefined {
  const base = { pluginName: hook.pluginName, hookName: hook.hookName };
  if (typeof raw === 'string') return raw.trim() === '' ? undefined : { text: raw, statement: raw, about: [], actions: [], ...base };
  if (typeof raw !== 'object' || raw === null || typeof (raw as { text?: unknown }).text !== 'string') {
    if (raw !== undefined) problems.push('notice must be a string or { text, about?, actions? }');
    return undefined;
  }
  const { text, about, actions } = raw as { text: string; about?: unknown; actions?: unknown };
  if (text.trim() === '') return undefined;
  const declared = hook.plugin.instance?.definition.commands ?? [];
  const kept: NoticeAction[] = [];
  for (const action of Array.isArray(actions) ? actions : []) {
    const entry = action as { label?: unknown; command?: unknown; args?: unknown; note?: unknown; hostAction?: unknown };
    if (typeof entry?.label !== 'string' || entry.label === '') problems.push('a notice action needs a label');
    else if (entry.hostAction === 'compact') kept.push({ label: entry.label, hostAction: 'compact' });
    else if (typeof entry.command === 'string' && declared.some((command) => command.name === entry.command)) {
      const args = Array.isArray(entry.args) ? entry.args.filter((arg): arg is string => typeof arg === 'string') : undefined;
      const note = typeof entry.note === 'string' && entry.note !== '' ? entry.note : undefined;
      kept.push({ label: entry.label, command: entry.command, ...(args && args.length > 0 ? { args } : {}), ...(note ? { note } : {}) });
    } else problems.push(`notice action "${entry.label}" names no command of ${hook.pluginName}`);
  }
  if (about !== undefined && !(Array.isArray(about) && about.every((word) => typeof word === 'string')))
    problems.push('notice about must be a list of strings');
  const topics = Array.isArray(about) ? about.filter((word): word is string => typeof word === 'string' && word !== '') : [];
  return { text: noticeText({ text, actions: kept }), statement: text, about: topics, actions: kept, ...base };
}
