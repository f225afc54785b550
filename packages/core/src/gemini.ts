/**
 * `@hookwise/core/gemini`: reading Gemini CLI's session file (`~/.gemini/tmp/<project>/chats/
 * session-*.jsonl`, the `transcript_path` its hooks get; 0.61.0), for the adapter and the report:
 * a `gemini` record's prompt size, and whether a `{"$set":{"messages":[…]}}` record is a
 * compression (its history starts with a `<state_snapshot>`).
 */
import { fileSize, jsonLinesFrom } from './command-hook/json-lines.js';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A response's token figures: `input` is the prompt and includes `cached` (Gemini's implicit cache). */
export interface GeminiUsage {
  input: number;
  /** The cached part of `input`, never more than it. */
  cached: number;
  model?: string;
}

/** The figures of a `gemini` record (a response) with a numeric `tokens.input`; undefined for any other record. */
export function geminiUsageOf(record: Record<string, unknown>): GeminiUsage | undefined {
  const tokens = record['tokens'];
  if (record['type'] !== 'gemini' || !isRecord(tokens) || typeof tokens['input'] !== 'number') return undefined;
  const input = tokens['input'];
  const cached = typeof tokens['cached'] === 'number' ? Math.min(tokens['cached'], input) : 0;
  return { input, cached, ...(typeof record['model'] === 'string' ? { model: record['model'] } : {}) };
}

/**
 * The `<state_snapshot>` message's content (as JSON text) among the first three messages of a
 * history, where 0.61.0 puts it after a compression (the session context, the snapshot, the
 * model's "Got it."); undefined for a history that is no compression's.
 */
function snapshotTextOf(messages: unknown): string | undefined {
  if (!Array.isArray(messages)) return undefined;
  return messages
    .slice(0, 3)
    .map((message) => JSON.stringify(isRecord(message) ? (message['content'] ?? '') : ''))
    .find((content) => content.includes('<state_snapshot>'));
}

/** Whether a history (a `$set` of `messages`, or one message in a list) starts with a compression's snapshot. */
export const hasStateSnapshot = (messages: unknown): boolean => snapshotTextOf(messages) !== undefined;

const TAIL_BYTES = 256 * 1024;

/** The figures of the latest response in the session file (read from its last 256 KiB); undefined when there is none. */
export function lastGeminiUsage(file: string | undefined): GeminiUsage | undefined {
  const size = fileSize(file);
  if (!file || !size) return undefined;
  for (const record of jsonLinesFrom(file, Math.max(0, size - TAIL_BYTES)).reverse()) {
    const usage = geminiUsageOf(record);
    if (usage) return usage;
  }
  return undefined;
}

export interface GeminiCompression {
  /** Identifies the snapshot: a history rewritten again with the same one is no new compression. */
  key: string;
  /** The prompt tokens of the first response after it, when one is written already. */
  tokensAfter: number | undefined;
}

/** The compressions written after byte `offset` of the session file, in order. */
export function geminiCompressionsSince(file: string, offset: number): GeminiCompression[] {
  const found: GeminiCompression[] = [];
  for (const record of jsonLinesFrom(file, offset)) {
    const set = record['$set'];
    const text = snapshotTextOf(isRecord(set) ? set['messages'] : undefined);
    const last = found.at(-1);
    if (text !== undefined) {
      const key = snapshotKey(text);
      if (last?.key !== key) found.push({ key, tokensAfter: undefined });
    } else if (last && last.tokensAfter === undefined) last.tokensAfter = geminiUsageOf(record)?.input;
  }
  return found;
}

/** A short key of a snapshot's text (length and FNV-1a): a later rewrite of the same history keeps the same key. */
function snapshotKey(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  return `${text.length}:${(hash >>> 0).toString(16)}`;
}
