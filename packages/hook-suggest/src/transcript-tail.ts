import { open } from 'node:fs/promises';

/** Token figures of one assistant line of a Claude Code transcript. */
export interface TranscriptContextUsage {
  /** `inputTokens + cacheReadInputTokens + cacheCreationInputTokens`: what the request that produced the line sent. */
  contextTokens: number;
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  model?: string;
  messageId?: string;
  uuid?: string;
  timestamp?: string;
}

/** A `system` / `compact_boundary` line. */
export interface TranscriptCompactBoundary {
  trigger?: string;
  preTokens?: number;
  postTokens?: number;
  uuid?: string;
  timestamp?: string;
}

export interface TranscriptTail {
  /** The newest assistant line that describes the main context (see {@link readTranscriptTail}). */
  usage?: TranscriptContextUsage;
  /** A compact boundary newer than `usage`: the compaction that made `usage` stale. */
  compaction?: TranscriptCompactBoundary;
}

export interface TailReadOptions {
  /** Stop after reading this many bytes from the end (default 32 MiB): a hook must not read a huge file whole. */
  maxBytes?: number;
  /** Bytes per read (default 64 KiB). */
  chunkSize?: number;
}

export interface ContextUsageReading {
  contextTokens: number;
  /** `usage`: the last assistant line; `compact-boundary`: `postTokens` of a compaction newer than any assistant line. */
  source: 'usage' | 'compact-boundary';
  usage?: TranscriptContextUsage;
  compaction?: TranscriptCompactBoundary;
}

export const DEFAULT_TAIL_MAX_BYTES = 32 * 1024 * 1024;
const DEFAULT_CHUNK_SIZE = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads a transcript backwards, in chunks, until the newest assistant line that says something
 * about the main context, and notes a compact boundary met on the way (one newer than that line).
 *
 * Skipped, because they do not describe the main context: sub-agent lines (`isSidechain: true`),
 * API error lines (`isApiErrorMessage`), synthetic messages (model `<synthetic>`, or a usage whose
 * three input figures are all zero), and lines that are not JSON (the last line may be half
 * written while Claude Code appends). Only the bytes from the end up to that line are read.
 *
 * Throws an Error naming the path when the file cannot be opened or read.
 */
export async function readTranscriptTail(path: string, options: TailReadOptions = {}): Promise<TranscriptTail> {
  const tail: TranscriptTail = {};
  for await (const text of linesFromEnd(path, options)) {
    // Most lines are tool results and user text; looking for the two record kinds we need
    // before parsing avoids JSON.parse on megabytes of tool output.
    const mayBeAssistant = text.includes('"assistant"');
    const mayBeBoundary = text.includes('compact_boundary');
    if (!mayBeAssistant && !mayBeBoundary) continue;
    const record = parseObject(text);
    if (!record) continue;
    if (mayBeBoundary && tail.compaction === undefined) {
      const boundary = compactBoundaryOf(record);
      if (boundary) {
        tail.compaction = boundary;
        continue;
      }
    }
    const usage = mayBeAssistant ? mainContextUsageOf(record) : undefined;
    if (usage) {
      tail.usage = usage;
      return tail;
    }
  }
  return tail;
}

/**
 * The current context size of a Claude Code session from its transcript: the last assistant
 * message's `input_tokens + cache_read_input_tokens + cache_creation_input_tokens` (all three:
 * leaving out cache creation under-reads by the size of the newest turn). After a compaction
 * and before the next assistant turn, the last usage describes the old context: then the
 * boundary's `postTokens` is the size when Claude Code wrote it, else the size is unknown
 * (undefined), as it is for a transcript with no assistant turn yet.
 */
export async function readContextUsageFromTranscript(path: string, options: TailReadOptions = {}): Promise<ContextUsageReading | undefined> {
  const tail = await readTranscriptTail(path, options);
  if (tail.compaction) {
    if (tail.compaction.postTokens === undefined) return undefined;
    return { contextTokens: tail.compaction.postTokens, source: 'compact-boundary', compaction: tail.compaction, ...(tail.usage ? { usage: tail.usage } : {}) };
  }
  if (!tail.usage) return undefined;
  return { contextTokens: tail.usage.contextTokens, source: 'usage', usage: tail.usage };
}

/**
 * The compaction that just happened, from the transcript's newest `compact_boundary` line
 * (`preTokens`, and `postTokens` in newer Claude Code versions). Undefined when an assistant
 * turn follows the newest boundary, so an old compaction is never taken for the current one.
 */
