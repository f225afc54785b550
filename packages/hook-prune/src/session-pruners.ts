import type { TokenCounter } from '@hookwise/core';
import { estimateMessageTokens, type Message } from '@hookwise/core/messages';
import { createPruner, type Pruner } from './pruner.js';

/** What the plugin keeps for one session: its pruner and the token estimate of each message it saw. */
export class SessionPruning {
  readonly pruner: Pruner = createPruner();
  /** Tokens the latest request's prune took off what was sent (re-applied prunes included): the host measured that request pruned. */
  lastReclaimed = 0;
  private counter: TokenCounter | undefined;
  private messageTokens = new WeakMap<Message, number>();

  /** The history's tokens by core's estimate: a host without a measured context sends the same messages with every request. */
  historyTokens(messages: readonly Message[], counter: TokenCounter): number {
    if (counter !== this.counter) {
      this.counter = counter;
      this.messageTokens = new WeakMap();
    }
    const memo = this.messageTokens;
    const count = (text: string) => counter.count(text);
    let sum = 0;
    for (const message of messages) {
      let tokens = memo.get(message);
      if (tokens === undefined) memo.set(message, (tokens = estimateMessageTokens(message, count)));
      sum += tokens;
    }
    return sum;
  }
}

/**
 * The sessions a plugin instance serves, by session id; the least recently used is dropped past
 * `limit` (a host runs a few sessions at once, and a dropped one only starts cold again).
 */
export class SessionPrunings {
  private readonly bySession = new Map<string, SessionPruning>();

  constructor(private readonly limit: number) {}

  get(sessionId: string): SessionPruning {
    let session = this.bySession.get(sessionId);
    if (session !== undefined) {
      // Most recent last: a Map iterates in insertion order.
      this.bySession.delete(sessionId);
    } else {
      session = new SessionPruning();
      if (this.bySession.size >= this.limit) this.bySession.delete(this.bySession.keys().next().value!);
    }
    this.bySession.set(sessionId, session);
    return session;
  }

  get size(): number {
    return this.bySession.size;
  }
}
