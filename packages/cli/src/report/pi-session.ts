import type { TranscriptUsage } from '@hookwise/core/claude-code';
import type { ReplayEntry } from './replay-result.js';

/**
 * A pi session file (JSONL, version 3, as pi 1.5.x writes it) turned into the entries the replay
 * consumes, so a pi session gets the figures a Claude Code transcript gets. The request history
 * is rebuilt the way pi builds it (`buildSessionContext`, `convertToLlm`, `transformMessages`):
 * - entries form a tree; only the active branch counts, walked back from the last entry;
 * - each assistant message is one API request, its `usage` the request's figures; an assistant
 *   message that ended in `error` or `aborted` is left out, as pi leaves it out of the next request;
 * - pi's own roles go to the model as user text, as pi sends them: `custom` (and
 *   `custom_message` entries), `bashExecution` (`!cmd`, unless excluded), `branchSummary`;
 *   none of them is a prompt the user typed;
 * - a `compaction` entry is a compaction (`preTokens` = its `tokensBefore`); the history after it
 *   is the summary, then the kept entries (`firstKeptEntryId` up to the compaction), returned as
 *   `history` entries without events.
 * `line` is the entry's 1-based line number in the file.
 */

export interface PiSession {
  sessionId: string;
  entries: ReplayEntry[];
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** pi's first line: `{ "type": "session", "id": …, "version": …, "cwd": … }`. */
export function isPiSessionHeader(value: unknown): value is Json & { type: 'session'; id: string } {
  return isRecord(value) && value['type'] === 'session' && typeof value['id'] === 'string';
}

// pi's wording for the messages it writes itself (core/messages.js, 1.5.2).
const COMPACTION_SUMMARY_PREFIX = 'The conversation history before this point was compacted into the following summary:\n\n<summary>\n';
const COMPACTION_SUMMARY_SUFFIX = '\n</summary>';
const BRANCH_SUMMARY_PREFIX = 'The following is a summary of a branch that this conversation came back from:\n\n<summary>\n';
const BRANCH_SUMMARY_SUFFIX = '</summary>';

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** pi's `usage` (`input` is the uncached part, as Anthropic's) as core's usage figures; none when nothing was measured. */
export function usageOfPi(
  usage: unknown,
): Pick<TranscriptUsage, 'inputTokens' | 'cacheReadInputTokens' | 'cacheCreationInputTokens' | 'contextTokens'> | undefined {
  if (!isRecord(usage)) return undefined;
  const inputTokens = count(usage['input']);
  const cacheReadInputTokens = count(usage['cacheRead']);
  const cacheCreationInputTokens = count(usage['cacheWrite']);
  const contextTokens = inputTokens + cacheReadInputTokens + cacheCreationInputTokens;
  return contextTokens === 0 ? undefined : { inputTokens, cacheReadInputTokens, cacheCreationInputTokens, contextTokens };
}

/** User, custom or tool-result content (a string, or text and image blocks) as Anthropic blocks. */
function blocksOf(content: unknown): unknown[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const blocks: unknown[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block['type'] === 'text' && typeof block['text'] === 'string') blocks.push({ type: 'text', text: block['text'] });
    else if (block['type'] === 'image')
      blocks.push({
        type: 'image',
        source: { type: 'base64', media_type: String(block['mimeType'] ?? 'image/png'), data: String(block['data'] ?? '') },
      });
  }
  return blocks;
}

/** A tool result's output: its text when it is all text (the usual case), else its blocks. */
function resultContent(content: unknown): unknown {
  const blocks = blocksOf(content);
  return blocks.every((block) => (block as Json)['type'] === 'text')
    ? blocks.map((block) => (block as { text: string }).text).join('\n')
    : blocks;
}

