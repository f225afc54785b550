import { openRegularFile, type RegularFileHandle } from '../state/regular-file.js';
import { isRecord } from './provider-metadata.js';
import type { TranscriptLine } from './transcript.js';

/**
 * The seam between a transcript's bytes and its typed entries: a reader of a file's lines. Two
 * readers stand behind it: {@link readLinesPlainly}, the spec (read, split, `JSON.parse` each
 * line), and the byte scanner in `transcript-scanner.ts`, which must give the same entries
 * (`transcript-lines.test.ts` holds them equal).
 */
export type TranscriptLineReader = (path: string, options: LineReadOptions) => AsyncGenerator<LineBatch>;

export interface LineReadOptions {
  /**
   * The lines are only turned into entries, their values never handed out: a reader may leave
   * out of a line's value what no entry reads (a user line's `toolUseResult`).
   */
  forEntries: boolean;
  /** Blocking reads for this read (see `TranscriptReadOptions.synchronous`). */
  synchronous?: boolean;
}

export interface LineBatch {
  /** Non-blank lines in file order. */
  lines: TranscriptLine[];
  /** Lines of the file read so far, blank ones included. */
  lineCount: number;
}

/**
 * A line of a type no entry reads, its JSON parsed only if `value` is read. A reader may hand
 * one out in place of a parsed line; entry typing then keeps it unparsed too.
 */
export interface UnreadLine {
  readonly line: number;
  /** The line's `type`, read without parsing it. */
  readonly unreadType: string;
  readonly value: Record<string, unknown>;
}

export function isUnreadLine(line: TranscriptLine): line is TranscriptLine & UnreadLine {
  return 'unreadType' in line;
}

/** A line's text without its trailing `\r`, and without a byte-order mark on the first line. */
export function cleanLine(text: string, line: number): string {
  const withoutCarriageReturn = text.endsWith('\r') ? text.slice(0, -1) : text;
  return line === 1 && withoutCarriageReturn.startsWith('\uFEFF') ? withoutCarriageReturn.slice(1) : withoutCarriageReturn;
}

/** Parses one line; undefined for a blank line. */
export function parseLine(line: number, text: string): TranscriptLine | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, error: `invalid JSON: ${(error as Error).message}`, text: text.slice(0, 200) };
  }
  if (!isRecord(value)) {
    return {
      line,
      error: `not a JSON object (${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value})`,
      text: text.slice(0, 200),
    };
  }
  return { line, value };
}

/** The lines of `text`, blank ones included, numbered from 1. */
export function* textLines(text: string): Generator<{ line: number; text: string }> {
  let start = 0;
  let line = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    line += 1;
    yield { line, text: cleanLine(text.slice(start, end), line) };
    start = end + 1;
  }
}

/** The lines of transcript text already in memory, as one batch. */
export function linesOfText(text: string): LineBatch {
  const lines: TranscriptLine[] = [];
  let lineCount = 0;
  for (const { line, text: lineText } of textLines(text)) {
    lineCount = line;
    const parsed = parseLine(line, lineText);
    if (parsed) lines.push(parsed);
  }
  return { lines, lineCount };
}

/** Opens a transcript through the regular-file reader (a FIFO or a folder is refused without blocking). */
export async function openTranscript(path: string, synchronous?: boolean): Promise<RegularFileHandle> {
  try {
    return await openRegularFile(path, synchronous === undefined ? {} : { synchronous });
  } catch (error) {
    throw new Error(`Cannot open transcript ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/** The plain reader: the whole file read, split into lines, each line parsed. */
export async function* readLinesPlainly(path: string, options: LineReadOptions): AsyncGenerator<LineBatch> {
  const handle = await openTranscript(path, options.synchronous);
  let text: string;
  try {
    text = await handle.readFile('utf8');
  } catch (error) {
    throw new Error(`Cannot read transcript ${path}: ${(error as Error).message}`, { cause: error });
  } finally {
    await handle.close();
  }
  const batch = linesOfText(text);
  if (batch.lineCount > 0) yield batch;
}
