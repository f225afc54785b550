import { closeSync, openSync, readSync } from 'node:fs';
import { Script } from 'node:vm';

/**
 * Stops a synchronous run (a hook's synchronous part, a module's top level) that does not
 * return. Only V8 can end a loop that never yields — no timer or signal handler runs while one
 * spins — and vm's `timeout` is the way to ask: a watchdog thread ends the JavaScript on this
 * thread after a WALL-time limit. A hook's budget is CPU time, though: at load 300 a process gets
 * a hundredth of a core, and a hook that needs 20 ms of CPU takes seconds. So the wall limit is
 * the CPU budget times how much slower than its own CPU time this thread has run (Linux: the
 * kernel's run-queue wait in `/proc/thread-self/schedstat`; elsewhere wall over CPU time since
 * start), and a stopped run is reported with the CPU it used.
 */
export interface ThreadClock {
  /** This thread's CPU time and its time spent runnable but waiting for a CPU, in ms since it started. */
  read(): { cpuMs: number; waitMs: number };
}

/** What a stopped run used. */
export interface SyncUsage {
  /** CPU time of the run (this thread's where the system says, else the process's). */
  cpuMs: number;
  /** Wall time of the run. */
  wallMs: number;
  /** The wall limit it was given: the budget scaled by the machine's load. */
  limitMs: number;
}

/** A slowdown above this is not believed (load 300 on 2 cores is 150): the call's deadline bounds the rest. */
const MAX_SLOWDOWN = 200;

const schedBuffer = Buffer.allocUnsafe(128);

/** Linux's per-thread scheduler figures: `<ns on CPU> <ns waiting on a run queue> <slices>`. */
function readSchedstat(): { cpuMs: number; waitMs: number } | undefined {
  let fd: number;
  try {
    fd = openSync('/proc/thread-self/schedstat', 'r');
  } catch {
    return undefined;
  }
  try {
    const [cpu, wait] = schedBuffer.toString('latin1', 0, readSync(fd, schedBuffer, 0, schedBuffer.length, 0)).split(' ');
    const cpuMs = Number(cpu) / 1e6;
    const waitMs = Number(wait) / 1e6;
    // Kernels without schedstats report zeros: no figures, not an idle thread.
    return Number.isFinite(cpuMs) && Number.isFinite(waitMs) && cpuMs > 0 ? { cpuMs, waitMs } : undefined;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The real clock: the kernel's figures where it has them, else the process's CPU time against its age (waits for I/O count as load there). */
export const threadClock: ThreadClock = {
  read() {
    const sched = readSchedstat();
    if (sched) return sched;
    const usage = process.cpuUsage();
    const cpuMs = (usage.user + usage.system) / 1000;
    return { cpuMs, waitMs: Math.max(0, process.uptime() * 1000 - cpuMs) };
  },
};

/** Thrown inside the guard by the watchdog's stop; never seen outside. */
const TIMED_OUT = 'ERR_SCRIPT_EXECUTION_TIMEOUT';

/**
 * The guard of one process's synchronous runs. State of the object, not the module: the call's
 * deadline (`deadlineAt`, a `Date.now()` time; none by default) caps every limit, so no
 * synchronous run outlasts the call.
 */
export class SyncGuard {
  private readonly clock: ThreadClock;
  private script: Script | undefined;
  /** When the owner's deadline passes (`Date.now()` ms). */
  deadlineAt: number;

  constructor(options: { clock?: ThreadClock; deadlineAt?: number } = {}) {
    this.clock = options.clock ?? threadClock;
    this.deadlineAt = options.deadlineAt ?? Number.POSITIVE_INFINITY;
  }

  /** Milliseconds left before the deadline (infinite without one). */
  remaining(): number {
    return this.deadlineAt - Date.now();
  }

  /** How many times longer than its CPU time this thread has taken to run (≥ 1). */
  slowdown(): number {
    const { cpuMs, waitMs } = this.clock.read();
    return Math.min(MAX_SLOWDOWN, Math.max(1, (cpuMs + waitMs) / Math.max(cpuMs, 1)));
  }

  /**
   * Runs `call` and stops it after `wallMs` of wall time (capped by the deadline): for what is
   * bounded by the call's own time, like loading a config's modules. Throws `onTimeout(ms)` when stopped.
   */
  runWithin<T>(call: () => T, wallMs: number, onTimeout: (ms: number) => Error): T {
    // vm wants a whole number of ms below 2^32: without a deadline the cap is ~24 days.
    const limit = Math.max(1, Math.ceil(Math.min(wallMs, this.remaining(), 2_147_483_647)));
    this.script ??= new Script('globalThis[Symbol.for("hookwise.guarded")]()', { filename: 'hookwise-guard' });
    // The script reaches `call` through a global slot (vm runs code, not closures), set only for the run.
    const slots = globalThis as Record<symbol, unknown>;
    const slot = Symbol.for('hookwise.guarded');
    const previous = slots[slot];
    slots[slot] = call;
    try {
      return this.script.runInThisContext({ timeout: limit, breakOnSigint: false }) as T;
    } catch (error) {
      if ((error as NodeJS.ErrnoException | undefined)?.code === TIMED_OUT) throw onTimeout(limit);
      throw error;
    } finally {
      slots[slot] = previous;
    }
  }

  /**
   * Runs `call` with a budget of `cpuMs` of CPU time: on an idle machine it is stopped after
   * about `cpuMs`, on a busy one after as much longer as this thread has been kept waiting for
   * a CPU. Returns what `call` returned (a hook's promise: what runs after its first `await` is
   * not covered); throws `onStop(usage)` when it was stopped.
   */
  runWithinCpu<T>(call: () => T, cpuMs: number, onStop: (usage: SyncUsage) => Error): T {
    const before = this.clock.read();
    // Date.now, not performance.now: the global `performance` loads perf_hooks on a hook's start path.
    const startedAt = Date.now();
    const limitMs = cpuMs * this.slowdown();
    let limit = 0;
    try {
      return this.runWithin(call, limitMs, (ms) => {
        limit = ms;
        return new Error(TIMED_OUT);
      });
    } catch (error) {
      if (limit === 0) throw error;
      const after = this.clock.read();
      throw onStop({ cpuMs: Math.round(after.cpuMs - before.cpuMs), wallMs: Date.now() - startedAt, limitMs: limit });
    }
  }
}
