// What the adapter reads of Gemini CLI's session file (`transcript_path`, JSONL): the last
// response's prompt size, and whether a compression replaced the history since an offset (a
// `{"$set":{"messages":[…]}}` record whose history starts with a `<state_snapshot>`).
import { fileSize, jsonLinesFrom } from '@hookwise/core/command-hook';

const TAIL_BYTES = 256 * 1024;

export type Usage = { tokens: number; model?: string };

/** The prompt tokens of a `gemini` record (a response): its `tokens.input`. */
function promptTokensOf(record: Record<string, unknown>): number | undefined {
  const input = (record.tokens as { input?: unknown } | undefined)?.input;
  return record.type === 'gemini' && typeof input === 'number' ? input : undefined;
}

/** The prompt tokens Gemini reported for its latest response, and its model. */
export function lastUsage(file: string | undefined): Usage | undefined {
  const size = fileSize(file);
  if (!file || !size) return undefined;
  const found = jsonLinesFrom(file, Math.max(0, size - TAIL_BYTES))
    .reverse()
    .find((record) => promptTokensOf(record) !== undefined);
  if (!found) return undefined;
  return { tokens: promptTokensOf(found)!, ...(typeof found.model === 'string' ? { model: found.model } : {}) };
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
  const found: Compression[] = [];
  for (const record of jsonLinesFrom(file, offset)) {
    const snapshot = snapshotOf((record.$set as { messages?: unknown } | undefined)?.messages);
    const last = found.at(-1);
    if (snapshot !== undefined) {
      if (last?.snapshot !== snapshot) found.push({ snapshot, tokensAfter: undefined });
    } else if (last && last.tokensAfter === undefined) last.tokensAfter = promptTokensOf(record);
  }
  return found;
}
