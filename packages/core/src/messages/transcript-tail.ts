import { openRegularFile } from '../state/regular-file.js';
import { isRecord } from './provider-metadata.js';
import { compactBoundaryOf, contextUsageOf, type TranscriptCompactBoundary, type TranscriptUsage } from './transcript.js';

export interface TranscriptTail {
  /** The newest main-chain line that measured the context (see `contextUsageOf`). */
  usage?: TranscriptUsage;
  /** A compact boundary newer than `usage`: the compaction that made `usage` stale. */
  compaction?: TranscriptCompactBoundary;
}

export interface TailReadOptions {
  /** Stop after reading this many bytes from the end (default 32 MiB): a hook must not read a huge file whole. */
  maxBytes?: number;
  /** Bytes per read (default 64 KiB). */
  chunkSize?: number;
}

export interface ContextReading {
  contextTokens: number;
  /** `usage`: the last measured request; `compact-boundary`: `postTokens` of a compaction newer than any request. */
  source: 'usage' | 'compact-boundary';
  usage?: TranscriptUsage;
  compaction?: TranscriptCompactBoundary;
}

const DEFAULT_TAIL_MAX_BYTES = 32 * 1024 * 1024;
// What the Claude Code binding read of a sub-agent transcript for its last text.
const DEFAULT_LAST_TEXT_MAX_BYTES = 256 * 1024;
const DEFAULT_CHUNK_SIZE = 64 * 1024;
const NEWLINE = 0x0a;

/**
 * Reads a transcript backwards, in chunks, until the newest main-chain line that measured the
 * context (the rule of `contextUsageOf`: synthetic, API-error and all-zero lines do not count,
 * nor do side-chain lines here), and notes a compact boundary met on the way (one newer than
 * that line). Lines that are not JSON are skipped (the last line may be half written while
 * Claude Code appends). Only the bytes from the end up to that line are read. Line numbers are
 * not known when reading backwards: they are 0.
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
    const usage = mayBeAssistant ? contextUsageOf(record) : undefined;
    if (usage && !usage.isSidechain) {
      tail.usage = usage;
      return tail;
    }
  }
  return tail;
}

/**
 * The current context size of a Claude Code session from its transcript: the last measured
 * request. After a compaction and before the next request, that figure describes the old
 * context: then the boundary's `postTokens` is the size when Claude Code wrote it, else the
 * size is unknown (undefined), as it is for a transcript with no measured request yet.
 */
export async function readContextTokens(path: string, options: TailReadOptions = {}): Promise<ContextReading | undefined> {
  return contextReadingOf(await readTranscriptTail(path, options));
}

/** The context size a transcript's tail gives (see {@link readContextTokens}). */
export function contextReadingOf(tail: TranscriptTail): ContextReading | undefined {
  if (tail.compaction) {
    if (tail.compaction.postTokens === undefined) return undefined;
    return {
      contextTokens: tail.compaction.postTokens,
      source: 'compact-boundary',
      compaction: tail.compaction,
      ...(tail.usage ? { usage: tail.usage } : {}),
    };
  }
  if (!tail.usage) return undefined;
  return { contextTokens: tail.usage.contextTokens, source: 'usage', usage: tail.usage };
}

/**
 * The text of the last assistant message of a transcript whose text is not blank: its text
 * parts joined with a newline (a string content as it is). Reads backwards, at most the last
 * `maxBytes` (default 256 KiB), through the regular-file reader, so a FIFO, a folder or a device
 * is refused without blocking. Lines that are not JSON are skipped (a half-written last line).
 * Undefined when there is no such message in that span, or the file cannot be read: a sub-agent
 * whose transcript is gone has no output, which the plugin judges.
 */
export async function readLastAssistantText(path: string, options: TailReadOptions = {}): Promise<string | undefined> {
  try {
    // The line cut by the window's start is tried too: it may be whole, and a cut one does not parse.
    for await (const text of linesFromEnd(path, { ...options, maxBytes: options.maxBytes ?? DEFAULT_LAST_TEXT_MAX_BYTES }, true)) {
      const found = assistantTextOf(text);
      if (found !== undefined) return found;
    }
  } catch {
    // Unreadable: no text.
  }
  return undefined;
}

/** The non-blank text of an assistant line, else undefined. */
function assistantTextOf(text: string): string | undefined {
  if (!text.includes('"assistant"')) return undefined;
  const record = parseObject(text);
  if (record?.['type'] !== 'assistant') return undefined;
  const message = record['message'];
  const content = isRecord(message) ? message['content'] : undefined;
  const joined =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .filter((part): part is { text: string } => isRecord(part) && part['type'] === 'text' && typeof part['text'] === 'string')
            .map((part) => part.text)
            .join('\n')
        : '';
  return joined.trim() === '' ? undefined : joined;
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The file's lines, last first. A line longer than a chunk is assembled from several reads; the
 * line that `maxBytes` runs out in is dropped, or yielded as far as it was read with `keepCut`.
 */
export async function* linesFromEnd(path: string, options: TailReadOptions, keepCut = false): AsyncGenerator<string> {
  const maxBytes = Math.max(1, options.maxBytes ?? DEFAULT_TAIL_MAX_BYTES);
  const chunkSize = Math.max(1, options.chunkSize ?? DEFAULT_CHUNK_SIZE);
  let handle;
  try {
    handle = await openRegularFile(path);
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
    if ((position === 0 || keepCut) && laterParts.length > 0) {
      const text = Buffer.concat(laterParts).toString('utf8');
      if (text.trim() !== '') yield text;
    }
  } catch (error) {
    throw new Error(`Cannot read transcript ${path}: ${(error as Error).message}`, { cause: error });
  } finally {
    await handle.close();
  }
}
