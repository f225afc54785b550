import type { TokenCounter } from '../token-counter.js';
import { partTokens } from './estimate.js';
import type { Message, MessagePart } from './message-model.js';

/**
 * What a session's requests cost under prompt caching, in units of the base input price, the
 * way Anthropic bills an agent loop whose host puts a cache breakpoint at the end of the
 * conversation: a request reads from the cache the system/tools prefix and the leading messages
 * equal to the previous request's, and writes everything after the first message that differs.
 * Reads cost 0.1×; writes 1.25× with the 5-minute cache, 2× with the 1-hour cache. Cache
 * lifetimes (a pause longer than the lifetime) are not modelled: every request is taken to
 * find the previous one cached.
 */
export const CACHE_READ_PRICE = 0.1;
export const CACHE_WRITE_PRICES = Object.freeze({ '5m': 1.25, '1h': 2 });
export type CacheLifetime = keyof typeof CACHE_WRITE_PRICES;

/** Message tokens one request read from the cache and wrote to it (the system/tools prefix apart). */
export interface CacheFigures {
  readTokens: number;
  writeTokens: number;
}

/**
 * The cost of requests: each one's messages as measured, plus the system/tools prefix, written
 * by the first request and read by every later one.
 */
export function cacheCost(requests: readonly CacheFigures[], prefixTokens: number, lifetime: CacheLifetime): number {
  const write = CACHE_WRITE_PRICES[lifetime];
  let cost = 0;
  requests.forEach((request, index) => {
    cost += (index === 0 ? write : CACHE_READ_PRICE) * prefixTokens;
    cost += CACHE_READ_PRICE * request.readTokens + write * request.writeTokens;
  });
  return cost;
}

/**
 * Measures consecutive requests of one conversation: how many message tokens each one shares
 * with the previous request from the start (read) and how many follow the first difference
 * (written). Messages are compared by identity first (hosts and transformers copy on write, so
 * an unchanged message is usually the same object), then by content.
 */
export class CacheMeter {
  /** What the previous request sent (a copy: a host's history array may grow in place), and its running token sums. */
  private readonly previous: Message[] = [];
  /** `sums[i]`: tokens of the previous request's first `i` messages. */
  private readonly sums: number[] = [0];

  constructor(private readonly counter: TokenCounter) {}

  request(messages: readonly Message[]): CacheFigures {
    const { previous, sums } = this;
    let shared = 0;
    for (; shared < messages.length && shared < previous.length; shared++) {
      const message = messages[shared]!;
      if (message === previous[shared]) continue;
      if (!sameMessage(message, previous[shared]!)) break;
      // Equal content, another object: keep this request's, so `messages` is what it sent.
      previous[shared] = message;
    }
    // The shared messages are the previous request's: their tokens are known.
    const readTokens = sums[shared]!;
    previous.length = shared;
    sums.length = shared + 1;
    let total = readTokens;
    for (let index = shared; index < messages.length; index++) {
      const message = messages[index]!;
      previous.push(message);
      sums.push((total += this.tokens(message)));
    }
    return { readTokens, writeTokens: total - readTokens };
  }

  /**
   * The latest request's messages (the same objects): the meter's own copy, so a caller whose
   * history grows in place needs none of its own. Valid until the next `request` or `reset`.
   */
  get messages(): readonly Message[] {
    return this.previous;
  }

  /** A new history (after a compaction): its first request writes all its messages. */
  reset(): void {
    this.previous.length = 0;
    this.sums.length = 1;
  }

  private tokens(message: Message): number {
    let tokens = 0;
    for (const part of message.parts) tokens += partTokens(part, this.counter);
    return tokens;
  }
}

function sameMessage(a: Message, b: Message): boolean {
  if (a === b) return true;
  if (a.role !== b.role || a.parts.length !== b.parts.length) return false;
  for (let index = 0; index < a.parts.length; index++) if (!samePart(a.parts[index]!, b.parts[index]!)) return false;
  return true;
}

function samePart(a: MessagePart, b: MessagePart): boolean {
  if (a === b) return true;
  if (a.type !== b.type) return false;
  return JSON.stringify(a) === JSON.stringify(b);
}
