// What the adapter reads of Gemini CLI's session file (`transcript_path`, JSONL): the last
// response's prompt size, and whether a compression replaced the history since an offset (a
// `{"$set":{"messages":[…]}}` record whose history starts with a `<state_snapshot>`).
import { closeSync, openSync, readSync, statSync } from 'node:fs';

const TAIL_BYTES = 256 * 1024;

/** The file's size in bytes, or undefined when it cannot be read. */
export function sizeOf(file: string | undefined): number | undefined {
  if (!file) return undefined;
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}

function readRange(file: string, start: number, end: number): string {
  const buffer = Buffer.alloc(Math.max(0, end - start));
  const fd = openSync(file, 'r');
  try {
    let read = 0;
    while (read < buffer.length) {
      const count = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (count === 0) break;
      read += count;
    }
    return buffer.toString('utf8', 0, read);
  } finally {
    closeSync(fd);
  }
}

const records = (text: string): Record<string, unknown>[] =>
  text.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return []; // a line cut by the read window, or one being written
    }
  });

/** The prompt tokens Gemini reported for its latest response (`tokens.input` of a `gemini` record), and its model. */
export function lastUsage(file: string | undefined): { tokens: number; model?: string } | undefined {
  const size = sizeOf(file);
  if (!file || !size) return undefined;
  const found = records(readRange(file, Math.max(0, size - TAIL_BYTES), size))
    .reverse()
    .find((record) => record.type === 'gemini' && typeof (record.tokens as { input?: unknown } | undefined)?.input === 'number');
  if (!found) return undefined;
  return { tokens: (found.tokens as { input: number }).input, ...(typeof found.model === 'string' ? { model: found.model } : {}) };
}

const isSnapshotHistory = (messages: unknown): boolean =>
  Array.isArray(messages) && messages.length > 0 && JSON.stringify(messages[0]).includes('<state_snapshot>');

/**
 * The compressions written after byte `offset`: for each, the prompt tokens of the first response
 * after it when one is written already (the size after; else undefined).
 */
export function compressionsSince(file: string, offset: number): Array<{ tokensAfter: number | undefined }> {
  const size = sizeOf(file);
  if (size === undefined || size <= offset) return [];
  const found: Array<{ tokensAfter: number | undefined }> = [];
  for (const record of records(readRange(file, offset, size))) {
    const set = record.$set as { messages?: unknown } | undefined;
    if (set && isSnapshotHistory(set.messages)) found.push({ tokensAfter: undefined });
    else if (record.type === 'gemini' && found.length > 0 && found.at(-1)!.tokensAfter === undefined) {
      const input = (record.tokens as { input?: unknown } | undefined)?.input;
      if (typeof input === 'number') found.at(-1)!.tokensAfter = input;
    }
  }
  return found;
}
