import type { MergedOutcome, PointInput, PointName } from '@hookwise/core';
import type { Engine } from '@hookwise/core/host';
import { pointsInUse } from '@hookwise/cli';
import { dispatchEvent } from '../binding/binding.js';
import type { HookInputOf, MappedEvent } from '../binding/events.js';
import { eventsForPoints } from '../setup/settings.js';

/**
 * The replay's stand-in for Claude Code: it sends the hook events Claude Code would have sent
 * (SessionStart, UserPromptSubmit, PreToolUse, PostToolUse …) through the live binding's
 * `dispatchEvent`, so the points, their order and their payloads are the ones a live session
 * gets — e.g. after a compaction SessionStart(compact) runs `session:start`, then `compact:after`.
 *
 * Only the events `hookwise init` would register for the config are sent, as Claude Code runs
 * hookwise for no other. One difference is unavoidable: live plugins read the context size from the transcript
 * (`transcriptPath`), which here is already at its end. So the replay passes no
 * `transcriptPath` and adds, as payload fields, what the transcript said at the point the replay
 * has reached (`contextTokens`, `model`, a compaction's sizes). Fields the binding sets win.
 */

/** What the transcript says where the replay stands; a live plugin would read it from the file. */
export type TranscriptFacts = Partial<Record<'contextTokens' | 'tokensBefore' | 'tokensAfter', number>> & { model?: string };

/** One lifecycle point that ran, and what the plugins made of it. */
export interface Emission {
  point: PointName;
  outcome: MergedOutcome;
}

export class ReplayHost {
  private readonly engine: Engine;
  private readonly view: Engine;
  private emissions: Emission[] = [];
  /** The events `hookwise init` registers for this config: the only ones Claude Code sends hookwise. */
  private readonly registered: ReadonlySet<MappedEvent>;

  constructor(
    engine: Engine,
    private readonly sessionId: string,
    /** The facts for an event on `point`, asked for every point that runs; a new object each time. */
    private readonly facts: (point: PointName) => TranscriptFacts,
  ) {
    this.engine = engine;
    // The engine as the binding sees it: every emit gets the transcript's facts under its payload
    // and its outcome is kept. Everything else is the engine itself (through the prototype).
    const emit: Engine['emit'] = async (point, payload, options) => {
      // `facts` returns a fresh object: the payload goes on top of it, one copy per event.
      const outcome = await engine.emit(point, Object.assign(this.facts(point), payload), options);
      this.emissions.push({ point, outcome });
      return outcome;
    };
    this.view = Object.create(engine, { emit: { value: emit } }) as Engine;
    this.registered = new Set(eventsForPoints(pointsInUse(engine).keys()));
  }

  /** Sends one Claude Code hook event (its input, made for this call, gets the session id and event name); returns the points it ran, in order, with their outcomes. */
  async send<E extends MappedEvent>(event: E, input: Omit<HookInputOf<E>, 'session_id'>): Promise<Emission[]> {
    this.emissions = [];
    // Claude Code runs `hookwise run <Event>` only for the events in the settings `hookwise init`
    // wrote (e.g. no PreToolUse when no hook listens on tool:before).
    if (!this.registered.has(event)) return this.emissions;
    // The replay builds a new input per event: completed in place, not copied (hundreds per report).
    const full = input as HookInputOf<E> & { session_id: string; hook_event_name: E };
    full.session_id = this.sessionId;
    full.hook_event_name = event;
    await dispatchEvent(this.view, event, full);
    return this.emissions;
  }

  /**
   * Runs a point no Claude Code hook event reaches (`llm:before`: the replay measures what a
   * request transformer would have changed), with the same facts.
   */
  async emit<P extends PointName>(point: P, payload: Omit<PointInput<P>, 'sessionId'>): Promise<Emission | undefined> {
    if (!this.engine.has(point)) return undefined;
    const input = this.facts(point) as Record<string, unknown>;
    input['sessionId'] = this.sessionId;
    const outcome = await this.engine.emit(point, Object.assign(input, payload) as unknown as PointInput<P>);
    return { point, outcome };
  }
}
