import { geminiUsageOf, hasStateSnapshot } from '@hookwise/core/gemini';
import { parseSlashCommand } from '@hookwise/core/messages';
import type { ReplayEntry } from './replay-result.js';

/**
 * A Gemini CLI chat session file (`~/.gemini/tmp/<project>/chats/session-*.jsonl`, 0.61.0) turned
 * into the entries the replay consumes:
 * - line 1 is `{ sessionId, projectHash, startTime, … }`; then message records and `$set` patches;
 * - a `gemini` record is written twice with the same id (then with its `toolCalls`): the last
 *   version counts, at the line of the first; its `tokens` are the request's figures
 *   (`input` includes `cached`, Gemini's implicit cache; nothing is charged for writing it);
 * - a `user` record holds the prompt (`displayContent`: what was typed, e.g. `/babysit`, whose
 *   expansion is `content`) or the tool results (`functionResponse` parts);
 * - a `$set` of `messages` replaces the history: at the start the session context, after a
 *   compression the `<state_snapshot>` first, which makes it a compaction (`preTokens` = the last
 *   response's `tokens.input`); its messages go back as history.
 */
type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Gemini's first line: `{ "sessionId", "projectHash", "startTime", … }`. */
export function isGeminiSessionHeader(value: unknown): value is Json & { sessionId: string } {
  return isRecord(value) && typeof value['sessionId'] === 'string' && typeof value['projectHash'] === 'string' && 'startTime' in value;
}

const textOf = (parts: unknown): string =>
  typeof parts === 'string'
    ? parts
    : Array.isArray(parts)
      ? parts.map((part) => (isRecord(part) && typeof part['text'] === 'string' ? part['text'] : '')).join('')
      : '';

/** A user record's parts as Anthropic blocks: text, and tool results for `functionResponse` parts. */
function userBlocks(content: unknown): unknown[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: unknown[] = [];
  for (const part of Array.isArray(content) ? content : []) {
    if (!isRecord(part)) continue;
    if (typeof part['text'] === 'string') blocks.push({ type: 'text', text: part['text'] });
    const response = part['functionResponse'];
    if (isRecord(response))
      blocks.push({ type: 'tool_result', tool_use_id: String(response['id'] ?? ''), content: JSON.stringify(response['response'] ?? {}) });
  }
  return blocks;
}

/** A response's text and calls: its `toolCalls` (a message record) or its `functionCall` parts (a `$set` history). */
function geminiBlocks(record: Json): unknown[] {
  const text = textOf(record['content']);
  const blocks: unknown[] = text === '' ? [] : [{ type: 'text', text }];
  const parts = Array.isArray(record['content']) ? (record['content'] as unknown[]) : [];
  const calls = Array.isArray(record['toolCalls'])
    ? (record['toolCalls'] as unknown[])
    : parts.map((part) => (isRecord(part) ? part['functionCall'] : undefined)).filter(isRecord);
  for (const call of calls)
    if (isRecord(call))
      blocks.push({ type: 'tool_use', id: String(call['id'] ?? ''), name: String(call['name'] ?? ''), input: call['args'] ?? {} });
  return blocks;
}

export function geminiSessionEntries(text: string): { sessionId: string; entries: ReplayEntry[] } {
  const records: Array<{ line: number; value: Json }> = [];
  const entries: ReplayEntry[] = [];
  let sessionId = '';
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    try {
      const value = JSON.parse(raw) as unknown;
      if (isRecord(value)) records.push({ line: index + 1, value });
      else entries.push({ type: 'malformed', line: index + 1, reason: 'not a JSON object' });
    } catch (error) {
      entries.push({ type: 'malformed', line: index + 1, reason: `invalid JSON: ${(error as Error).message}` });
    }
  });
  const lastVersion = new Map<string, Json>();
  for (const { value } of records) if (value['type'] === 'gemini' && typeof value['id'] === 'string') lastVersion.set(value['id'], value);
  const emitted = new Set<string>();
  let lastInput: number | undefined;
  // Calls whose results are not written yet. Gemini writes a turn's results when it sends them,
  // after a compression that ran before that request: the compaction is put after them, where it happened.
  const open = new Set<string>();
  let deferred: ReplayEntry[] | undefined;
  const flush = () => {
    if (deferred) entries.push(...deferred);
    deferred = undefined;
  };
  const timestamp = (value: Json) => (typeof value['timestamp'] === 'string' ? { timestamp: value['timestamp'] } : {});

  for (const { line, value } of records) {
    if (isGeminiSessionHeader(value) && sessionId === '') {
      sessionId = value.sessionId;
      entries.push({ type: 'other', line, value: {} });
      continue;
    }
    const set = isRecord(value['$set']) ? value['$set'] : undefined;
    if (set && Array.isArray(set['messages'])) {
      const messages = set['messages'] as unknown[];
      const into: ReplayEntry[] = [];
      if (hasStateSnapshot(messages)) {
        into.push({ type: 'compact-boundary', line, trigger: 'auto', ...(lastInput !== undefined ? { preTokens: lastInput } : {}) });
        if (open.size > 0) deferred = into;
      }
      for (const message of messages) {
        if (!isRecord(message)) continue;
        const gemini = message['type'] === 'gemini';
        const content = gemini ? geminiBlocks(message) : userBlocks(message['content']);
        if (content.length > 0)
          into.push({
            type: 'history',
            line,
            role: gemini ? 'assistant' : 'user',
            content,
            ...(hasStateSnapshot([message]) ? { compactSummary: true as const } : {}),
          });
      }
      if (into !== deferred) entries.push(...into);
      continue;
    }
    if (value['type'] === 'user') {
      // A custom command Gemini expanded: recorded as Claude Code records a command it ran, with what was sent.
      const typed = parseSlashCommand(textOf(value['displayContent']));
      const expanded = typed !== undefined && textOf(value['content']) !== textOf(value['displayContent']);
      const ran = expanded
        ? [{ type: 'text', text: `<command-name>/${typed.name}</command-name><command-args>${typed.args}</command-args>` }]
        : [];
      const content = [...ran, ...userBlocks(value['content'])];
      if (content.length > 0) entries.push({ type: 'message', line, role: 'user', content, isSidechain: false, ...timestamp(value) });
      for (const block of content) open.delete(String((block as Json)['tool_use_id']));
      flush();
      continue;
    }
    if (value['type'] === 'gemini' && typeof value['id'] === 'string') {
      if (emitted.has(value['id'])) {
        entries.push({ type: 'other', line, value: timestamp(value) });
        continue;
      }
      flush();
      emitted.add(value['id']);
      const record = lastVersion.get(value['id']) ?? value;
      const model = typeof record['model'] === 'string' ? { model: record['model'] } : {};
      const { input, cached } = geminiUsageOf(record) ?? { input: 0, cached: 0 };
      if (input > 0) {
        lastInput = input;
        entries.push({
          type: 'usage',
          line,
          messageId: value['id'],
          ...model,
          inputTokens: input - cached,
          cacheReadInputTokens: cached,
          cacheCreationInputTokens: 0,
          contextTokens: input,
          isSidechain: false,
          ...timestamp(value),
        });
      }
      const blocks = geminiBlocks(record);
      for (const block of blocks) if ((block as Json)['type'] === 'tool_use') open.add(String((block as Json)['id']));
      entries.push({
        type: 'message',
        line,
        role: 'assistant',
        content: blocks,
        messageId: value['id'],
        ...model,
        isSidechain: false,
        ...timestamp(value),
      });
      continue;
    }
    entries.push({ type: 'other', line, value: timestamp(value) });
  }
  flush();
  return { sessionId, entries };
}
