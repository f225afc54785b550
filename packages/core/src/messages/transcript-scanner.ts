import { fstatSync } from 'node:fs';
import type { RegularFileHandle } from '../state/regular-file.js';
import { isRecord } from './provider-metadata.js';
import type { TranscriptLine } from './transcript.js';
import { cleanLine, openTranscript, parseLine, type LineBatch, type LineReadOptions, type UnreadLine } from './transcript-lines.js';

/*
 * The transcript reader the report runs on: the plain reader's results (`transcript-lines.ts`,
 * its spec) from fewer bytes decoded and parsed. It reads the `type` of a line without parsing
 * it and leaves lines of a type no entry reads unparsed until asked; it cuts a tool result's
 * `toolUseResult` (Claude Code's UI copy of the output) out before parsing a user line; it
 * reuses its read buffers and reads the next chunk while this one is parsed. Why each trick is
 * kept, with its figures: `packages/core/bench/README.md` ("Transcript reader"). One difference
 * by design: a line of an unread type broken in its middle is typed by its head, not reported.
 */

// Big enough that a long transcript takes few reads, small enough to stay out of the old generation.
const CHUNK_SIZE = 1 << 20;
// The first read of a file that grew after it was opened (a live session appends), and the
// least a read asks for.
const FIRST_CHUNK_SIZE = 1 << 16;
const NEWLINE = 0x0a;

/**
 * Read buffers of `CHUNK_SIZE` no line keeps a view of, kept for the next read (at most two:
 * one being read into while the other is split). A fresh buffer costs the read that fills it
 * page faults, which the parse then waits for; a reused one is mapped already. Taken out while
 * a read uses them, so two reads at once never share one.
 */
const spareChunks: Buffer[] = [];
const MAX_SPARE_CHUNKS = 2;

function takeChunk(size: number): Buffer {
  return size === CHUNK_SIZE ? (spareChunks.pop() ?? Buffer.allocUnsafe(size)) : Buffer.allocUnsafe(size);
}

function giveChunk(chunk: Buffer | undefined): void {
  if (chunk !== undefined && chunk.length === CHUNK_SIZE && spareChunks.length < MAX_SPARE_CHUNKS && !spareChunks.includes(chunk))
    spareChunks.push(chunk);
}

/** The first read's size: the whole file when it is small (one read, no mebibyte for a short transcript), else a full chunk. */
function firstChunkSize(fd: number): number {
  let size: number;
  try {
    size = fstatSync(fd).size;
  } catch {
    return FIRST_CHUNK_SIZE;
  }
  // One byte more than the file, so the first read comes back short and says the end is near.
  return size + 1 >= CHUNK_SIZE ? CHUNK_SIZE : Math.max(FIRST_CHUNK_SIZE, size + 1);
}

/**
 * A line as read from the file: its text, or, for a line of a type no entry reads, its bytes
 * unparsed. `full` is set when `text` is the line without fields no entry reads: the whole line,
 * to parse when `text` does not parse (so a broken line is reported as it is).
 */
type RawLine = { line: number; text: string; full?: Buffer } | UnparsedLine;

/**
 * Line types whose content no transcript entry reads (hook progress, file-history snapshots,
 * queue operations): most of a long session's lines.
 */
const UNREAD_TYPES = ['progress', 'file-history-snapshot', 'queue-operation'] as const;

const TYPE_KEY = Buffer.from('"type":"');
/** A tool result line's copy of the tool's output for Claude Code's UI: as big as the result in `message`, and read by no entry. */
const TOOL_USE_RESULT_KEY = Buffer.from(',"toolUseResult":');
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const CARRIAGE_RETURN = 0x0d;
// Claude Code writes `type` after a handful of short scalar fields; a line whose `type` is not found by then is parsed.
const TYPE_SCAN_LIMIT = 2_048;
// The fields after `toolUseResult` are a few ids.
const TAIL_SCAN_LIMIT = 512;

/** Index of the final `}` of the line `bytes[start, end)` when it is one object (`{` … `}`), else -1. */
function objectEnd(bytes: Buffer, start: number, end: number): number {
  let last = end - 1;
  if (last > start && bytes[last] === CARRIAGE_RETURN) last--;
  return bytes[start] === OPEN_BRACE && bytes[last] === CLOSE_BRACE ? last : -1;
}

