/** How long a hook call may run when neither the config (`hookTimeoutMs`) nor the host says. */
export const DEFAULT_HOOK_TIMEOUT_MS = 5_000;

/** Why a wait ended before its work: the deadline passed, or the caller's signal aborted. */
export type DeadlineCause = 'timeout' | 'abort';

export interface DeadlineOptions {
  /** Stop waiting when this aborts too (a host's own, shorter deadline). */
  signal?: AbortSignal | undefined;
  /**
   * Asked when the deadline falls due: while it answers true, the deadline moves on by another
   * `ms`. For time that is not the work's own, such as a hook waiting for a state lock that a
   * burst of concurrent hook processes holds in turn (the host's deadline still bounds it).
   */
  holdWhile?: (() => boolean) | undefined;
  /**
   * Keep the process alive until the deadline answers (a ref'd timer). For an in-process host
   * whose process ends once its event loop is empty (pi's print mode, a script awaiting a model
   * call): it would otherwise end silently while it waits for a hook that never settles.
   */
  keepAlive?: boolean | undefined;
}

/** The longest delay `setTimeout` takes as given; past it, Node fires at once. */
const MAX_TIMER_MS = 0x7fffffff;

/**
 * Waits for `work` at most `ms` milliseconds: core's one deadline, used by the engine for each
 * hook call and by hosts around whatever they wait for.
 *
 * Settles as the work does when it finishes first. Otherwise `onTimeout` decides: what it
 * returns is the result, what it throws is the rejection (`() => undefined` to go on without the
 * value, a throw to fail). A promise cannot be cancelled, so the work goes on unobserved; hand
 * it an AbortSignal of its own and abort that in `onTimeout` to stop it.
 *
 * `work` may be a function: it is called here, a throw becomes the rejection, and it is not
 * called at all when `signal` has already aborted. `ms` of `Infinity` waits with no deadline
 * (the signal alone can end it); other values are held to what a timer can time (1 ms to about
 * 24.8 days). The timer is unref'd — a pending deadline never keeps a process alive — unless
 * `keepAlive` asks for the other variant.
 */
export function withDeadline<T, F>(
  work: PromiseLike<T> | (() => T | PromiseLike<T>),
  ms: number,
  onTimeout: (cause: DeadlineCause) => F,
  options: DeadlineOptions = {},
): Promise<T | F> {
  const signal = options.signal;
  return new Promise<T | F>((resolve, reject) => {
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (): boolean => {
      if (done) return false;
      done = true;
      if (timer !== undefined) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const stop = (cause: DeadlineCause): void => {
      if (!finish()) return;
      try {
        resolve(onTimeout(cause));
      } catch (error) {
        reject(error);
      }
    };
    const onAbort = (): void => stop('abort');

    if (signal?.aborted) return stop('abort');
    const arm = (): void => {
      timer = setTimeout(() => (options.holdWhile?.() ? arm() : stop('timeout')), Math.min(MAX_TIMER_MS, Math.max(1, Math.ceil(ms))));
      if (options.keepAlive !== true) timer.unref?.();
    };
    if (ms !== Number.POSITIVE_INFINITY) arm();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const running = typeof work === 'function' ? work() : work;
      // Promise.resolve adopts a thenable, so a `then` that throws is a rejection too.
      Promise.resolve(running).then(
        (value) => void (finish() && resolve(value)),
        (error: unknown) => void (finish() && reject(error)),
      );
    } catch (error) {
      if (finish()) reject(error);
    }
  });
}

/**
 * Runs `work` with a signal that aborts `ms` from now or when `options.signal` does: for work
 * that stops itself when told and gives what it has (an emit, which returns the outcome of the
 * hooks that finished). The wait goes on until the work settles; the timer ends with it.
 */
export function withDeadlineSignal<T>(
  ms: number,
  work: (signal: AbortSignal) => PromiseLike<T>,
  options: Pick<DeadlineOptions, 'signal' | 'keepAlive'> = {},
): Promise<T> {
  const controller = new AbortController();
  let running: Promise<T>;
  try {
    running = Promise.resolve(work(controller.signal));
  } catch (error) {
    running = Promise.reject(error);
  }
  return withDeadline(
    running,
    ms,
    (cause) => (
      controller.abort(cause === 'abort' ? options.signal?.reason : new DOMException(`no answer within ${ms} ms`, 'TimeoutError')), running
    ),
    options,
  ) as Promise<T>;
}

/**
 * A signal that aborts `ms` from now, on core's deadline: for a call that takes a signal and
 * whose promise the caller does not wait for (a request to the host's own UI). Like
 * {@link withDeadline}'s timer it never keeps a process alive.
 */
export function deadlineSignal(ms: number): AbortSignal {
  const controller = new AbortController();
  void withDeadline(new Promise<never>(() => undefined), ms, () =>
    controller.abort(new DOMException(`no answer within ${ms} ms`, 'TimeoutError')),
  );
  return controller.signal;
}

/**
 * When to stop waiting for work that a host cuts at `limitMs` (the Agent SDK's matcher timeout,
 * which loses the whole output): early enough to hand back what finished — a quarter of the
 * limit, 250 ms to 1 s before it.
 */
export function deadlineBefore(limitMs: number): number {
  return Math.max(0, limitMs - Math.min(1000, Math.max(250, limitMs / 4)));
}
