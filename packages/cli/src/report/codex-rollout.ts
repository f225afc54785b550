import { parseSlashCommand } from '@hookwise/core/messages';
import type { ReplayEntry } from './replay-result.js';

/**
 * A Codex CLI rollout file (`$CODEX_HOME/sessions/…/rollout-*.jsonl`, JSONL of `{ timestamp,
 * type, payload }`, as Codex 0.169.0 writes it) turned into the entries the replay consumes:
 * - `response_item` payloads are Responses API items: a user `message` is a prompt (Codex's own
 *   `<environment_context>` and hook context, a developer message, are meta), an assistant
 *   `message` and the `function_call`s of one response are one assistant message, a
 *   `function_call_output` is its tool result; other developer messages are the prompt prefix;
 * - `token_usage_record` is the usage of the response before it (`input_tokens` includes the
 *   cached part: Codex's `cached_input_tokens` is what the report's cost reads as cache reads);
 * - a `compacted` line is a compaction: the summarizer's reply just before it is no turn; the
 *   history after it is its `replacement_history` (the user prompts and the summary).
 * `line` is the 1-based line number in the file.
 */
export interface CodexRollout {
  sessionId: string;
  entries: ReplayEntry[];
}

type Json = Record<string, unknown>;
const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0);

/** A rollout's first line: `{ "type": "session_meta", "payload": { "id" | "session_id", … } }`. */
export function isCodexRolloutHeader(value: unknown): value is Json & { type: 'session_meta'; payload: Json } {
  return isRecord(value) && value['type'] === 'session_meta' && isRecord(value['payload']);
}

// Codex's wording for the message that carries a compaction's summary (0.169.0).
const SUMMARY_PREFIX = 'Another language model started to solve this problem';

/** A Responses API message's text parts as Anthropic text blocks. */
function textBlocks(content: unknown): Array<{ type: 'text'; text: string }> {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) =>
    isRecord(part) && typeof part['text'] === 'string' && part['text'] !== '' ? [{ type: 'text' as const, text: part['text'] }] : [],
  );
}

const isHookContext = (item: Json): boolean => {
  const meta = item['internal_chat_message_metadata_passthrough'];
  return isRecord(meta) && Array.isArray(meta['content_item_kinds']) && meta['content_item_kinds'].includes('hooks.additional_context');
};

function argumentsOf(raw: unknown): Json {
  if (isRecord(raw)) return raw;
  if (typeof raw !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(raw);
    return isRecord(parsed) ? parsed : { arguments: raw };
  } catch {
    return { arguments: raw };
  }
}

/**
 * The replay's entries for the text of a rollout whose first line is its `session_meta`. Never
 * throws: a line that is not a JSON object with a `type` becomes a `malformed` entry.
 */
