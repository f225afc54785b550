import type { Message, TranscriptLine } from '@hookwise/core';

/**
 * TRANSITIONAL — deleted when core's versions land (issue 11): the report's old rules, moved
 * here unchanged and given the names core's versions will have, so the replay imports them from
 * one place and switching to core is one import line. Nothing here is new knowledge.
 */

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const numberOrZero = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export interface TranscriptUsage {
  line: number;
  messageId?: string;
  model?: string;
  inputTokens: number;
  cacheReadInputTokens: number;
  cacheCreationInputTokens: number;
  contextTokens: number;
  isSidechain: boolean;
}

export interface TranscriptCompactBoundary {
  line: number;
  trigger?: string;
  preTokens?: number;
  postTokens?: number;
  timestamp?: string;
}

export interface TranscriptMessageEntry {
  type: 'message';
  line: number;
  role: 'user' | 'assistant';
  content: string | unknown[];
  messageId?: string;
  model?: string;
  timestamp?: string;
  isSidechain: boolean;
  isMeta?: true;
  isCompactSummary?: true;
}

export type TranscriptEntry =
  | TranscriptMessageEntry
  | ({ type: 'usage' } & TranscriptUsage)
  | ({ type: 'compact-boundary' } & TranscriptCompactBoundary)
  | { type: 'malformed'; line: number; reason: string }
  | { type: 'other'; line: number; value: Record<string, unknown> };

export function transcriptEntriesOf(parsed: TranscriptLine): TranscriptEntry[] {
  const entries: TranscriptEntry[] = [];
  collect(parsed, (entry) => entries.push(entry));
  return entries;
}

function collect(parsed: TranscriptLine, emit: (entry: TranscriptEntry) => void): void {
  {
    if ('error' in parsed) {
      emit({ type: 'malformed', line: parsed.line, reason: parsed.error });
      return;
    }
    const { line, value } = parsed;
    const type = value['type'];
    if (type === 'user' || type === 'assistant') {
      const message = value['message'];
      if (!isRecord(message)) {
        emit({ type: 'malformed', line, reason: `${type} line: message is not an object` });
        return;
      }
      const content = message['content'];
      if (typeof content !== 'string' && !Array.isArray(content)) {
        emit({ type: 'malformed', line, reason: `${type} line: message.content is neither a string nor an array` });
        return;
      }
      const isSidechain = value['isSidechain'] === true;
      const usage = message['usage'];
      if (type === 'assistant' && isRecord(usage)) {
        const figures = {
          inputTokens: numberOrZero(usage['input_tokens']),
          cacheReadInputTokens: numberOrZero(usage['cache_read_input_tokens']),
          cacheCreationInputTokens: numberOrZero(usage['cache_creation_input_tokens']),
        };
        const contextTokens = figures.inputTokens + figures.cacheReadInputTokens + figures.cacheCreationInputTokens;
        if (contextTokens > 0) {
          emit({
            type: 'usage',
            line,
            ...figures,
            contextTokens,
            isSidechain,
            ...(typeof message['id'] === 'string' ? { messageId: message['id'] } : {}),
            ...(typeof message['model'] === 'string' ? { model: message['model'] } : {}),
          });
        }
      }
      const entry: TranscriptMessageEntry = { type: 'message', line, role: type, content, isSidechain };
      if (typeof message['id'] === 'string') entry.messageId = message['id'];
      if (typeof message['model'] === 'string') entry.model = message['model'];
      if (typeof value['timestamp'] === 'string') entry.timestamp = value['timestamp'];
      if (value['isMeta'] === true) entry.isMeta = true;
      if (value['isCompactSummary'] === true) entry.isCompactSummary = true;
      emit(entry);
      return;
    }
    if (type === 'system' && value['subtype'] === 'compact_boundary') {
      const metadata = isRecord(value['compactMetadata']) ? value['compactMetadata'] : {};
      const boundary: TranscriptCompactBoundary = { line };
      if (typeof metadata['trigger'] === 'string') boundary.trigger = metadata['trigger'];
      if (typeof metadata['preTokens'] === 'number') boundary.preTokens = metadata['preTokens'];
      if (typeof metadata['postTokens'] === 'number') boundary.postTokens = metadata['postTokens'];
      if (typeof value['timestamp'] === 'string') boundary.timestamp = value['timestamp'];
      emit({ type: 'compact-boundary', ...boundary });
      return;
    }
    emit({ type: 'other', line, value });
  }
}

const NOT_A_PROMPT = /^\s*(<local-command-stdout>|<local-command-stderr>|<local-command-caveat>|\[Request interrupted by user)/;

export function isUserPrompt(message: Message): boolean {
  if (message.role !== 'user' || message.compactSummary === true) return false;
  if ((message.providerMetadata?.['claudeCode'] as { isMeta?: unknown } | undefined)?.isMeta === true) return false;
  if (message.parts.length === 0 || !message.parts.every((part) => part.type === 'text')) return false;
  const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return text.trim() !== '' && !NOT_A_PROMPT.test(text);
}

const COMMAND_NAME = /<command-name>\s*\/?([^<\s]*)\s*<\/command-name>/;
const COMMAND_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;
const PLAIN_COMMAND = /^\/([A-Za-z0-9][\w:.-]*)(?:\s+([\s\S]*))?$/;

export function parseSlashCommand(prompt: string): { name: string; args: string } | undefined {
  const tagged = COMMAND_NAME.exec(prompt);
  if (tagged && tagged[1]) return { name: tagged[1], args: (COMMAND_ARGS.exec(prompt)?.[1] ?? '').trim() };
  const plain = PLAIN_COMMAND.exec(prompt.trim());
  if (plain && plain[1]) return { name: plain[1], args: (plain[2] ?? '').trim() };
  return undefined;
}

export function resolveContextWindow(input: { model?: string | undefined; contextTokens?: number | undefined }): { contextWindow: number } {
  const fromModel = input.model !== undefined && /\[1m\]\s*$/i.test(input.model) ? 1_000_000 : 200_000;
  return { contextWindow: input.contextTokens !== undefined && input.contextTokens > fromModel ? 1_000_000 : fromModel };
}
