import { isRecord } from './provider-metadata.js';
import type { TranscriptCompactBoundary, TranscriptEntry, TranscriptLine, TranscriptMessageEntry, TranscriptUsage } from './transcript.js';
import { isUnreadLine, type UnreadLine } from './transcript-lines.js';

function numberOrZero(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function optionalCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/**
 * The one rule for context tokens. An assistant line measured a context when its `usage` has
 * `input_tokens + cache_read_input_tokens + cache_creation_input_tokens` above zero (leaving out
 * cache creation under-reads by the newest turn). Not measurements, so undefined: synthetic
 * messages (model `<synthetic>`), API error lines (`isApiErrorMessage`), and all-zero usage
 * (interruptions): after any of them the context is what the last real request measured, never 0.
 * Side-chain lines (sub-agents) are measured, flagged `isSidechain`: their context is not the
 * main one.
 */
export function contextUsageOf(value: Record<string, unknown>, line = 0): TranscriptUsage | undefined {
  if (value['type'] !== 'assistant' || value['isApiErrorMessage'] === true) return undefined;
  const message = value['message'];
  if (!isRecord(message)) return undefined;
  const usage = message['usage'];
  const model = message['model'];
  if (model === '<synthetic>' || !isRecord(usage)) return undefined;
  const inputTokens = numberOrZero(usage['input_tokens']);
  const cacheReadInputTokens = numberOrZero(usage['cache_read_input_tokens']);
  const cacheCreationInputTokens = numberOrZero(usage['cache_creation_input_tokens']);
  const contextTokens = inputTokens + cacheReadInputTokens + cacheCreationInputTokens;
  if (contextTokens === 0) return undefined;
  const result: TranscriptUsage = {
    line,
    inputTokens,
    cacheReadInputTokens,
    cacheCreationInputTokens,
    contextTokens,
    isSidechain: value['isSidechain'] === true,
  };
  if (typeof message['id'] === 'string') result.messageId = message['id'];
  if (typeof model === 'string') result.model = model;
  if (typeof value['uuid'] === 'string') result.uuid = value['uuid'];
  if (typeof value['timestamp'] === 'string') result.timestamp = value['timestamp'];
  return result;
}

/**
 * A `system` / `compact_boundary` line's figures, undefined for any other line. The transcript
 * spells the metadata camelCase (`compactMetadata.preTokens`), the Agent SDK stream snake_case
 * (`compact_metadata.pre_tokens`): both are read.
 */
export function compactBoundaryOf(value: Record<string, unknown>, line = 0): TranscriptCompactBoundary | undefined {
  if (value['type'] !== 'system' || value['subtype'] !== 'compact_boundary') return undefined;
  const raw = value['compactMetadata'] ?? value['compact_metadata'];
  const metadata = isRecord(raw) ? raw : {};
  const boundary: TranscriptCompactBoundary = { line };
  if (typeof metadata['trigger'] === 'string') boundary.trigger = metadata['trigger'];
  const preTokens = optionalCount(metadata['preTokens'] ?? metadata['pre_tokens']);
  if (preTokens !== undefined) boundary.preTokens = preTokens;
  const postTokens = optionalCount(metadata['postTokens'] ?? metadata['post_tokens']);
  if (postTokens !== undefined) boundary.postTokens = postTokens;
  if (typeof value['uuid'] === 'string') boundary.uuid = value['uuid'];
  if (typeof value['timestamp'] === 'string') boundary.timestamp = value['timestamp'];
  return boundary;
}

/**
 * The `other` entry of a line of a type no entry reads: its value is parsed only if the consumer
 * reads it. A class, its getter on the prototype: an object literal with a getter of its own
 * costs far more to make, and most of a session's lines are such lines.
 */
class UnreadLineEntry {
  readonly type = 'other' as const;
  readonly line: number;
  readonly #source: UnreadLine;

  constructor(source: UnreadLine) {
    this.line = source.line;
    this.#source = source;
  }

  get value(): Record<string, unknown> {
    return this.#source.value;
  }

  /** As the entry reads: `{ type, line, value }`. */
  toJSON(): { type: 'other'; line: number; value: Record<string, unknown> } {
    return { type: this.type, line: this.line, value: this.value };
  }
}

/** The typed entries of one parsed line (see {@link TranscriptEntry}). */
export function transcriptEntriesOf(parsed: TranscriptLine): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  addEntriesOf(parsed, entries);
  return entries;
}

/** `transcriptEntriesOf`, added to `entries` (no array per line). */
export function addEntriesOf(parsed: TranscriptLine, entries: TranscriptEntry[]): void {
  if ('error' in parsed) {
    entries.push({ type: 'malformed', line: parsed.line, reason: parsed.error });
    return;
  }
  if (isUnreadLine(parsed)) {
    entries.push(new UnreadLineEntry(parsed));
    return;
  }
  const { line, value } = parsed;
  const type = value['type'];
  if (type === 'user' || type === 'assistant') {
    const message = value['message'];
    if (!isRecord(message)) {
      entries.push({ type: 'malformed', line, reason: `${type} line: message is not an object` });
      return;
    }
    const usage = type === 'assistant' ? contextUsageOf(value, line) : undefined;
    if (usage) entries.push({ type: 'usage', ...usage });
    let content = message['content'];
    if (typeof content !== 'string' && !Array.isArray(content)) {
      entries.push({ type: 'malformed', line, reason: `${type} line: message.content is neither a string nor an array` });
      return;
    }
    // Checked before filtering: a copy per line only when some block is not an object.
    if (Array.isArray(content) && !content.every(isRecord)) {
      const blocks = content.filter(isRecord);
      entries.push({ type: 'malformed', line, reason: `${type} line: ${content.length - blocks.length} content block(s) are not objects` });
      if (blocks.length === 0) return;
      content = blocks;
    }
    const entry: TranscriptMessageEntry = {
      type: 'message',
      line,
      role: type,
      content: content as string | unknown[],
      isSidechain: value['isSidechain'] === true,
    };
    if (typeof message['id'] === 'string') entry.messageId = message['id'];
    if (typeof message['model'] === 'string') entry.model = message['model'];
    if (typeof value['uuid'] === 'string') entry.uuid = value['uuid'];
    if (typeof value['timestamp'] === 'string') entry.timestamp = value['timestamp'];
    if (value['isMeta'] === true) entry.isMeta = true;
    if (value['isCompactSummary'] === true) entry.isCompactSummary = true;
    entries.push(entry);
    return;
  }
  const boundary = compactBoundaryOf(value, line);
  entries.push(boundary ? { type: 'compact-boundary', ...boundary } : { type: 'other', line, value });
}
