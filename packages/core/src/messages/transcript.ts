import { open, type FileHandle } from 'node:fs/promises';
import { fromAnthropicMessages, type AnthropicMessageParam } from './anthropic.js';
import type { Message } from './message-model.js';
import { isRecord } from './provider-metadata.js';

/** One non-blank line of a Claude Code transcript: a JSON object, or why it is not one. */
export type TranscriptLine =
  | { line: number; value: Record<string, unknown> }
  | { line: number; error: string; /** first 200 characters */ text: string };

export interface TranscriptCompaction {
  line: number;
  trigger?: string;
  preTokens?: number;
  postTokens?: number;
  /** Index in `Transcript.messages` of the first message after the boundary. */
  messageIndex: number;
}

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
}

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

// Big enough that a 50 MB transcript takes ~50 reads, small enough to stay out of the old generation.
const CHUNK_SIZE = 1 << 20;
const NEWLINE = 0x0a;

function cleanLine(text: string, line: number): string {
  const withoutCarriageReturn = text.endsWith('\r') ? text.slice(0, -1) : text;
  return line === 1 && withoutCarriageReturn.startsWith('\uFEFF') ? withoutCarriageReturn.slice(1) : withoutCarriageReturn;
}

/** Every line of the file, blank ones included, read in chunks so memory stays flat for big files. */
async function* fileLines(path: string): AsyncGenerator<{ line: number; text: string }> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    throw new Error(`Cannot open transcript ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    const buffer = Buffer.allocUnsafe(CHUNK_SIZE);
    // Bytes of a line that started in an earlier chunk. Copied, because `buffer` is reused.
    let pending: Buffer[] = [];
    let line = 0;
    for (;;) {
      let bytesRead: number;
      try {
        ({ bytesRead } = await handle.read(buffer, 0, CHUNK_SIZE, null));
      } catch (error) {
        throw new Error(`Cannot read transcript ${path}: ${(error as Error).message}`, { cause: error });
      }
      if (bytesRead === 0) break;
      let start = 0;
      let newline: number;
      // Splitting bytes on '\n' is safe for UTF-8: that byte never occurs inside a multi-byte character.
      while ((newline = buffer.indexOf(NEWLINE, start)) !== -1 && newline < bytesRead) {
        line += 1;
        const text =
          pending.length === 0
            ? buffer.toString('utf8', start, newline)
            : Buffer.concat([...pending, buffer.subarray(start, newline)]).toString('utf8');
        pending = [];
        yield { line, text: cleanLine(text, line) };
        start = newline + 1;
      }
      if (start < bytesRead) pending.push(Buffer.from(buffer.subarray(start, bytesRead)));
    }
    if (pending.length > 0) {
      line += 1;
      yield { line, text: cleanLine(Buffer.concat(pending).toString('utf8'), line) };
    }
  } finally {
    await handle.close();
  }
}

function* textLines(text: string): Generator<{ line: number; text: string }> {
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

/** Parses one line; undefined for a blank line. */
function parseLine(line: number, text: string): TranscriptLine | undefined {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { line, error: `invalid JSON: ${(error as Error).message}`, text: text.slice(0, 200) };
  }
  if (!isRecord(value)) {
    return { line, error: `not a JSON object (${value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value})`, text: text.slice(0, 200) };
  }
  return { line, value };
}

/** Streams the parsed lines of a transcript file. Blank lines are skipped but keep their number. */
export async function* iterateTranscript(path: string): AsyncGenerator<TranscriptLine> {
  for await (const { line, text } of fileLines(path)) {
    const parsed = parseLine(line, text);
    if (parsed) yield parsed;
  }
}

/** The parsed lines of transcript text already in memory. */
export function parseTranscriptText(text: string): TranscriptLine[] {
  const result: TranscriptLine[] = [];
  for (const { line, text: lineText } of textLines(text)) {
    const parsed = parseLine(line, lineText);
    if (parsed) result.push(parsed);
  }
  return result;
}

/** A message under construction; content stays in Anthropic form so the converter does the rest. */
interface Draft {
  role: 'user' | 'assistant';
  content: string | unknown[];
  line: number;
  uuid?: string;
  timestamp?: string;
  messageId?: string;
  isMeta?: boolean;
  compactSummary?: boolean;
}

function numberOrZero(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

function isToolResultsOnly(content: string | unknown[]): content is unknown[] {
  return Array.isArray(content) && content.length > 0 && content.every((block) => isRecord(block) && block['type'] === 'tool_result');
}

/**
 * Turns transcript lines into a Transcript. Claude Code writes one API response as one line per
 * content block, all with the same `message.id`, and runs tools while the response streams, so
 * a response with several tool calls is written as call, result, call, result. The builder
 * joins these back into what the API saw: one assistant message with every block, then one user
 * message with every result.
 */
class TranscriptBuilder {
  private readonly drafts: Draft[] = [];
  private readonly transcript: Omit<Transcript, 'messages' | 'lineCount'> = { malformed: [], skippedLines: 0, compactions: [], usage: [] };
  private readonly usageByMessageId = new Map<string, TranscriptUsage>();
  /** Assistant draft that later lines of the same API message may still join. */
  private openAssistant: Draft | undefined;
  /** User draft of tool results only, that the next result lines may still join. */
  private openResults: Draft | undefined;

  add(entry: TranscriptLine): void {
    if ('error' in entry) {
      this.transcript.malformed.push({ line: entry.line, reason: entry.error });
      return;
    }
    const { line, value } = entry;
    const type = value['type'];
    if (type === 'user' || type === 'assistant') {
      this.addMessageLine(line, type, value);
    } else if (type === 'system' && value['subtype'] === 'compact_boundary') {
      this.addCompaction(line, value);
    } else {
      this.transcript.skippedLines += 1;
    }
  }

  private addCompaction(line: number, value: Record<string, unknown>): void {
    const metadata = isRecord(value['compactMetadata']) ? value['compactMetadata'] : {};
    const compaction: TranscriptCompaction = { line, messageIndex: this.drafts.length };
    if (typeof metadata['trigger'] === 'string') compaction.trigger = metadata['trigger'];
    if (typeof metadata['preTokens'] === 'number') compaction.preTokens = metadata['preTokens'];
    if (typeof metadata['postTokens'] === 'number') compaction.postTokens = metadata['postTokens'];
    this.transcript.compactions.push(compaction);
    // Nothing joins across a compaction: what follows is a new context.
    this.openAssistant = undefined;
    this.openResults = undefined;
  }

  private addUsage(line: number, message: Record<string, unknown>, isSidechain: boolean): void {
    const usage = message['usage'];
    if (!isRecord(usage)) return;
    const messageId = typeof message['id'] === 'string' ? message['id'] : undefined;
    const inputTokens = numberOrZero(usage['input_tokens']);
    const cacheReadInputTokens = numberOrZero(usage['cache_read_input_tokens']);
    const cacheCreationInputTokens = numberOrZero(usage['cache_creation_input_tokens']);
    const figures = {
      inputTokens,
      cacheReadInputTokens,
      cacheCreationInputTokens,
      contextTokens: inputTokens + cacheReadInputTokens + cacheCreationInputTokens,
    };
    const existing = messageId === undefined ? undefined : this.usageByMessageId.get(messageId);
    if (existing) {
      // Streaming lines repeat the usage; the last line has the final figures.
      Object.assign(existing, figures);
      return;
    }
    const entry: TranscriptUsage = { line, ...figures, isSidechain };
    if (messageId !== undefined) {
      entry.messageId = messageId;
      this.usageByMessageId.set(messageId, entry);
    }
    if (typeof message['model'] === 'string') entry.model = message['model'];
    this.transcript.usage.push(entry);
  }

  private addMessageLine(line: number, type: 'user' | 'assistant', value: Record<string, unknown>): void {
    const message = value['message'];
    if (!isRecord(message)) {
      this.transcript.malformed.push({ line, reason: `${type} line: message is not an object` });
      return;
    }
    const isSidechain = value['isSidechain'] === true;
    if (type === 'assistant') this.addUsage(line, message, isSidechain);
    if (isSidechain) return;

    let content = message['content'];
    if (typeof content !== 'string' && !Array.isArray(content)) {
      this.transcript.malformed.push({ line, reason: `${type} line: message.content is neither a string nor an array` });
      return;
    }
    if (Array.isArray(content)) {
      const blocks = content.filter(isRecord);
      if (blocks.length !== content.length) {
        this.transcript.malformed.push({ line, reason: `${type} line: ${content.length - blocks.length} content block(s) are not objects` });
        if (blocks.length === 0) return;
        content = blocks;
      }
    }
    const typedContent = content as string | unknown[];
    const messageId = typeof message['id'] === 'string' ? message['id'] : undefined;

    if (type === 'assistant') {
      if (this.openAssistant && messageId !== undefined && this.openAssistant.messageId === messageId) {
        this.openAssistant.content = joinContent(this.openAssistant.content, typedContent);
        return;
      }
      this.openAssistant = this.push(line, type, typedContent, value, messageId);
      this.openResults = undefined;
      return;
    }

    if (isToolResultsOnly(typedContent)) {
      if (this.openResults) {
        this.openResults.content = joinContent(this.openResults.content, typedContent);
        return;
      }
      const follows = this.drafts[this.drafts.length - 1] === this.openAssistant;
      this.openResults = this.push(line, type, typedContent, value, messageId);
      if (!follows) this.openAssistant = undefined;
      return;
    }
    this.push(line, type, typedContent, value, messageId);
    this.openAssistant = undefined;
    this.openResults = undefined;
  }

  private push(line: number, role: 'user' | 'assistant', content: string | unknown[], value: Record<string, unknown>, messageId: string | undefined): Draft {
    const draft: Draft = { role, content, line };
    if (typeof value['uuid'] === 'string') draft.uuid = value['uuid'];
    if (typeof value['timestamp'] === 'string') draft.timestamp = value['timestamp'];
    if (messageId !== undefined) draft.messageId = messageId;
    if (value['isMeta'] === true) draft.isMeta = true;
    if (value['isCompactSummary'] === true) draft.compactSummary = true;
    this.drafts.push(draft);
    return draft;
  }

  finish(lineCount: number): Transcript {
    // Only role and content: the API fields of a transcript message (id, usage, model) are not request fields.
    const params = this.drafts.map((draft) => ({ role: draft.role, content: draft.content }) as AnthropicMessageParam);
    const messages = fromAnthropicMessages(params);
    messages.forEach((message, index) => {
      const draft = this.drafts[index]!;
      if (draft.uuid !== undefined) message.id = draft.uuid;
      if (draft.compactSummary) message.compactSummary = true;
      const claudeCode: Record<string, unknown> = { line: draft.line };
      if (draft.uuid !== undefined) claudeCode['uuid'] = draft.uuid;
      if (draft.timestamp !== undefined) claudeCode['timestamp'] = draft.timestamp;
      if (draft.messageId !== undefined) claudeCode['messageId'] = draft.messageId;
      if (draft.isMeta) claudeCode['isMeta'] = true;
      message.providerMetadata = { ...message.providerMetadata, claudeCode };
    });
    return { messages, ...this.transcript, lineCount };
  }
}

function joinContent(first: string | unknown[], second: string | unknown[]): unknown[] {
  const asBlocks = (content: string | unknown[]) => (typeof content === 'string' ? [{ type: 'text', text: content }] : content);
  return [...asBlocks(first), ...asBlocks(second)];
}

/**
 * Reads a Claude Code transcript (JSONL) into provider-neutral messages plus compactions and
 * usage. Never throws on content (bad lines land in `malformed`); throws a plain Error naming the
 * path when the file cannot be opened or read.
 */
export async function readTranscript(path: string): Promise<Transcript> {
  const builder = new TranscriptBuilder();
  let lineCount = 0;
  for await (const { line, text } of fileLines(path)) {
    lineCount = line;
    const parsed = parseLine(line, text);
    if (parsed) builder.add(parsed);
  }
  return builder.finish(lineCount);
}

/** `readTranscript` for transcript text already in memory (tests derive variants this way). */
export function transcriptFromText(text: string): Transcript {
  const builder = new TranscriptBuilder();
  let lineCount = 0;
  for (const { line, text: lineText } of textLines(text)) {
    lineCount = line;
    const parsed = parseLine(line, lineText);
    if (parsed) builder.add(parsed);
  }
  return builder.finish(lineCount);
}
