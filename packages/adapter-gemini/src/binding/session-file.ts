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

export type Usage = { tokens: number; model?: string };

/** The prompt tokens Gemini reported for its latest response (`tokens.input` of a `gemini` record), and its model. */
export function lastUsage(file: string | undefined): Usage | undefined {
  const size = sizeOf(file);
  if (!file || !size) return undefined;
  const found = records(readRange(file, Math.max(0, size - TAIL_BYTES), size))
    .reverse()
    .find((record) => record.type === 'gemini' && typeof (record.tokens as { input?: unknown } | undefined)?.input === 'number');
  if (!found) return undefined;
  return { tokens: (found.tokens as { input: number }).input, ...(typeof found.model === 'string' ? { model: found.model } : {}) };
}

/**
 * The snapshot a rewritten history starts with (0.61.0: the session context, then the user
 * message `<state_snapshot>…`, then the model's "Got it."), as a short key; undefined for none.
 */
function snapshotOf(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  const text = messages
    .slice(0, 3)
    .map((message) => JSON.stringify((message as { content?: unknown })?.content ?? ''))
    .find((content) => content.includes('<state_snapshot>'));
  if (text === undefined) return undefined;
  let hash = 0x811c9dc5; // FNV-1a: a later rewrite of the same history keeps the same snapshot
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return `${text.length}:${(hash >>> 0).toString(16)}`;
}

export interface Compression {
  /** Identifies the snapshot: a history rewritten again with the same one is no new compression. */
  snapshot: string;
  /** The prompt tokens of the first response after it, when one is written already. */
  tokensAfter: number | undefined;
}

/** The compressions written after byte `offset` of the session file. */
export function compressionsSince(file: string, offset: number): Compression[] {
  const size = sizeOf(file);
  if (size === undefined || size <= offset) return [];
  const found: Compression[] = [];
  for (const record of records(readRange(file, offset, size))) {
    const snapshot = snapshotOf((record.$set as { messages?: unknown } | undefined)?.messages);
    if (snapshot !== undefined) {
      if (found.at(-1)?.snapshot !== snapshot) found.push({ snapshot, tokensAfter: undefined });
    } else if (record.type === 'gemini' && found.length > 0 && found.at(-1)!.tokensAfter === undefined) {
      const input = (record.tokens as { input?: unknown } | undefined)?.input;
      if (typeof input === 'number') found.at(-1)!.tokensAfter = input;
    }
  }
  return found;
}
