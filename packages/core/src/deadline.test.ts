import { afterEach, describe, expect, it, vi } from 'vitest';
import { DEFAULT_HOOK_TIMEOUT_MS, withDeadline } from './deadline.js';

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
