import type { Logger } from '../logger.js';
import type { HookFailure, MergedOutcome } from '../outcome.js';
import type { PointName } from '../points.js';
import type { EventLog } from '../state/types.js';
import type { PreparedHook } from './scopes.js';

/** How a host names one `emit` call in the engine's failure log lines. */
export interface EmitOptions {
  /** Put before each failure line, e.g. `[Task#12]`. */
  label?: string;
  /** Added to each failure line's details, e.g. `{ taskId, intentId }`. */
  details?: Record<string, unknown>;
  /**
   * The host's own deadline (e.g. the Agent SDK's matcher timeout, shorter than the hooks'):
   * once it aborts, the running hook is abandoned and the rest are skipped, each reported as a
   * `timeout` failure, and what finished is returned.
   */
  signal?: AbortSignal;
}

export interface FailureReporter {
  /** Records a failure in the outcome and reports it: one log line and one event-log record. */
  fail(merged: MergedOutcome, failure: HookFailure, sessionId: string, emitOptions: EmitOptions | undefined): Promise<void>;
  /** Reports a hook's outcome (or part of it) the engine refused. */
  invalid(
    merged: MergedOutcome,
    hook: PreparedHook,
    message: string,
    sessionId: string,
    emitOptions: EmitOptions | undefined,
  ): Promise<void>;
  /** Reports a failure of a hook the engine had already gone on without (it ran past its deadline). */
  late(failure: HookFailure, sessionId: string, point: PointName): Promise<void>;
}

/** How a failed hook is named: `plugin › hook on point`, or `plugin › point` for a hook named after its point. */
export const hookLabel = ({ pluginName, hookName }: Pick<HookFailure, 'pluginName' | 'hookName'>, point: string): string =>
  hookName === point ? `${pluginName} › ${point}` : `${pluginName} › ${hookName} on ${point}`;

/** The one place a hook failure is logged, so hosts never log it again. */
export function createFailureReporter(logger: Logger, eventLog: EventLog): FailureReporter {
  const report = async (failure: HookFailure, sessionId: string, point: PointName, emitOptions: EmitOptions | undefined) => {
    const label = emitOptions?.label ? `${emitOptions.label} ` : '';
    logger.warn(`${label}${hookLabel(failure, point)} failed: ${failure.message} (skipped)`, {
      ...emitOptions?.details,
      // A host that names its calls (an editor's output channel) gets the kind and the stack too;
      // a plain call (a hook process's stderr) keeps to one line.
      ...(emitOptions?.label !== undefined || emitOptions?.details !== undefined
        ? { kind: failure.kind, ...(failure.stack ? { stack: failure.stack } : {}) }
        : {}),
    });
    try {
      await eventLog.append({ type: 'hook:error', sessionId, point, ...failure });
    } catch (error) {
      logger.error(`could not write the event log: ${(error as Error).message}`);
    }
  };
  const fail: FailureReporter['fail'] = async (merged, failure, sessionId, emitOptions) => {
    merged.errors.push(failure);
    await report(failure, sessionId, merged.point, emitOptions);
  };
  return {
    fail,
    late: (failure, sessionId, point) =>
      report({ ...failure, message: `after its deadline: ${failure.message}` }, sessionId, point, undefined),
    invalid: (merged, hook, message, sessionId, emitOptions) =>
      fail(merged, { pluginName: hook.pluginName, hookName: hook.hookName, kind: 'invalid-outcome', message }, sessionId, emitOptions),
  };
}
