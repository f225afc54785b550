import type { ReplayEntry } from './replay-result.js';

/**
 * A Cline CLI session (3.0.65: `~/.cline/data/sessions/<id>/<id>.messages.json`), turned into the
 * entries the replay consumes. The file is one JSON document `{ version, sessionId, messages }`
 * whose messages hold Anthropic-style blocks (`text`, `tool_use`, `tool_result`), every one Cline
 * ever had: a compaction is kept apart (`<id>.compaction.json`), so the replay sees the whole
 * history. An assistant message's `metrics` are its request's usage; a `read_files` result's
 * content (`[{ query, result, success }]`) is the JSON text Cline sends. `line` is the message's
 * 1-based position in `messages`.
 */

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);
/** Cline stores a typed prompt as `<user_input mode="act">…</user_input>`. */
const USER_INPUT = /^\s*<user_input\b[^>]*>([\s\S]*)<\/user_input>\s*$/;

export interface ClineSession {
  sessionId: string;
  entries: ReplayEntry[];
}

/** The shape of Cline's `<id>.messages.json`: `{ sessionId, messages: [...] }` with Cline's `origin` or `agent`. */
export function isClineSession(value: unknown): value is { sessionId: string; messages: unknown[] } {
  return (
    isRecord(value) &&
    typeof value['sessionId'] === 'string' &&
    Array.isArray(value['messages']) &&
    (isRecord(value['origin']) || typeof value['agent'] === 'string')
  );
}

/** A message's blocks as the replay reads them: a tool result's content as text, a prompt unwrapped. */
function blocksOf(content: unknown): unknown[] {
  if (typeof content === 'string') return [{ type: 'text', text: USER_INPUT.exec(content)?.[1] ?? content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isRecord).map((block) => {
    if (block['type'] === 'text' && typeof block['text'] === 'string')
      return { ...block, text: USER_INPUT.exec(block['text'])?.[1] ?? block['text'] };
    if (block['type'] !== 'tool_result' || typeof block['content'] === 'string') return block;
    const { name: _name, ...result } = block;
    return { ...result, content: JSON.stringify(block['content'] ?? '') };
  });
}

/** Cline's session as replay entries. */
export function clineSessionEntries(session: { sessionId: string; messages: unknown[] }): ClineSession {
  const entries: ReplayEntry[] = [];
  session.messages.forEach((message, index) => {
    const line = index + 1;
    if (!isRecord(message) || (message['role'] !== 'user' && message['role'] !== 'assistant')) {
      entries.push({ type: 'malformed', line, reason: 'message is not { role: "user" | "assistant", content }' });
      return;
    }
    const timestamp = typeof message['ts'] === 'number' ? { timestamp: new Date(message['ts']).toISOString() } : {};
    const content = blocksOf(message['content']);
    if (message['role'] === 'user') {
      entries.push({ type: 'message', line, role: 'user', content, isSidechain: false, ...timestamp });
      return;
    }
    const messageId = typeof message['id'] === 'string' ? message['id'] : `cline-${line}`;
    const modelInfo =
      isRecord(message['modelInfo']) && typeof message['modelInfo']['id'] === 'string' ? { model: message['modelInfo']['id'] } : {};
    const metrics = isRecord(message['metrics']) ? message['metrics'] : {};
    const inputTokens = count(metrics['inputTokens']);
    const cacheReadInputTokens = count(metrics['cacheReadTokens']);
    const cacheCreationInputTokens = count(metrics['cacheWriteTokens']);
    const contextTokens = inputTokens + cacheReadInputTokens + cacheCreationInputTokens;
    if (contextTokens > 0)
      entries.push({
        type: 'usage',
        line,
        messageId,
        ...modelInfo,
        inputTokens,
        cacheReadInputTokens,
        cacheCreationInputTokens,
        contextTokens,
        isSidechain: false,
        ...timestamp,
      });
    entries.push({ type: 'message', line, role: 'assistant', content, messageId, ...modelInfo, isSidechain: false, ...timestamp });
  });
  return { sessionId: session.sessionId, entries };
}