export function codexRolloutEntries(text: string): CodexRollout {
  const rollout: CodexRollout = { sessionId: 'codex-session', entries: [] };
  const { entries } = rollout;
  let model: string | undefined;
  // The assistant items of the response being read, and where its entries start (a compaction's summarizer reply is taken back out).
  let pending: { line: number; content: unknown[]; timestamp?: string } | undefined;
  let responseStart = -1;
  let responses = 0;
  // A response's usage goes before its message, on the message's line (as a Claude Code assistant line carries both).
  const flush = (usage?: {
    inputTokens: number;
    cacheReadInputTokens: number;
    cacheCreationInputTokens: number;
    contextTokens: number;
  }) => {
    if (!pending) return;
    responseStart = entries.length;
    if (usage)
      entries.push({
        type: 'usage',
        line: pending.line,
        messageId: `codex-response-${responses + 1}`,
        ...(model ? { model } : {}),
        ...usage,
        isSidechain: false,
        ...(pending.timestamp ? { timestamp: pending.timestamp } : {}),
      });
    entries.push({
      type: 'message',
      line: pending.line,
      role: 'assistant',
      content: pending.content,
      messageId: `codex-response-${++responses}`,
      isSidechain: false,
      ...(model ? { model } : {}),
      ...(pending.timestamp ? { timestamp: pending.timestamp } : {}),
    });
    pending = undefined;
  };

  text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .forEach((raw, index) => {
      const line = index + 1;
      if (raw.trim() === '') return;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch (error) {
        entries.push({ type: 'malformed', line, reason: `invalid JSON: ${(error as Error).message}` });
        return;
      }
      if (!isRecord(value) || typeof value['type'] !== 'string') {
        entries.push({ type: 'malformed', line, reason: 'not a rollout line ({ "type": …, "payload": … })' });
        return;
      }
      const payload = isRecord(value['payload']) ? value['payload'] : {};
      const timestamp = typeof value['timestamp'] === 'string' ? { timestamp: value['timestamp'] } : {};
      switch (value['type']) {
        case 'session_meta':
          rollout.sessionId = String(payload['id'] ?? payload['session_id'] ?? rollout.sessionId);
          break;
        case 'turn_context':
          if (typeof payload['model'] === 'string') model = payload['model'];
          break;
        case 'response_item': {
          const role = payload['role'];
          if (payload['type'] === 'function_call' || (payload['type'] === 'message' && role === 'assistant')) {
            pending ??= { line, content: [], ...timestamp };
            if (payload['type'] === 'message') pending.content.push(...textBlocks(payload['content']));
            else
              pending.content.push({
                type: 'tool_use',
                id: String(payload['call_id'] ?? payload['id']),
                name: String(payload['name'] ?? 'unknown'),
                input: argumentsOf(payload['arguments']),
              });
            return;
          }
          flush();
          if (payload['type'] === 'function_call_output' || payload['type'] === 'custom_tool_call_output') {
            const output = payload['output'];
            entries.push({
              type: 'message',
              line,
              role: 'user',
              content: [
                {
                  type: 'tool_result',
                  tool_use_id: String(payload['call_id']),
                  content: typeof output === 'string' ? output : JSON.stringify(output ?? ''),
                },
              ],
              isSidechain: false,
              ...timestamp,
            });
            return;
          }
          if (payload['type'] === 'message' && (role === 'user' || (role === 'developer' && isHookContext(payload)))) {
            const content = textBlocks(payload['content']);
            const meta = role === 'developer' || (content[0]?.text.trimStart().startsWith('<') ?? false);
            // Under Codex hookwise takes a typed `/name args` as the command it names (Codex records no
            // command of its own): given to the replay in the recorded form it reads as a command.
            const command = !meta && content.length === 1 ? parseSlashCommand(content[0]!.text) : undefined;
            if (command)
              content[0] = {
                type: 'text',
                text: `<command-name>/${command.name}</command-name>\n<command-args>${command.args}</command-args>`,
              };
            if (content.length > 0)
              entries.push({
                type: 'message',
                line,
                role: 'user',
                content,
                isSidechain: false,
                ...(meta ? { isMeta: true as const } : {}),
                ...timestamp,
              });
            return;
          }
          break;
        }
        case 'token_usage_record': {
          const usage = isRecord(payload['usage']) ? payload['usage'] : {};
          const input = count(usage['input_tokens']);
          const cached = Math.min(count(usage['cached_input_tokens']), input);
          const written = Math.min(count(usage['cache_write_input_tokens']), input - cached);
          flush(
            input > 0
              ? {
                  inputTokens: input - cached - written,
                  cacheReadInputTokens: cached,
                  cacheCreationInputTokens: written,
                  contextTokens: input,
                }
              : undefined,
          );
          break;
        }
        case 'compacted': {
          flush();
          // The summarizer's reply (and its usage) is the compaction request's, not a turn.
          let preTokens: number | undefined;
          if (responseStart >= 0 && entries.slice(responseStart).every((entry) => entry.type !== 'message' || entry.role === 'assistant'))
            entries.splice(responseStart);
          for (let at = entries.length - 1; at >= 0 && preTokens === undefined; at--) {
            const entry = entries[at]!;
            if (entry.type === 'usage') preTokens = entry.contextTokens;
          }
          responseStart = -1;
          entries.push({ type: 'compact-boundary', line, trigger: 'auto', ...(preTokens ? { preTokens } : {}), ...timestamp });
          const history = Array.isArray(payload['replacement_history']) ? payload['replacement_history'] : [];
          for (const item of history) {
            if (!isRecord(item) || item['type'] !== 'message' || item['role'] !== 'user') continue;
            const content = textBlocks(item['content']);
            if (content.length === 0) continue;
            const summary = content.some((block) => block.text.startsWith(SUMMARY_PREFIX));
            entries.push({ type: 'history', line, role: 'user', content, ...(summary ? { compactSummary: true as const } : {}) });
          }
          return;
        }
        default:
          break;
      }
      entries.push({ type: 'other', line, value: timestamp });
    });
  flush();
  return rollout;
}
