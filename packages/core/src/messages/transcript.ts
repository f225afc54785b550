import type { Message } from './message-model.js';
import { TranscriptBuilder } from './transcript-builder.js';
import { addEntriesOf } from './transcript-entries.js';
import { linesOfText, type LineBatch, type TranscriptLineReader } from './transcript-lines.js';
import { scanTranscriptLines } from './transcript-scanner.js';

export { compactBoundaryOf, contextUsageOf, transcriptEntriesOf } from './transcript-entries.js';

/** One non-blank line of a Claude Code transcript: a JSON object, or why it is not one. */
export type TranscriptLine =
  | { line: number; value: Record<string, unknown> }
  | { line: number; error: string /** first 200 characters */; text: string };

/** A `system` / `compact_boundary` line: a compaction happened here. */
export interface TranscriptCompactBoundary {
  line: number;
  trigger?: string;
  preTokens?: number;
  postTokens?: number;
  uuid?: string;
  timestamp?: string;
}

export interface TranscriptCompaction extends TranscriptCompactBoundary {
  /** Index in `Transcript.messages` of the first message after the boundary. */
  messageIndex: number;
}

/**
 * The token figures of one assistant line that measured a context. See {@link contextUsageOf}
 * for which lines count.
 */
export interface TranscriptUsage {
  line: number;
  messageId?: string;
  model?: string;
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  /** inputTokens + cacheReadInputTokens + cacheCreationInputTokens: the context size of that request. */
  contextTokens: number;
  isSidechain: boolean;
  uuid?: string;
  timestamp?: string;
}

/** A user or assistant line, its content still in Anthropic form. */
export interface TranscriptMessageEntry {
  type: 'message';
  line: number;
  role: 'user' | 'assistant';
  content: string | unknown[];
  /** The API message id (assistant lines): lines of one streamed response share it. */
  messageId?: string;
  model?: string;
  uuid?: string;
  timestamp?: string;
  isSidechain: boolean;
  /** Claude Code's meta lines (command caveats, skill bodies): not typed by the user. */
  isMeta?: true;
  /** The summary a compaction left behind. */
  isCompactSummary?: true;
}

/**
 * What one transcript line says, typed. An assistant line gives its `usage` entry (when it
 * measured a context) before its `message` entry; lines of no interest are `other`.
 */
export type TranscriptEntry =
  | TranscriptMessageEntry
  | ({ type: 'usage' } & TranscriptUsage)
  | ({ type: 'compact-boundary' } & TranscriptCompactBoundary)
  | { type: 'malformed'; line: number; reason: string }
  | { type: 'other'; line: number; value: Record<string, unknown> };

export interface Transcript {
  /** Main chain only: lines with `isSidechain: true` are left out. */
  messages: Message[];
  malformed: Array<{ line: number; reason: string }>;
  /** Lines skipped for their type: summary, file-history-snapshot, queue-operation, progress, other system lines, unknown. */
  skippedLines: number;
  compactions: TranscriptCompaction[];
  /** One entry per API message id (first line of the message; token figures of its last line). */
  usage: TranscriptUsage[];
  lineCount: number;
}

/**
 * The line reader behind every file read here. The byte scanner rather than the plain reader
 * (`readLinesPlainly`, its spec): the report bench needs it (`packages/core/bench/README.md`).
 */
const readLines: TranscriptLineReader = scanTranscriptLines;

/** Streams the parsed lines of a transcript file. Blank lines are skipped but keep their number. */
export async function* iterateTranscript(path: string): AsyncGenerator<TranscriptLine> {
  for await (const batch of readLines(path, { forEntries: false })) yield* batch.lines;
}

/** The parsed lines of transcript text already in memory. */
export function parseTranscriptText(text: string): TranscriptLine[] {
  return linesOfText(text).lines;
}

export interface TranscriptReadOptions {
  /**
   * Read with blocking calls (`useSynchronousReads` for this read only): no round trip through
   * libuv's thread pool per read, for a caller with nothing else to do meanwhile (a one-shot
   * command). Default: the process's setting (asynchronous unless `useSynchronousReads`).
   */
  synchronous?: boolean;
}

/**
 * Streams the typed entries of a transcript file, a chunk's worth at a time (one await per
 * chunk read, not per entry). Entries never show a line's `toolUseResult` (Claude Code's UI
 * copy of a tool's output, as big as the result). Throws an Error naming the path when it
 * cannot be read.
 */
export async function* readTranscriptEntries(path: string, options: TranscriptReadOptions = {}): AsyncGenerator<TranscriptEntry[]> {
  const lineOptions = options.synchronous === undefined ? { forEntries: true } : { forEntries: true, synchronous: options.synchronous };
  for await (const batch of readLines(path, lineOptions)) {
    const entries: TranscriptEntry[] = [];
    for (const line of batch.lines) addEntriesOf(line, entries);
    if (entries.length > 0) yield entries;
  }
}

/**
 * Reads a Claude Code transcript (JSONL) into provider-neutral messages plus compactions and
 * usage. Never throws on content (bad lines land in `malformed`); throws a plain Error naming the
 * path when the file cannot be opened or read.
 */
export async function readTranscript(path: string): Promise<Transcript> {
  return transcriptFrom(readLines(path, { forEntries: true }));
}

/** `readTranscript` over the batches of any line reader (the equality tests read both). */
export async function transcriptFrom(batches: AsyncIterable<LineBatch>): Promise<Transcript> {
  const builder = new TranscriptBuilder();
  let lineCount = 0;
  for await (const batch of batches) {
    lineCount = batch.lineCount;
    for (const line of batch.lines) builder.add(line);
  }
  return builder.finish(lineCount);
}

/** `readTranscript` for transcript text already in memory (tests derive variants this way). */
export function transcriptFromText(text: string): Transcript {
  const builder = new TranscriptBuilder();
  const { lines, lineCount } = linesOfText(text);
  for (const line of lines) builder.add(line);
  return builder.finish(lineCount);
}