function assistantBlocks(content: unknown): unknown[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const blocks: unknown[] = [];
  for (const block of content) {
    if (!isRecord(block)) continue;
    if (block['type'] === 'text' && typeof block['text'] === 'string' && block['text'] !== '')
      blocks.push({ type: 'text', text: block['text'] });
    else if (block['type'] === 'thinking' && typeof block['thinking'] === 'string' && block['thinking'].trim() !== '')
      blocks.push({ type: 'thinking', thinking: block['thinking'] });
    else if (block['type'] === 'toolCall' && typeof block['id'] === 'string' && typeof block['name'] === 'string')
      blocks.push({
        type: 'tool_use',
        id: block['id'],
        name: block['name'],
        input: isRecord(block['arguments']) ? block['arguments'] : {},
      });
  }
  return blocks;
}

function bashExecutionText(message: Json): string {
  let text = `Ran \`${String(message['command'] ?? '')}\`\n`;
  text += typeof message['output'] === 'string' && message['output'] !== '' ? `\`\`\`\n${message['output']}\n\`\`\`` : '(no output)';
  if (message['cancelled'] === true) text += '\n\n(command cancelled)';
  else if (typeof message['exitCode'] === 'number' && message['exitCode'] !== 0)
    text += `\n\nCommand exited with code ${message['exitCode']}`;
  if (message['truncated'] === true && typeof message['fullOutputPath'] === 'string')
    text += `\n\n[Output truncated. Full output: ${message['fullOutputPath']}]`;
  return text;
}

interface Entry {
  line: number;
  value: Json;
}

/** What one entry of the active branch sends to the model, as a replay message. */
type Sent =
  | { kind: 'assistant'; content: unknown[]; usage?: ReturnType<typeof usageOfPi>; model?: string; messageId: string }
  | { kind: 'results'; content: unknown[] }
  | { kind: 'user'; content: unknown[]; meta: boolean }
  | { kind: 'none' }
  | { kind: 'unknown'; reason: string };

function sentBy(entry: Json): Sent {
  switch (entry['type']) {
    case 'message':
      break;
    case 'custom_message': {
      const content = blocksOf(entry['content']);
      return content.length > 0 ? { kind: 'user', content, meta: true } : { kind: 'none' };
    }
    case 'branch_summary':
      return typeof entry['summary'] === 'string' && entry['summary'] !== ''
        ? { kind: 'user', content: [{ type: 'text', text: BRANCH_SUMMARY_PREFIX + entry['summary'] + BRANCH_SUMMARY_SUFFIX }], meta: true }
        : { kind: 'none' };
    default:
      // model_change, thinking_level_change, usage (cache warming), custom, label, session_info, context_edit, unknown types: nothing the model sees as a message.
      return { kind: 'none' };
  }
  const message = entry['message'];
  if (!isRecord(message)) return { kind: 'unknown', reason: 'message entry without a message' };
  switch (message['role']) {
    case 'system':
      // The prompt and tool patches: the report takes the prefix from the first request's usage.
      return { kind: 'none' };
    case 'user': {
      const content = blocksOf(message['content']);
      return content.length > 0 ? { kind: 'user', content, meta: false } : { kind: 'none' };
    }
    case 'assistant': {
      if (message['stopReason'] === 'error' || message['stopReason'] === 'aborted') return { kind: 'none' };
      const usage = usageOfPi(message['usage']);
      return {
        kind: 'assistant',
        content: assistantBlocks(message['content']),
        ...(usage ? { usage } : {}),
        ...(typeof message['model'] === 'string' ? { model: message['model'] } : {}),
        messageId: String(entry['id']),
      };
    }
    case 'toolResult': {
      if (typeof message['toolCallId'] !== 'string') return { kind: 'unknown', reason: 'toolResult without a toolCallId' };
      return {
        kind: 'results',
        content: [
          {
            type: 'tool_result',
            tool_use_id: message['toolCallId'],
            content: resultContent(message['content']),
            ...(message['isError'] === true ? { is_error: true } : {}),
          },
        ],
      };
    }
    case 'custom':
    case 'hookMessage': {
      const content = blocksOf(message['content']);
      return content.length > 0 ? { kind: 'user', content, meta: true } : { kind: 'none' };
    }
    case 'bashExecution':
      return message['excludeFromContext'] === true
        ? { kind: 'none' }
        : { kind: 'user', content: [{ type: 'text', text: bashExecutionText(message) }], meta: true };
    case 'branchSummary':
    case 'compactionSummary': {
      const [prefix, suffix] =
        message['role'] === 'branchSummary'
          ? [BRANCH_SUMMARY_PREFIX, BRANCH_SUMMARY_SUFFIX]
          : [COMPACTION_SUMMARY_PREFIX, COMPACTION_SUMMARY_SUFFIX];
      return { kind: 'user', content: [{ type: 'text', text: prefix + String(message['summary'] ?? '') + suffix }], meta: true };
    }
    default:
      return { kind: 'unknown', reason: `message role ${JSON.stringify(message['role'])} is not one pi sends` };
  }
}

