import type { MergedOutcome, PointInput, PointName } from '@hookwise/core';
import { isListening, type Engine } from '@hookwise/core/host';

/**
 * The replay's stand-in for a host: it emits the lifecycle points a live host would have
 * emitted for the session, with the payloads every adapter gives them, so the plugins run on
 * the same points in the same order as live. No host's protocol is involved: a Claude Code
 * transcript, an OpenCode export and a pi session are all replayed as points.
 *
 * One difference is unavoidable: live plugins may read the context size from the host (a
 * transcript's `usage`, the host's context figures), which here is already at the session's
 * end. So the replay passes no `transcriptPath` and adds, as payload fields, what the session
 * said at the point the replay has reached (`contextTokens`, `model`, a compaction's sizes).
 * Fields of the point's own payload win.
 */

/** What the session file says where the replay stands; a live plugin would get it from the host. */
export type TranscriptFacts = Partial<Record<'contextTokens' | 'contextWindow' | 'tokensBefore' | 'tokensAfter', number>> & {
  model?: string;
};

/** One lifecycle point that ran, and what the plugins made of it. */
export interface Emission {
  point: PointName;
  outcome: MergedOutcome;
}

export class ReplayHost {
  constructor(
    private readonly engine: Engine,
    private readonly sessionId: string,
    /** The facts for an event on `point`, asked for every point that runs; a new object each time. */
    private readonly facts: (point: PointName) => TranscriptFacts,
  ) {}

  /**
   * Emits `point` when a hook listens on it (`session:start` always, as every host does: the
   * engine records the session there); resolves undefined otherwise, without building a payload.
   */
  async emit<P extends PointName>(point: P, payload: Omit<PointInput<P>, 'sessionId'>): Promise<Emission | undefined> {
    if (!isListening(this.engine, point)) return undefined;
    // `facts` returns a fresh object: the payload goes on top of it, one object per event (a replay sends hundreds).
    const input = this.facts(point) as Record<string, unknown>;
    input['sessionId'] = this.sessionId;
    const outcome = await this.engine.emit(point, Object.assign(input, payload) as unknown as PointInput<P>);
    return { point, outcome };
  }
}

/** The text of a failed tool's result: what `tool:after` carries as `error` (and `output`). */
export function errorText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) {
    const texts = output
      .map((item) =>
        typeof item === 'object' && item !== null && typeof (item as { text?: unknown }).text === 'string'
          ? (item as { text: string }).text
          : '',
      )
      .filter((text) => text !== '');
    if (texts.length > 0) return texts.join('\n');
  }
  return output === undefined || output === null ? 'tool failed' : JSON.stringify(output);
}
