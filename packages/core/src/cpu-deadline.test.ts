import { describe, expect, it } from 'vitest';
import { SyncGuard, threadClock, type SyncUsage, type ThreadClock } from './cpu-deadline.js';

const stopped = (usage: SyncUsage) => Object.assign(new Error('stopped'), { usage });
/** Blocks this thread without using CPU: what a process that gets no CPU looks like from inside. */
const blockWithoutCpu = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** A thread that has spent `waitFactor` times its CPU time waiting for a CPU (a loaded machine). */
const loadedClock = (waitFactor: number): ThreadClock => ({ read: () => ({ cpuMs: 100, waitMs: 100 * waitFactor }) });

describe('SyncGuard: a synchronous hook is judged by its CPU time', () => {
  it('on a loaded machine, a hook that got no CPU for several times its budget is not stopped', () => {
    const guard = new SyncGuard({ clock: loadedClock(50) });
    // 300 ms away from the CPU against a 50 ms budget: the old wall-time guard stopped this.
    expect(guard.runWithinCpu(() => (blockWithoutCpu(300), 'done'), 50, stopped)).toBe('done');
  });

  it('a synchronous loop is still stopped, and reported with the CPU it used', () => {
    const guard = new SyncGuard();
    let error: (Error & { usage?: SyncUsage }) | undefined;
    try {
      guard.runWithinCpu(
        () => {
          for (;;);
        },
        50,
        stopped,
      );
    } catch (caught) {
      error = caught as Error & { usage?: SyncUsage };
    }
    expect(error?.message).toBe('stopped');
    expect(error?.usage?.cpuMs).toBeGreaterThan(0);
    expect(error?.usage?.limitMs).toBeGreaterThanOrEqual(50);
  });

  it("the slowdown is the thread's waiting over its CPU time, at least 1 and bounded", () => {
    expect(new SyncGuard({ clock: loadedClock(0) }).slowdown()).toBe(1);
    expect(new SyncGuard({ clock: loadedClock(3) }).slowdown()).toBe(4);
    expect(new SyncGuard({ clock: loadedClock(1e6) }).slowdown()).toBe(200);
  });

  it("the real clock reads this thread's CPU time", () => {
    const { cpuMs, waitMs } = threadClock.read();
    expect(cpuMs).toBeGreaterThan(0);
    expect(waitMs).toBeGreaterThanOrEqual(0);
  });

  it('errors thrown by the call pass through unchanged', () => {
    const guard = new SyncGuard();
    const failure = new Error('the hook failed');
    expect(() =>
      guard.runWithinCpu(
        () => {
          throw failure;
        },
        50,
        stopped,
      ),
    ).toThrow(failure);
  });

  it("no run outlasts the owner's deadline, whatever the budget", () => {
    const guard = new SyncGuard({ clock: loadedClock(50), deadlineAt: Date.now() + 50 });
    expect(() =>
      guard.runWithinCpu(
        () => {
          for (;;);
        },
        10_000,
        stopped,
      ),
    ).toThrow('stopped');
  });
});
