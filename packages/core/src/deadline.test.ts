import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_HOOK_TIMEOUT_MS, deadlineBefore, withDeadline, withDeadlineSignal } from './deadline.js';

const never = () => new Promise<never>(() => {});

describe('withDeadline', () => {
  afterEach(() => void vi.useRealTimers());

  it('settles as the work does when it finishes first, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    const onTimeout = vi.fn(() => 'late');
    await expect(withDeadline(Promise.resolve(7), 1_000, onTimeout)).resolves.toBe(7);
    await expect(withDeadline(Promise.reject(new Error('failed')), 1_000, onTimeout)).rejects.toThrow('failed');
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(onTimeout).not.toHaveBeenCalled();
  });

  it('past the deadline, resolves with what onTimeout returns, or rejects with what it throws', async () => {
    vi.useFakeTimers();
    const onTimeout = vi.fn(() => undefined);
    const quiet = withDeadline(never(), 100, onTimeout);
    const loud = withDeadline(never(), 100, () => {
      throw new Error('too slow');
    });
    const loudResult = expect(loud).rejects.toThrow('too slow');
    await vi.advanceTimersByTimeAsync(99);
    expect(onTimeout).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    await expect(quiet).resolves.toBeUndefined();
    expect(onTimeout).toHaveBeenCalledWith('timeout');
    await loudResult;
  });

  it('ignores the work once the deadline passed, and the deadline once the work settled', async () => {
    vi.useFakeTimers();
    let finish!: (value: string) => void;
    const work = new Promise<string>((resolve) => (finish = resolve));
    const result = withDeadline(work, 10, () => 'deadline');
    await vi.advanceTimersByTimeAsync(10);
    finish('work');
    await expect(result).resolves.toBe('deadline');
  });

  it("stops waiting when the caller's signal aborts, with cause 'abort'", async () => {
    const controller = new AbortController();
    const onTimeout = vi.fn(() => 'stopped');
    const result = withDeadline(never(), 60_000, onTimeout, { signal: controller.signal });
    controller.abort();
    await expect(result).resolves.toBe('stopped');
    expect(onTimeout).toHaveBeenCalledWith('abort');
  });

  it('does not start work given as a function when the signal has already aborted', async () => {
    const work = vi.fn(async () => 1);
    await expect(withDeadline(work, 1_000, () => 'skipped', { signal: AbortSignal.abort() })).resolves.toBe('skipped');
    expect(work).not.toHaveBeenCalled();
  });

  it('turns a throw of the work function, or of a thenable, into a rejection', async () => {
    const thrown = withDeadline(
      () => {
        throw new Error('sync throw');
      },
      1_000,
      () => 'late',
    );
    await expect(thrown).rejects.toThrow('sync throw');
    const badThenable = {
      then: () => {
        throw new Error('then threw');
      },
    } as unknown as PromiseLike<number>;
    await expect(withDeadline(badThenable, 1_000, () => 'late')).rejects.toThrow('then threw');
  });

  it('waits with no timer for Infinity, so only the work or the signal ends it', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const result = withDeadline(never(), Number.POSITIVE_INFINITY, (cause) => cause, { signal: controller.signal });
    expect(vi.getTimerCount()).toBe(0);
    controller.abort();
    await expect(result).resolves.toBe('abort');
  });

  it('holds a deadline past what a timer can time to the longest one instead of firing at once', async () => {
    vi.useFakeTimers();
    const onTimeout = vi.fn();
    void withDeadline(never(), 2 ** 40, onTimeout);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(onTimeout).not.toHaveBeenCalled();
  });

  it('moves the deadline on while holdWhile answers true, and times out once it answers false', async () => {
    vi.useFakeTimers();
    let holding = true;
    const onTimeout = vi.fn(() => 'late');
    const result = withDeadline(never(), 100, onTimeout, { holdWhile: () => holding });
    await vi.advanceTimersByTimeAsync(1_000);
    expect(onTimeout).not.toHaveBeenCalled();
    holding = false;
    await vi.advanceTimersByTimeAsync(100);
    await expect(result).resolves.toBe('late');
    expect(onTimeout).toHaveBeenCalledOnce();
  });

  it('exports the default hook deadline hosts share with the engine', () => {
    expect(DEFAULT_HOOK_TIMEOUT_MS).toBe(5_000);
  });
});

describe('withDeadlineSignal', () => {
  afterEach(() => void vi.useRealTimers());

  it('tells the work to stop at the deadline and gives what it returns then', async () => {
    vi.useFakeTimers();
    const result = withDeadlineSignal(
      100,
      (signal) => new Promise<string>((resolve) => signal.addEventListener('abort', () => resolve('what finished'))),
    );
    await vi.advanceTimersByTimeAsync(100);
    await expect(result).resolves.toBe('what finished');
  });

  it("stops the work when the caller's signal aborts, and leaves no timer once the work settles", async () => {
    vi.useFakeTimers();
    const caller = new AbortController();
    const result = withDeadlineSignal(
      10_000,
      (signal) => new Promise<unknown>((resolve) => signal.addEventListener('abort', () => resolve(signal.reason))),
      { signal: caller.signal },
    );
    caller.abort('interrupt');
    await expect(result).resolves.toBe('interrupt');
    await expect(withDeadlineSignal(10_000, async () => 'quick')).resolves.toBe('quick');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('keep-alive variant', () => {
  it('holds the event loop while the wait runs, where the plain deadline does not', async () => {
    const { spawnSync } = await import('node:child_process');
    const { fileURLToPath, pathToFileURL } = await import('node:url');
    const source = pathToFileURL(fileURLToPath(new URL('../dist/host.js', import.meta.url))).href;
    const run = (keepAlive: boolean) =>
      spawnSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const { withDeadline } = await import(${JSON.stringify(source)}); await withDeadline(new Promise(() => {}), 200, () => 'answered', { keepAlive: ${keepAlive} }); console.log('answered');`,
        ],
        { encoding: 'utf8', timeout: 20_000 },
      );
    expect(run(true).stdout.trim()).toBe('answered');
    // Unref'd: the process ends with the promise pending (Node exits with code 13, "unsettled top-level await").
    expect(run(false).stdout.trim()).toBe('');
  });
});

describe('deadlineBefore', () => {
  it('stops waiting a quarter before a host limit, 250 ms to 1 s early', () => {
    expect(deadlineBefore(2_000)).toBe(1_500);
    expect(deadlineBefore(500)).toBe(250);
    expect(deadlineBefore(30_000)).toBe(29_000);
    expect(deadlineBefore(100)).toBe(0);
  });
});