export async function readCompactionFromTranscript(path: string, options: TailReadOptions = {}): Promise<TranscriptCompactBoundary | undefined> {
  return (await readTranscriptTail(path, options)).compaction;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function optionalCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

function optionalString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function mainContextUsageOf(record: Record<string, unknown>): TranscriptContextUsage | undefined {
  if (record.type !== 'assistant' || record.isSidechain === true || record.isApiErrorMessage === true) return undefined;
  const message = record.message;
  if (typeof message !== 'object' || message === null) return undefined;
  const { usage, model, id } = message as { usage?: unknown; model?: unknown; id?: unknown };
  if (model === '<synthetic>' || typeof usage !== 'object' || usage === null) return undefined;
  const figures = usage as Record<string, unknown>;
  const inputTokens = count(figures.input_tokens);
  const cacheReadInputTokens = count(figures.cache_read_input_tokens);
  const cacheCreationInputTokens = count(figures.cache_creation_input_tokens);
  const contextTokens = inputTokens + cacheReadInputTokens + cacheCreationInputTokens;
  if (contextTokens === 0) return undefined;
  const result: TranscriptContextUsage = { contextTokens, inputTokens, cacheReadInputTokens, cacheCreationInputTokens };
  if (typeof model === 'string') result.model = model;
  if (typeof id === 'string') result.messageId = id;
  const uuid = optionalString(record.uuid);
  if (uuid !== undefined) result.uuid = uuid;
  const timestamp = optionalString(record.timestamp);
  if (timestamp !== undefined) result.timestamp = timestamp;
  return result;
}

function compactBoundaryOf(record: Record<string, unknown>): TranscriptCompactBoundary | undefined {
  if (record.type !== 'system' || record.subtype !== 'compact_boundary') return undefined;
  // The transcript spells it camelCase; the Agent SDK stream snake_case.
  const metadata = (record.compactMetadata ?? record.compact_metadata) as Record<string, unknown> | undefined;
  const boundary: TranscriptCompactBoundary = {};
  if (typeof metadata === 'object' && metadata !== null) {
    const trigger = optionalString(metadata.trigger);
    if (trigger !== undefined) boundary.trigger = trigger;
    const preTokens = optionalCount(metadata.preTokens ?? metadata.pre_tokens);
    if (preTokens !== undefined) boundary.preTokens = preTokens;
    const postTokens = optionalCount(metadata.postTokens ?? metadata.post_tokens);
    if (postTokens !== undefined) boundary.postTokens = postTokens;
  }
  const uuid = optionalString(record.uuid);
  if (uuid !== undefined) boundary.uuid = uuid;
  const timestamp = optionalString(record.timestamp);
  if (timestamp !== undefined) boundary.timestamp = timestamp;
  return boundary;
}

/**
 * The file's lines, last first. A line longer than a chunk is assembled from several reads; a
 * partial line left when `maxBytes` runs out is dropped, never yielded cut.
 */
async function* linesFromEnd(path: string, options: TailReadOptions): AsyncGenerator<string> {
  const maxBytes = Math.max(1, options.maxBytes ?? DEFAULT_TAIL_MAX_BYTES);
  const chunkSize = Math.max(1, options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new Error(`Cannot open transcript ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    let position = (await handle.stat()).size;
    let scanned = 0;
    // Pieces of the line that began in an earlier (lower) chunk than any read yet, oldest first.
    let laterParts: Buffer[] = [];
    while (position > 0 && scanned < maxBytes) {
      const length = Math.min(chunkSize, position, maxBytes - scanned);
      position -= length;
      scanned += length;
      const chunk = Buffer.allocUnsafe(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(chunk, filled, length - filled, position + filled);
        if (bytesRead === 0) break; // the file shrank under us; what was read is still valid
        filled += bytesRead;
      }
      const bytes = filled === length ? chunk : chunk.subarray(0, filled);
      let end = bytes.length;
      let newline = end > 0 ? bytes.lastIndexOf(NEWLINE, end - 1) : -1;
      while (newline !== -1) {
        // Splitting on the byte 0x0a is safe for UTF-8: it never occurs inside a multi-byte character.
        const piece = bytes.subarray(newline + 1, end);
        const text = laterParts.length === 0 ? piece.toString('utf8') : Buffer.concat([piece, ...laterParts]).toString('utf8');
        laterParts = [];
        if (text.trim() !== '') yield text;
        end = newline;
        newline = end > 0 ? bytes.lastIndexOf(NEWLINE, end - 1) : -1;
      }
      if (end > 0) laterParts.unshift(Buffer.from(bytes.subarray(0, end)));
    }
    if (position === 0 && laterParts.length > 0) {
      const text = Buffer.concat(laterParts).toString('utf8');
      if (text.trim() !== '') yield text;
    }
  } catch (error) {
    throw new Error(`Cannot read transcript ${path}: ${(error as Error).message}`, { cause: error });
  } finally {
    await handle.close();
  }
}