/**
 * The entries of the active branch, oldest first: from the last entry back through `parentId`
 * (version 3); a version 1 file (no ids) is linear. A missing parent or a loop ends the walk
 * there, as pi's does, and is reported.
 */
function activeBranch(entries: Entry[], linear: boolean, problems: Array<{ line: number; reason: string }>): Entry[] {
  if (linear) return entries;
  const byId = new Map<string, Entry>();
  for (const entry of entries) if (typeof entry.value['id'] === 'string') byId.set(entry.value['id'], entry);
  const leaf = entries.at(-1);
  const path: Entry[] = [];
  const seen = new Set<Entry>();
  for (let current = leaf; current && !seen.has(current); ) {
    seen.add(current);
    path.push(current);
    const parent = current.value['parentId'];
    if (parent === null || parent === undefined) break;
    const next = typeof parent === 'string' ? byId.get(parent) : undefined;
    if (!next)
      problems.push({ line: current.line, reason: `parentId ${JSON.stringify(parent)} names no entry: the active branch starts here` });
    else if (seen.has(next)) problems.push({ line: current.line, reason: 'parentId loops back: the active branch starts here' });
    current = next;
  }
  return path.reverse();
}

/** Malformed lines among the entries where they are in the file (a kept tail's history entries stay after their compaction). */
function withMalformed(entries: ReplayEntry[], malformed: Array<{ line: number; reason: string }>): ReplayEntry[] {
  const problems = [...malformed].sort((a, b) => a.line - b.line);
  const merged: ReplayEntry[] = [];
  let next = 0;
  for (const entry of entries) {
    if (entry.type !== 'history')
      while (next < problems.length && problems[next]!.line < entry.line) merged.push({ type: 'malformed', ...problems[next++]! });
    merged.push(entry);
  }
  while (next < problems.length) merged.push({ type: 'malformed', ...problems[next++]! });
  return merged;
}

/**
 * The replay's entries for the text of a pi session file whose first line is a session header
 * (see {@link isPiSessionHeader}). Never throws: a line that is not a JSON object with a `type`
 * becomes a `malformed` entry (counted, as a bad transcript line is), as does a message of a
 * role pi does not send.
 */
