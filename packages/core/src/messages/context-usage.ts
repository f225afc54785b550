import type { PointName } from '../points.js';
import { contextReadingOf, type TranscriptTail } from './transcript-tail.js';

/** The payload fields a command-hook host adds for plugins that need the context usage. */
export interface ContextUsageFields {
  contextTokens?: number;
  contextSource?: 'usage' | 'compact-boundary';
  tokensBefore?: number;
  tokensAfter?: number;
  compactionId?: string;
  trigger?: 'manual' | 'auto';
}

/**
 * What a Claude Code transcript's tail says of the context, as payload fields of `point`: on
 * `compact:after` the sizes, id and trigger of the compaction boundary met there; elsewhere the
 * current context size (the last measured request, or a newer boundary's `postTokens`).
 */
export function contextUsageFields(point: PointName, tail: TranscriptTail): ContextUsageFields {
  const fields: ContextUsageFields = {};
  if (point === 'compact:after') {
    const boundary = tail.compaction;
    if (!boundary) return fields;
    fields.contextSource = 'compact-boundary';
    if (boundary.preTokens !== undefined) fields.tokensBefore = boundary.preTokens;
    if (boundary.postTokens !== undefined) fields.tokensAfter = boundary.postTokens;
    if (boundary.uuid) fields.compactionId = boundary.uuid;
    if (boundary.trigger === 'manual' || boundary.trigger === 'auto') fields.trigger = boundary.trigger;
    return fields;
  }
  const reading = contextReadingOf(tail);
  if (!reading) return fields;
  fields.contextTokens = reading.contextTokens;
  fields.contextSource = reading.source;
  return fields;
}