/** The line types {@link rawLine} tells apart without parsing, each with its closing quote (bytes). */
const HEAD_TYPES = [...UNREAD_TYPES, 'user'] as const;
type HeadType = (typeof HEAD_TYPES)[number];
const HEAD_TYPE_BYTES = HEAD_TYPES.map((type) => Buffer.from(`${type}"`));
// Distinct: the first byte picks the one type to compare.
const HEAD_TYPES_BY_FIRST_BYTE = HEAD_TYPE_BYTES.map((bytes) => bytes[0]!);
const LOWERCASE_Y = 0x79;
// `y`s in other keys and values before `type` ("userType") are skipped one search each; past
// this many, the rest of the head is searched for the key as a whole.
const MAX_Y_SEARCHES = 4;

/**
 * Searches of one buffer for a byte or bytes from positions that only grow (line after line),
 * each answered from the last one's result while that still holds (it is the first match at or
 * after the position asked). A search runs past the line it is for when that line has no match,
 * maybe to the buffer's end: without this, a buffer of lines without a match would be searched
 * to its end once per line.
 */
class ForwardSearch {
  private from = 0;
  private found = -2;
  constructor(
    private readonly bytes: Buffer,
    private readonly needle: number | Buffer,
  ) {}

  /** Index of the first match at or after `at`, or -1. */
  next(at: number): number {
    if (this.found === -2 || at < this.from || (this.found !== -1 && at > this.found)) {
      this.found = this.bytes.indexOf(this.needle, at);
      this.from = at;
    }
    return this.found;
  }
}

/** The searches {@link headType} makes in one buffer. */
class HeadSearches {
  readonly y: ForwardSearch;
  readonly key: ForwardSearch;
  constructor(bytes: Buffer) {
    this.y = new ForwardSearch(bytes, LOWERCASE_Y);
    this.key = new ForwardSearch(bytes, TYPE_KEY);
  }
}

/**
 * Index of the first `"type":"` in `bytes[from, end)` (the whole key within), or -1. Found by its
 * `y`: a native search for one byte runs far faster than a search for the key's bytes, whose
 * first byte, a quote, is every few bytes of JSON.
 */
function typeKeyAt(bytes: Buffer, from: number, end: number, searches: HeadSearches): number {
  let y = from + 2;
  for (let count = 0; count < MAX_Y_SEARCHES; count++) {
    y = searches.y.next(y);
    if (y === -1 || y - 2 + TYPE_KEY.length > end) return -1;
    if (
      bytes[y - 2] === QUOTE &&
      bytes[y - 1] === 0x74 &&
      bytes[y + 1] === 0x70 &&
      bytes[y + 2] === 0x65 &&
      bytes[y + 3] === QUOTE &&
      bytes[y + 4] === COLON &&
      bytes[y + 5] === QUOTE
    )
      return y - 2;
    y += 1;
  }
  const key = searches.key.next(y - 2);
  return key === -1 || key + TYPE_KEY.length > end ? -1 : key;
}

/**
 * The top-level `type` of the line `bytes[start, last]` when it is one of {@link HEAD_TYPES},
 * read without parsing it; undefined for any other type (the line is parsed). Certain only in the
 * shape Claude Code writes: compact, with no `{` between the line's own and its first
 * `"type":"`. Then that key is a top-level one: those bytes are never inside a JSON string (a
 * quote in a string is escaped), and a key belongs to an object, which opens with `{` (an array
 * before the key, as in `{"tags":["a"],"type":…}`, holds no keys). Native searches for single
 * bytes, no loop over the head's bytes (the one loop compares the type's name): this runs on
 * every line.
 */
function headType(bytes: Buffer, start: number, last: number, searches: HeadSearches): HeadType | undefined {
  // Searched in place, bounded after the fact (no view of the head per line: that cost more than the searches).
  const end = Math.min(last, start + TYPE_SCAN_LIMIT);
  const key = typeKeyAt(bytes, start + 1, end, searches);
  // The nearest `{` before the key is the line's own (a search that stops there at the latest).
  if (key === -1 || bytes.lastIndexOf(OPEN_BRACE, key) !== start) return undefined;
  const valueStart = key + TYPE_KEY.length;
  const index = HEAD_TYPES_BY_FIRST_BYTE.indexOf(bytes[valueStart]!);
  if (index === -1) return undefined;
  const name = HEAD_TYPE_BYTES[index]!;
  // The value's closing quote must lie within the scanned head, as a quote searched for would.
  if (valueStart + name.length > end) return undefined;
  for (let offset = 1; offset < name.length; offset++) if (bytes[valueStart + offset] !== name[offset]) return undefined;
  return HEAD_TYPES[index];
}

