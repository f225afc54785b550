// A compaction a host tells in steps: what started it (an event before any hook), its own hook
// (compact:before, whose context goes into the summarizer's prompt), and its end, which a host
// may tell more than once (OpenCode: a hook it awaits after an automatic compaction, an event
// after every one). compact:after runs once per compaction, and the next model request waits
// for it, at most one deadline, to carry what hooks handed back.
import type { HostSession } from './host-session.js';

export class CompactionSteps {
  /** What started the compaction, when the host told it (compact:before says `auto` otherwise). */
  trigger: 'manual' | 'auto' | undefined;
  /** From compact:before until the compaction ends or the host gives it up (a failed one never ends). */
  running = false;
  private after: Promise<unknown> | undefined;

  constructor(
    private readonly session: HostSession<object>,
    /** Waits for work at most one point's deadline (`Host.within`). */
    private readonly within: (work: Promise<unknown>) => Promise<unknown>,
  ) {}

  /** compact:before, a point whose block the host cannot honour (`asked` in the log line); its context. */
  async begin(asked: string): Promise<string | undefined> {
    this.running = true;
    const outcome = await this.session.emitUnblockable('compact:before', () => ({ trigger: this.trigger ?? 'auto' }), asked);
    return outcome?.context;
  }

  /** compact:after (core's `compacted`) once per compaction, however often the host tells its end; settles when it is done. */
  async end(): Promise<void> {
    if (this.running) {
      this.running = false;
      const trigger = this.trigger;
      this.trigger = undefined;
      this.after = this.session.guard('compact:after', () => this.session.compacted({ trigger }));
    }
    await this.after;
  }

  /** Waits for a compact:after in flight, at most one deadline. */
  async settled(): Promise<void> {
    if (this.after) await this.within(this.after);
  }
}
