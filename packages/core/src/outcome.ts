import type { PointName, TransformValues } from './points.js';

interface BaseOutcome {
  /** Text for the model. */
  context?: string;
  /** Text for the user. */
  notice?: string;
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

/** What a hook on point P may return. The point's kind decides which fields exist. */
export type OutcomeOf<P extends PointName> = P extends keyof TransformValues
  ? TransformOutcome<TransformValues[P]>
  : P extends 'prompt:submit' | 'tool:before' | 'compact:before' | 'agent:stop'
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
  notice?: string;
  block?: { reason: string; pluginName: string; hookName: string };
  /** The final value of a transforming point, present only when some hook changed it. */
  value?: P extends keyof TransformValues ? TransformValues[P] : never;
  preserved: string[];
  /** Hooks that threw, timed out or returned something unusable: reported, then skipped. */
  errors: HookFailure[];
  hooksRun: number;
}

/**
 * The merge rules, in one place:
 * - contexts are joined in hook order with a blank line between them;
 * - notices are joined in hook order with a newline;
 * - preserved labels are concatenated in order without duplicates;
 * - the first block wins (and the engine stops running guard hooks after it);
 * - transforms chain: each hook sees the value the previous one returned; the last is the result.
 */
export const mergeRules = {
  contextSeparator: '\n\n',
  noticeSeparator: '\n',
  joinText(previous: string | undefined, next: string | undefined, separator: string): string | undefined {
    if (next === undefined || next.trim() === '') return previous;
    return previous === undefined ? next : `${previous}${separator}${next}`;
  },
  addPreserved(into: string[], labels: readonly string[] | undefined): void {
    if (!labels) return;
    for (const label of labels) if (!into.includes(label)) into.push(label);
  },
} as const;