export function piSessionEntries(text: string): PiSession {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  const session: PiSession = { sessionId: 'pi-session', entries: [] };
  const malformed: Array<{ line: number; reason: string }> = [];
  const parsed: Entry[] = [];
  let header: Json | undefined;
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      malformed.push({ line, reason: `invalid JSON: ${(error as Error).message}` });
      return;
    }
    if (!isRecord(value) || typeof value['type'] !== 'string') {
      malformed.push({ line, reason: 'not a pi session entry ({ "type": … })' });
      return;
    }
    if (header === undefined && isPiSessionHeader(value)) {
      header = value;
      session.entries.push({ type: 'other', line, value: typeof value['timestamp'] === 'string' ? { timestamp: value['timestamp'] } : {} });
      return;
    }
    parsed.push({ line, value });
  });
  if (header) session.sessionId = String(header['id']);
  const linear = typeof header?.['version'] === 'number' && header['version'] < 2;
  const branch = activeBranch(parsed, linear, malformed);

  // The latest compaction on the branch decides what was sent after it; earlier ones still happened.
  const indexById = new Map<string, number>();
  branch.forEach((entry, index) => {
    if (typeof entry.value['id'] === 'string') indexById.set(entry.value['id'], index);
  });
  const { entries } = session;
  const knownCalls = new Set<string>();
  const timestampOf = (entry: Entry): { timestamp?: string } =>
    typeof entry.value['timestamp'] === 'string' ? { timestamp: entry.value['timestamp'] } : {};

  const push = (entry: Entry, sent: Sent, asHistory: boolean): void => {
    const { line } = entry;
    switch (sent.kind) {
      case 'none':
        // Counted as read (the report's line count), nothing more.
        if (!asHistory) entries.push({ type: 'other', line, value: timestampOf(entry) });
        return;
      case 'unknown':
        if (!asHistory) entries.push({ type: 'malformed', line, reason: sent.reason });
        return;
      case 'assistant': {
        for (const block of sent.content) if ((block as Json)['type'] === 'tool_use') knownCalls.add(String((block as Json)['id']));
        if (asHistory) {
          entries.push({ type: 'history', line, role: 'assistant', content: sent.content, messageId: sent.messageId });
          return;
        }
        const model = sent.model !== undefined ? { model: sent.model } : {};
        if (sent.usage)
          entries.push({
            type: 'usage',
            line,
            messageId: sent.messageId,
            ...model,
            ...sent.usage,
            isSidechain: false,
            ...timestampOf(entry),
          });
        entries.push({
          type: 'message',
          line,
          role: 'assistant',
          content: sent.content,
          messageId: sent.messageId,
          ...model,
          isSidechain: false,
          ...timestampOf(entry),
        });
        return;
      }
      case 'results': {
        // A result whose call was left out (an aborted response's) has nothing to pair with.
        const id = String((sent.content[0] as Json)['tool_use_id']);
        if (!knownCalls.has(id)) return;
        if (asHistory) entries.push({ type: 'history', line, role: 'user', content: sent.content });
        else entries.push({ type: 'message', line, role: 'user', content: sent.content, isSidechain: false, ...timestampOf(entry) });
        return;
      }
      case 'user':
        if (asHistory) entries.push({ type: 'history', line, role: 'user', content: sent.content });
        else
          entries.push({
            type: 'message',
            line,
            role: 'user',
            content: sent.content,
            isSidechain: false,
            ...(sent.meta ? { isMeta: true as const } : {}),
            ...timestampOf(entry),
          });
        return;
    }
  };

  branch.forEach((entry, index) => {
    const { value, line } = entry;
    if (value['type'] !== 'compaction') {
      push(entry, sentBy(value), false);
      return;
    }
    const tokensBefore = count(value['tokensBefore']);
    // pi does not record what started a compaction (its threshold, an overflow, or /compact).
    entries.push({
      type: 'compact-boundary',
      line,
      trigger: 'auto',
      ...(tokensBefore > 0 ? { preTokens: tokensBefore } : {}),
      ...(typeof value['id'] === 'string' ? { uuid: value['id'] } : {}),
      ...timestampOf(entry),
    });
    entries.push({
      type: 'history',
      line,
      role: 'user',
      content: [{ type: 'text', text: COMPACTION_SUMMARY_PREFIX + String(value['summary'] ?? '') + COMPACTION_SUMMARY_SUFFIX }],
      compactSummary: true,
    });
    const firstKept =
      typeof value['firstKeptEntryId'] === 'string'
        ? indexById.get(value['firstKeptEntryId'])
        : linear && typeof value['firstKeptEntryIndex'] === 'number'
          ? value['firstKeptEntryIndex'] - 1
          : undefined;
    if (firstKept === undefined || firstKept < 0 || firstKept >= index) return;
    knownCalls.clear();
    // The kept tail goes back as it was; an older compaction inside it adds nothing (pi's rule).
    for (let at = firstKept; at < index; at++)
      if (branch[at]!.value['type'] !== 'compaction') push(branch[at]!, sentBy(branch[at]!.value), true);
  });
  if (malformed.length > 0) session.entries = withMalformed(entries, malformed);
  return session;
}
