import { formatTokens } from './suggestion-policy.js';

/** Where a size came from, in the order they are preferred. */
export type SizeSource = 'host' | 'transcript' | 'compact-boundary' | 'next-measurement';

/** One line of the compaction log (`type: 'compaction'`); the log adds `time`. */
export interface CompactionRecord {
  type: 'compaction';
  sessionId: string;
  host: string;
  /** 1 for the session's first compaction, then 2, … */
  compaction: number;
  trigger: 'manual' | 'auto' | 'unknown';
  /** When compact:before ran (absent when the host fired no compact:before). ISO 8601. */
  startedAt: string | null;
  completedAt: string;
  tokensBefore: number | null;
  tokensBeforeSource: SizeSource | null;
  tokensAfter: number | null;
  tokensAfterSource: SizeSource | null;
  /** `(before - after) / before * 100`, one decimal; null while a size is unknown. */
  reductionPercent: number | null;
  contextWindow: number | null;
  toolCallsSinceLastCompaction: number;
  toolCallsTotal: number;
  /** Labels of what hooks preserved (commands, intent), from compact:before. */
  preserved: string[];
  /** Compact boundary line of the transcript, when there is one. */
  boundaryUuid?: string;
}

/**
 * Written when the size after a compaction was not known at compact:after and was measured
 * later (the next assistant turn); `compaction` names the record it completes.
 */
export interface CompactionSizeAfterRecord {
  type: 'compaction:size-after';
  sessionId: string;
  compaction: number;
  tokensBefore: number | null;
  tokensAfter: number;
  tokensAfterSource: 'next-measurement';
  reductionPercent: number | null;
}

export function reductionPercent(tokensBefore: number | null | undefined, tokensAfter: number | null | undefined): number | null {
  if (tokensBefore === null || tokensBefore === undefined || tokensAfter === null || tokensAfter === undefined || tokensBefore <= 0)
    return null;
  return Math.round(((tokensBefore - tokensAfter) / tokensBefore) * 1000) / 10;
}

export interface CompactionNoticeInput {
  /** When compaction completed: ISO string, epoch milliseconds or a Date. */
  completedAt: string | number | Date;
  trigger?: string;
  tokensBefore?: number | null;
  tokensAfter?: number | null;
  /** Labels of what hookwise preserved (e.g. `/babysit`, `intent REQ-WEATHER-API-001`). */
  preserved?: readonly string[];
}

/**
 * The one notice after a compaction, so compaction is never silent: when, how big before and
 * after, and what hookwise carried over.
 *
 * `Context compacted (manual) at 2026-02-12 14:48:36 UTC: 142,431 → 45,263 tokens (−68.2%). hookwise preserved: /babysit.`
 */
export function formatCompactionNotice(input: CompactionNoticeInput): string {
  const when = formatTime(input.completedAt);
  const trigger = input.trigger === 'manual' || input.trigger === 'auto' ? ` (${input.trigger})` : '';
  const before = input.tokensBefore ?? null;
  const after = input.tokensAfter ?? null;
  let sizes: string;
  if (before !== null && after !== null) {
    const reduction = reductionPercent(before, after);
    sizes = `${formatTokens(before)} → ${formatTokens(after)} tokens${reduction === null ? '' : ` (${reduction >= 0 ? '−' : '+'}${Math.abs(reduction)}%)`}`;
  } else if (before !== null) {
    sizes = `${formatTokens(before)} tokens before; size after not known yet`;
  } else if (after !== null) {
    sizes = `${formatTokens(after)} tokens after; size before not known`;
  } else {
    sizes = 'sizes not reported by the host';
  }
  const preserved =
    input.preserved && input.preserved.length > 0 ? input.preserved.join(', ') : 'nothing (no hookwise plugin registered anything to keep)';
  return `Context compacted${trigger} at ${when}: ${sizes}. hookwise preserved: ${preserved}.`;
}

function formatTime(value: string | number | Date): string {
  const date = value instanceof Date ? value : new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}
