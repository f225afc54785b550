import { SyncGuard } from '../cpu-deadline.js';
import type { Engine } from '../engine.js';
import { useSynchronousReads } from '../state/regular-file.js';
import {
  CallDeadlineError,
  callScope,
  callTimeoutOf,
  flushState,
  logCliRecord,
  runHook,
  type EngineLoader,
  type RunProgress,
  type RunRequest,
  type RunResult,
} from './call.js';
import type { CommandHookHost } from './host.js';
import { describeError, escapeControl, realExit, writeAllSync } from './process-io.js';

/** Where a bin's uncaughtException / unhandledRejection listeners look for what to do. */
const ESCAPED_SLOT = Symbol.for('hookwise.escaped');

/**
 * Runs a hook call as the whole process and always ends it with exit code 0, within the call's
 * deadline ({@link callTimeoutOf}), which the call's {@link SyncGuard} holds:
 *
 * - stdout carries only the one result; anything plugins print goes to stderr
 *   (`process.stdout` is pointed at stderr here; fd 1 itself is moved by the bin);
 * - on the deadline, SIGTERM or SIGINT, the output of the plugins that finished is printed
 *   (when rendering was reached), one line on stderr says what did not finish, a `cli:timeout`
 *   or `cli:signal` record goes to the event log, and the process exits 0 at once;
 * - an error thrown or a promise rejected outside any hook (a plugin's stray timer) is
 *   reported in one line and does not end the call.
 */
export async function runHookProcess<Input>(host: CommandHookHost<Input>, request: RunRequest, loadEngine: EngineLoader): Promise<never> {
  // Lazily, through a getter, so that a call that prints nothing never builds the stdio
  // streams (on pipes that loads net and the stream modules).
  Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, get: () => process.stderr });
  // One hook at a time runs here: files are read with synchronous calls, and libuv's thread
  // pool (four threads) is never started for a transcript read (see useSynchronousReads).
  useSynchronousReads();
  const stdoutFd = request.stdoutFd ?? 1;
  const progress: RunProgress = { stage: 'reading input', event: request.event ?? '' };
  const timeoutMs = callTimeoutOf(request.env);
  const scope = callScope(new SyncGuard({ deadlineAt: Date.now() + timeoutMs }));
  let ending = false;

  const finish = (result: RunResult | undefined, extraLine?: string): never => {
    ending = true;
    const lines = [...(result?.stderr ?? []), ...(extraLine ? [extraLine] : [])];
    if (lines.length > 0) writeAllSync(2, lines.map((line) => `${escapeControl(line)}\n`).join(''));
    const stdout = result && result.stdout !== '' ? result.stdout : (host.emptyStdout ?? '');
    if (stdout !== '') writeAllSync(stdoutFd, stdout);
    return realExit(0);
  };

  /** Deadline or signal: print what finished, record what did not, exit 0 now. */
  const interrupt = (type: 'cli:timeout' | 'cli:signal', why: string, stuck?: CallDeadlineError): void => {
    if (ending) return;
    ending = true;
    const result = progress.result;
    const pending = pendingUpdates(progress.engine);
    const what =
      progress.stage === 'saving state' || progress.stage === 'waiting for hooks that ran past their deadline'
        ? `${progress.stage} (${pending} state update${pending === 1 ? '' : 's'} not written)`
        : progress.stage;
    const line = `hookwise run ${progress.event ?? ''}: ${why} while ${what}${stuck ? ` (${stuck.what})` : ''}; ${result ? 'printed what the plugins produced' : 'no plugin output to print'}, exit 0`;
    const record = {
      type,
      event: progress.event ?? null,
      ...(progress.sessionId ? { sessionId: progress.sessionId } : {}),
      stage: progress.stage,
      ...stuck?.details,
      pendingUpdates: pending,
      message: line,
    };
    // The log append is one synchronous write once its folder is checked; give it a moment, no more.
    const logged = progress.engine
      ? progress.engine.services.eventLog.append(record)
      : progress.projectDir
        ? logCliRecord(undefined, progress.projectDir, record, record.type)
        : Promise.resolve();
    const timer = setTimeout(() => finish(result, line), 100);
    void Promise.resolve(logged)
      .catch(() => undefined)
      .then(() => {
        clearTimeout(timer);
        ending = false; // finish() sets it again
        finish(result, line);
      });
  };

  const passedDeadline = `the call passed its ${timeoutMs} ms deadline (HOOKWISE_CALL_TIMEOUT_MS)`;
  const deadline = setTimeout(() => interrupt('cli:timeout', passedDeadline), timeoutMs);
  const onSignal = (signal: NodeJS.Signals) => interrupt('cli:signal', `stopped by ${signal}`);
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  const stray = (error: unknown) => {
    if (ending) return;
    writeAllSync(
      2,
      `${escapeControl(`hookwise run ${progress.event ?? ''}: plugin code failed outside a hook (ignored): ${describeError(error).slice(0, 500)}`)}\n`,
    );
  };
  // The bin's listeners call whatever its slot holds (cheaper than replacing them); without the bin, ours replace any.
  const slots = globalThis as Record<symbol, unknown>;
  if (typeof slots[ESCAPED_SLOT] === 'function') {
    slots[ESCAPED_SLOT] = stray;
  } else {
    process.removeAllListeners('uncaughtException');
    process.removeAllListeners('unhandledRejection');
    process.on('uncaughtException', stray);
    process.on('unhandledRejection', stray);
  }

  let result: RunResult;
  try {
    result = await runHook(host, request, loadEngine, progress, scope);
    if (progress.hookTimedOut && progress.engine) {
      // A hook past its own deadline was skipped, but it is still running: under heavy load
      // (hundreds of concurrent calls on two cores) that is often a hook that was only slow to
      // get CPU, and its state update would be lost if the process exited now. Let it finish:
      // wait until the event loop has nothing left to do ('beforeExit'; a hook that never
      // settles holds nothing, so this is immediate) or the call's deadline, then save state.
      progress.stage = 'waiting for hooks that ran past their deadline';
      deadline.unref();
      await new Promise<void>((resolve) => process.once('beforeExit', () => resolve()));
      deadline.ref();
      progress.stage = 'saving state';
      await flushState(progress.engine);
    }
  } catch (error) {
    if (error instanceof CallDeadlineError) {
      clearTimeout(deadline);
      interrupt('cli:timeout', passedDeadline, error);
      return new Promise<never>(() => {}); // interrupt prints and exits
    }
    result = { stdout: '', stderr: [`hookwise: internal error, nothing done: ${describeError(error)}`], exitCode: 0 };
  }
  // The deadline timer is left set: finish() ends the process now.
  if (ending) return new Promise<never>(() => {}); // an interrupt is already printing and exiting
  return finish(result);
}

function pendingUpdates(engine: Engine | undefined): number {
  const store = engine?.services.stateStore as { pending?: () => number } | undefined;
  return typeof store?.pending === 'function' ? store.pending() : 0;
}