/** Index of the quote that opens the string whose closing quote is at `close` (an unescaped one: even backslashes before it), or -1. */
function stringStart(bytes: Buffer, close: number, floor: number): number {
  for (let index = close - 1; index >= floor; index--) {
    if (bytes[index] !== QUOTE) continue;
    let backslashes = 0;
    while (index - backslashes - 1 >= floor && bytes[index - backslashes - 1] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return index;
  }
  return -1;
}

const UPPERCASE_U = 0x55;
/** Where the `U` of `,"toolUseResult":` is in it. */
const TOOL_USE_RESULT_U = TOOL_USE_RESULT_KEY.indexOf(UPPERCASE_U);
// `U`s after the key (in the fields after it, or in a value with the same key nested in it) are
// skipped one search each; past this many, the rest of the line is searched for the key as a whole.
const MAX_U_SEARCHES = 8;

/**
 * Index of the last `,"toolUseResult":` in `line`, or -1. Found by its `U`, searching backwards:
 * through JSON, a search for one byte runs far faster than one for the key's bytes, and from the
 * line's end it crosses the field's value, a tool's output.
 */
function lastToolUseResultKey(line: Buffer): number {
  let at = line.length - 1;
  for (let count = 0; count < MAX_U_SEARCHES; count++) {
    const u = line.lastIndexOf(UPPERCASE_U, at);
    if (u < TOOL_USE_RESULT_U) return -1;
    const key = u - TOOL_USE_RESULT_U;
    let offset = 0;
    while (offset < TOOL_USE_RESULT_KEY.length && line[key + offset] === TOOL_USE_RESULT_KEY[offset]) offset++;
    if (offset === TOOL_USE_RESULT_KEY.length) return key;
    at = u - 1;
  }
  // A key starting here at the latest has its `U` at `at` or before (a negative offset would count from the end).
  const latest = at - TOOL_USE_RESULT_U;
  return latest < 0 ? -1 : line.lastIndexOf(TOOL_USE_RESULT_KEY, latest);
}

/**
 * The text of the line `bytes[start, last]` (a user line) without its top-level `toolUseResult` field, or
 * undefined. The field is found as the last `,"toolUseResult":` and its value ends where the
 * scalar fields after it begin (walked back from the line's end). Nothing here needs to be sure:
 * the result is parsed, and cutting anything but one whole top-level field leaves braces that do
 * not match, so it does not parse and the whole line is parsed instead.
 */
function withoutToolUseResult(bytes: Buffer, start: number, last: number): string | undefined {
  const line = bytes.subarray(start, last + 1);
  const key = lastToolUseResultKey(line);
  if (key === -1) return undefined;
  const floor = Math.max(key + TOOL_USE_RESULT_KEY.length, line.length - TAIL_SCAN_LIMIT);
  // Walk back over `,"name":scalar` fields from the closing brace until the value before is toolUseResult's.
  let tail = line.length - 1;
  for (;;) {
    const before = line[tail - 1];
    if (before === CLOSE_BRACE || before === CLOSE_BRACKET) break;
    let valueStart: number;
    if (before === QUOTE) {
      valueStart = stringStart(line, tail - 1, floor);
    } else {
      valueStart = tail - 1;
      while (valueStart > floor && line[valueStart - 1] !== COLON) valueStart--;
    }
    if (valueStart < floor || line[valueStart - 1] !== COLON || line[valueStart - 2] !== QUOTE) return undefined;
    const keyStart = stringStart(line, valueStart - 2, floor - TOOL_USE_RESULT_KEY.length);
    if (keyStart === -1 || line[keyStart - 1] !== COMMA) return undefined;
    // toolUseResult's own value is a string or a scalar (an error's text): the tail starts after it.
    if (keyStart - 1 === key) break;
    if (keyStart - 1 < key) return undefined;
    tail = keyStart - 1;
  }
  return textWithout(line, key, tail);
}

// Where textWithout keeps the bytes it overwrites (the tail is at most TAIL_SCAN_LIMIT bytes).
const SCRATCH = Buffer.allocUnsafe(TAIL_SCAN_LIMIT);

/**
 * The text of `line` without `line[key, tail)`, as one flat string: the tail (a few ids, then
 * `}`) moved next to the head in the read buffer, one decode, then the buffer put back as it was.
 * Two decodes joined make a cons string, which JSON.parse flattens into a second copy of the
 * line; a joined copy of the bytes costs a copy of the head.
 */
function textWithout(line: Buffer, key: number, tail: number): string {
  const tailLength = line.length - tail;
  // The tail would overwrite itself (the cut is shorter than it): two decodes joined.
  if (tail - key < tailLength) return line.toString('utf8', 0, key) + line.toString('utf8', tail);
  line.copy(SCRATCH, 0, key, key + tailLength);
  line.copy(line, key, tail, line.length);
  try {
    return line.toString('utf8', 0, key + tailLength);
  } finally {
    SCRATCH.copy(line, key, 0, tailLength);
  }
}

/**
 * The bytes of one read buffer's unread lines, copied out of it together before it is filled
 * again: one copy per chunk, runs of adjacent lines copied as one (with the newlines between).
 * Not a Buffer per line (each with its share of a pool slab), nor a string per line (more of the
 * JS heap, so more scavenges). An entry a consumer keeps keeps its chunk's copy (at most the
 * chunk).
 */
class UnreadBytes {
  /** The copy, once made (a line joined from two chunks is a copy already: it is its own). */
  bytes: Buffer | undefined;
  // [start, end) of each run of adjacent kept lines in the read buffer.
  private readonly runs: number[] = [];
  private size = 0;
  constructor(private readonly chunk: Buffer) {}

  static whole(bytes: Buffer): UnreadBytes {
    const unread = new UnreadBytes(bytes);
    unread.bytes = bytes;
    return unread;
  }

  /** Keeps `chunk[start, end)`; returns where it will be in the copy. */
  keep(start: number, end: number): number {
    const runs = this.runs;
    // The last run ends at the newline before this line: it grows by the newline and the line.
    if (runs.length > 0 && runs[runs.length - 1] === start - 1) {
      runs[runs.length - 1] = end;
      const offset = this.size + 1;
      this.size = offset + end - start;
      return offset;
    }
    runs.push(start, end);
    const offset = this.size;
    this.size = offset + end - start;
    return offset;
  }

  /** Copies what was kept, before the read buffer is filled again. */
  copy(): void {
    if (this.size === 0) return;
    const bytes = Buffer.allocUnsafe(this.size);
    let at = 0;
    for (let index = 0; index < this.runs.length; index += 2) at += this.chunk.copy(bytes, at, this.runs[index]!, this.runs[index + 1]!);
    this.bytes = bytes;
  }
}

/**
 * A line of one of {@link UNREAD_TYPES}: its type is known, its JSON is parsed only if its
 * `value` is asked for (a consumer looking at a timestamp). Its middle is not checked: a line
 * broken there counts as a line of its type, not as malformed (it carries nothing entries read);
 * one cut short (no closing brace) is parsed, so it is reported. Its bytes are a copy (see
 * {@link UnreadBytes}): the read buffer they came from is filled again by a later read.
 */
class UnparsedLine implements UnreadLine {
  private parsed: Record<string, unknown> | undefined;
  constructor(
    readonly line: number,
    readonly unreadType: string,
    private readonly source: UnreadBytes,
    private readonly offset: number,
    private readonly length: number,
  ) {}

  get value(): Record<string, unknown> {
    if (this.parsed === undefined) {
      let value: unknown;
      try {
        value = JSON.parse(cleanLine(this.source.bytes!.toString('utf8', this.offset, this.offset + this.length), this.line));
      } catch {
        value = undefined;
      }
      this.parsed = isRecord(value) ? value : { type: this.unreadType };
    }
    return this.parsed;
  }
}

/** A copy of `bytes[start, end)` (one buffer, from Node's pool when small; `Buffer.from` of a view makes two). */
function copyOf(bytes: Buffer, start: number, end: number): Buffer {
  const copy = Buffer.allocUnsafe(end - start);
  bytes.copy(copy, 0, start, end);
  return copy;
}

/**
 * The line `bytes[start, end)`: decoded, or kept unparsed (a copy of the bytes). With `forEntries`
 * (the line is only turned into entries, its value not handed out), a user line loses its
 * `toolUseResult` before it is decoded and parsed.
 */
function rawLine(
  line: number,
  bytes: Buffer,
  start: number,
  end: number,
  forEntries: boolean,
  searches = new HeadSearches(bytes),
  unread?: UnreadBytes,
): RawLine {
  const last = objectEnd(bytes, start, end);
  const type = last === -1 ? undefined : headType(bytes, start, last, searches);
  // Every head type but `user` is one of UNREAD_TYPES.
  if (type !== undefined && type !== 'user') {
    if (unread === undefined) return new UnparsedLine(line, type, UnreadBytes.whole(bytes), start, end - start);
    return new UnparsedLine(line, type, unread, unread.keep(start, end), end - start);
  }
  if (forEntries && type === 'user') {
    const cut = withoutToolUseResult(bytes, start, last);
    if (cut !== undefined) return { line, text: cut, full: bytes.subarray(start, end) };
  }
  return { line, text: cleanLine(bytes.toString('utf8', start, end), line) };
}

/** A raw line as a TranscriptLine: parsed, or left unparsed (its value parses when read); undefined for a blank line. */
function parseRawLine(raw: RawLine): TranscriptLine | undefined {
  if (raw instanceof UnparsedLine) return raw;
  if (raw.full === undefined) return parseLine(raw.line, raw.text);
  const parsed = parseLine(raw.line, raw.text);
  // Without toolUseResult it did not parse: the whole line, so its error is the line's own.
  return parsed !== undefined && !('error' in parsed) ? parsed : parseLine(raw.line, cleanLine(raw.full.toString('utf8'), raw.line));
}

function parseRawLines(raws: RawLine[]): TranscriptLine[] {
  const lines: TranscriptLine[] = [];
  for (const raw of raws) {
    const parsed = parseRawLine(raw);
    if (parsed) lines.push(parsed);
  }
  return lines;
}

/**
 * The scanner behind the line-reader seam (see `TranscriptLineReader`): the file read in chunks
 * so memory stays flat for big files, handed over a chunk's lines at a time (one await per
 * chunk, not per line).
 */
export async function* scanTranscriptLines(path: string, options: LineReadOptions): AsyncGenerator<LineBatch> {
  const { forEntries } = options;
  const handle: RegularFileHandle = await openTranscript(path, options.synchronous);
  // The next chunk is read while this one is parsed (the read runs on libuv's thread pool), so
  // the parse does not wait for the disk after the first chunk. Two buffers take turns: no line
  // keeps a view of one (unparsed lines and a line's start are copied), so each is filled again.
  let reading: Promise<{ bytesRead: number }> | undefined;
  let buffer: Buffer | undefined;
  let spare: Buffer | undefined;
  try {
    // Bytes of a line that started in an earlier chunk (copies).
    let pending: Buffer[] = [];
    let line = 0;
    buffer = takeChunk(firstChunkSize(handle.fd));
    reading = handle.read(buffer, 0, buffer.length, null);
    for (;;) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await reading);
      } catch (error) {
        throw new Error(`Cannot read transcript ${path}: ${(error as Error).message}`, { cause: error });
      }
      if (bytesRead === 0) break;
      const chunk: Buffer = buffer;
      // A short read is the end of the file (so far: a live session appends): little to read next.
      const nextSize = bytesRead < chunk.length ? FIRST_CHUNK_SIZE : CHUNK_SIZE;
      buffer = spare !== undefined && spare.length >= nextSize ? spare : takeChunk(nextSize);
      if (buffer !== spare) giveChunk(spare);
      spare = undefined;
      reading = handle.read(buffer, 0, buffer.length, null);
      const raws: RawLine[] = [];
      const searches = new HeadSearches(chunk);
      const unread = new UnreadBytes(chunk);
      let start = 0;
      let newline: number;
      // Splitting bytes on '\n' is safe for UTF-8: that byte never occurs inside a multi-byte character.
      while ((newline = chunk.indexOf(NEWLINE, start)) !== -1 && newline < bytesRead) {
        line += 1;
        if (pending.length === 0) {
          raws.push(rawLine(line, chunk, start, newline, forEntries, searches, unread));
        } else {
          const joined = Buffer.concat([...pending, chunk.subarray(start, newline)]);
          raws.push(rawLine(line, joined, 0, joined.length, forEntries));
          pending = [];
        }
        start = newline + 1;
      }
      if (start < bytesRead) pending.push(copyOf(chunk, start, bytesRead));
      unread.copy();
      // Parsed before the chunk is the next read's buffer (a cut line's `full` is a view of it).
      const lines = parseRawLines(raws);
      spare = chunk;
      if (raws.length > 0) yield { lines, lineCount: line };
    }
    if (pending.length > 0) {
      line += 1;
      const joined = Buffer.concat(pending);
      yield { lines: parseRawLines([rawLine(line, joined, 0, joined.length, forEntries)]), lineCount: line };
    }
  } finally {
    // A consumer that stopped early leaves a read under way: let it end before closing (a read
    // already awaited, or one that failed, settles at once). Then the buffers are free.
    await reading?.catch(() => undefined);
    await handle.close();
    giveChunk(spare);
    giveChunk(buffer);
  }
}
