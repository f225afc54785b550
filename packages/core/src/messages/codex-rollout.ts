import type { PointName } from '../points.js';
import type { ContextUsageFields } from './context-usage.js';
import { isRecord } from './provider-metadata.js';
import { linesFromEnd, type TailReadOptions } from './transcript-tail.js';

/**
 * Codex CLI's rollout file (`$CODEX_HOME/sessions/…/rollout-*.jsonl`, the `transcript_path` its
 * hooks get): one `{timestamp, type, payload}` per line. Every model request adds an `event_msg`
 * `token_count` whose `info.last_token_usage` is that request's usage; a compaction adds a
 * `compacted` line, then a `token_count` of zeros (Codex 0.169.0).
 */
export interface RolloutUsage {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  totalTokens: number;
  /** `info.model_context_window`, when Codex knows it. */
  contextWindow?: number;
  /**
   * The line Codex writes right after a compaction: no request, only its estimate of the new
   * context in `total_tokens` (0.169.0).
   */
  afterCompaction?: boolean;
}

/** The usage a `token_count` line carries (undefined for other lines and for the zeros a compaction writes). */
export function rolloutUsageOf(record: Record<string, unknown>): RolloutUsage | undefined {
  const payload = record['payload'];
  if (record['type'] !== 'event_msg' || !isRecord(payload) || payload['type'] !== 'token_count' || !isRecord(payload['info']))
    return undefined;
  const info = payload['info'];
  const last = info['last_token_usage'];
  if (!isRecord(last)) return undefined;
  const count = (name: string) => (typeof last[name] === 'number' && Number.isFinite(last[name]) ? (last[name] as number) : 0);
  const usage: RolloutUsage = {
    inputTokens: count('input_tokens'),
    cachedInputTokens: count('cached_input_tokens'),
    outputTokens: count('output_tokens'),
    totalTokens: count('total_tokens'),
  };
  if (usage.totalTokens === 0) return undefined;
  if (usage.inputTokens === 0) usage.afterCompaction = true;
  if (typeof info['model_context_window'] === 'number') usage.contextWindow = info['model_context_window'];
  return usage;
}

export interface RolloutTail {
  /** The newest request's usage, unless a compaction came after it. */
  usage?: RolloutUsage;
  /** A compaction newer than any measured request: the context size is unknown until the next one. */
  compacted?: boolean;
}

/**
 * Reads a rollout backwards, in chunks, until the newest measured request or a compaction,
 * whichever comes first. Lines that are not JSON are skipped (the last one may be half written).
 * Throws an Error naming the path when the file cannot be opened or read.
 */
export async function readRolloutTail(path: string, options: TailReadOptions = {}): Promise<RolloutTail> {
  for await (const text of linesFromEnd(path, options)) {
    // Most lines are items and tool output: look for the two kinds needed before parsing.
    const mayBeCount = text.includes('"token_count"');
    if (!mayBeCount && !text.startsWith('{"timestamp"') && !text.includes('"compacted"')) continue;
    if (!mayBeCount && !text.includes('"compacted"')) continue;
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch {
      continue;
    }
    if (!isRecord(record)) continue;
    if (record['type'] === 'compacted') return { compacted: true };
    const usage = mayBeCount ? rolloutUsageOf(record) : undefined;
    if (usage) return { usage };
  }
  return {};
}

/** The context size a usage line gives: a request's input tokens (cached or not), or Codex's estimate after a compaction. */
export const rolloutContextTokens = (usage: RolloutUsage): number => (usage.afterCompaction ? usage.totalTokens : usage.inputTokens);

/**
 * What a rollout's tail says of the context, as payload fields of `point`: the newest request's
 * input tokens (the whole context Codex sent, cached or not), or after a compaction Codex's
 * estimate of the new context (on `compact:after` as `tokensAfter`). Between the compaction and
 * that estimate nothing is known.
 */
export function rolloutUsageFields(point: PointName, tail: RolloutTail): ContextUsageFields & { contextWindow?: number } {
  if (!tail.usage) return {};
  const tokens = rolloutContextTokens(tail.usage);
  const source = tail.usage.afterCompaction ? 'compact-boundary' : 'usage';
  const fields: ContextUsageFields & { contextWindow?: number } =
    point === 'compact:after'
      ? tail.usage.afterCompaction
        ? { tokensAfter: tokens, contextSource: source }
        : {}
      : { contextTokens: tokens, contextSource: source };
  if (tail.usage.contextWindow !== undefined) fields.contextWindow = tail.usage.contextWindow;
  return fields;
}
