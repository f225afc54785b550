import type { TranscriptUsage } from '@hookwise/core/claude-code';
import type { ReplayEntry } from './replay-result.js';

/**
 * An OpenCode session as `opencode export <sessionID>` prints it (one JSON object), turned into
 * the entries the replay consumes, so an OpenCode session gets the figures a Claude Code
 * transcript gets. The request history is rebuilt the way OpenCode builds it (its
 * `toModelMessages` and compacted-history filter, 1.18.x):
 * - each `step-start`…`step-finish` run of an assistant message is one API request: its text,
 *   reasoning and tool calls become one assistant message, its tool outputs one user message of
 *   `tool_result` blocks, its `step-finish` tokens (else the message's `tokens`) the request's usage;
 * - a user message with a `compaction` part whose summary finished is a compaction; the history
 *   after it is "What did we do so far?", the summary, the kept tail (`tail_start_id` up to the
 *   compaction) and what follows — the tail comes back as `history` entries, without events.
 * `line` is the 1-based position of the message in `messages`.
 */

/** What the replay needs from an export, checked by {@link isOpenCodeExport}. */
export interface OpenCodeExport {
  info: { id: string } & Record<string, unknown>;
  messages: unknown[];
}

export interface OpenCodeSession {
  sessionId: string;
  /** First model an assistant message names (`modelID`), if any. */
  model?: string;
  entries: ReplayEntry[];
}

type Json = Record<string, unknown>;

const isRecord = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The shape of `opencode export`: `{ info: { id, … }, messages: [{ info, parts }] }`. */
export function isOpenCodeExport(value: unknown): value is OpenCodeExport {
  return isRecord(value) && isRecord(value['info']) && typeof value['info']['id'] === 'string' && Array.isArray(value['messages']);
}

/**
 * Whether an export (of the same shape) comes from Kilo, the OpenCode fork: Kilo 7 adds `metrics`
 * to its step-finish parts, and its session `version` is 7.x where OpenCode's is 0.x or 1.x.
 */
export function isKiloExport(value: OpenCodeExport): boolean {
  const version = (value.info as Json)['version'];
  if (typeof version === 'string' && Number.parseInt(version, 10) >= 7) return true;
  return value.messages.some(
    (message) =>
      isRecord(message) &&
      Array.isArray(message['parts']) &&
      message['parts'].some((part) => isRecord(part) && part['type'] === 'step-finish' && isRecord(part['metrics'])),
  );
}

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** OpenCode's `tokens` (`{ input, output, reasoning, cache: { read, write } }`) as core's usage figures: input excludes the cache, as Anthropic's. */
export function usageOfTokens(
  tokens: unknown,
): Pick<TranscriptUsage, 'inputTokens' | 'cacheReadInputTokens' | 'cacheCreationInputTokens' | 'contextTokens'> | undefined {
  if (!isRecord(tokens)) return undefined;
  const cache = isRecord(tokens['cache']) ? tokens['cache'] : {};
  const inputTokens = count(tokens['input']);
  const cacheReadInputTokens = count(cache['read']);
  const cacheCreationInputTokens = count(cache['write']);
  const contextTokens = inputTokens + cacheReadInputTokens + cacheCreationInputTokens;
  // All zero: an aborted or failed request measured nothing (core's rule for Claude Code too).
  return contextTokens === 0 ? undefined : { inputTokens, cacheReadInputTokens, cacheCreationInputTokens, contextTokens };
}

function timestampOf(info: Json): string | undefined {
  const time = info['time'];
  const created = isRecord(time) ? time['created'] : undefined;
  return typeof created === 'number' && Number.isFinite(created) ? new Date(created).toISOString() : undefined;
}

interface Step {
  blocks: unknown[];
  results: unknown[];
  tokens: unknown;
}

/** A tool part as OpenCode sends it back to the model: its call, and its output or error. */
function toolBlocks(part: Json): { call: unknown; result: unknown } | undefined {
  const state = part['state'];
  const callId = part['callID'];
  if (!isRecord(state) || typeof callId !== 'string' || typeof part['tool'] !== 'string') return undefined;
  const call = { type: 'tool_use', id: callId, name: part['tool'], input: isRecord(state['input']) ? state['input'] : {} };
  const time = isRecord(state['time']) ? state['time'] : {};
  const metadata = isRecord(state['metadata']) ? state['metadata'] : {};
  let result: Json;
  if (state['status'] === 'completed') {
    // OpenCode's own prune marks an output compacted and sends this text instead (the export keeps the output).
    const output =
      time['compacted'] !== undefined
        ? '[Old tool result content cleared]'
        : typeof state['output'] === 'string'
          ? state['output']
          : JSON.stringify(state['output'] ?? '');
    result = { type: 'tool_result', tool_use_id: callId, content: output };
  } else if (state['status'] === 'error') {
    const interrupted = metadata['interrupted'] === true && typeof metadata['output'] === 'string';
    result = interrupted
      ? { type: 'tool_result', tool_use_id: callId, content: metadata['output'] }
      : { type: 'tool_result', tool_use_id: callId, content: String(state['error'] ?? 'tool failed'), is_error: true };
  } else {
    result = { type: 'tool_result', tool_use_id: callId, content: '[Tool execution was interrupted]', is_error: true };
  }
  return { call, result };
}

/** An assistant message's requests: its parts split at each `step-start`. */
function stepsOf(parts: Json[], messageTokens: unknown): Step[] {
  const steps: Step[] = [];
  let step: Step | undefined;
  const open = (): Step => {
    if (!step) steps.push((step = { blocks: [], results: [], tokens: undefined }));
    return step;
  };
  for (const part of parts) {
    switch (part['type']) {
      case 'step-start':
        step = undefined;
        open();
        break;
      case 'step-finish':
        open().tokens = part['tokens'];
        break;
      case 'text':
        if (typeof part['text'] === 'string' && part['text'] !== '') open().blocks.push({ type: 'text', text: part['text'] });
        break;
      case 'reasoning':
        if (typeof part['text'] === 'string' && part['text'].trim() !== '')
          open().blocks.push({ type: 'thinking', thinking: part['text'] });
        break;
      case 'tool': {
        const blocks = toolBlocks(part);
        if (!blocks) break;
        const current = open();
        current.blocks.push(blocks.call);
        current.results.push(blocks.result);
        break;
      }
      default:
        break;
    }
  }
  // One request without a step-finish: the message's own tokens are its usage.
  if (steps.length === 1 && steps[0]!.tokens === undefined) steps[0]!.tokens = messageTokens;
  return steps.filter((candidate) => candidate.blocks.length > 0);
}

/** A user message's content as OpenCode sends it; `meta` when every text is OpenCode's own (`synthetic`). */
function userContent(parts: Json[]): { blocks: unknown[]; meta: boolean } {
  const blocks: unknown[] = [];
  let typed = false;
  for (const part of parts) {
    if (part['type'] === 'text' && part['ignored'] !== true && typeof part['text'] === 'string' && part['text'] !== '') {
      blocks.push({ type: 'text', text: part['text'] });
      if (part['synthetic'] !== true) typed = true;
    } else if (part['type'] === 'file' && part['mime'] !== 'text/plain' && part['mime'] !== 'application/x-directory') {
      blocks.push({ type: 'text', text: `[Attached ${String(part['mime'] ?? 'file')}: ${String(part['filename'] ?? 'file')}]` });
      typed = true;
    } else if (part['type'] === 'subtask') {
      blocks.push({ type: 'text', text: 'The following tool was executed by the user' });
    }
  }
  return { blocks, meta: !typed };
}

const COMPACTION_QUESTION = 'What did we do so far?';

/**
 * The replay's entries for an export. Never throws: a message that is not `{ info: { role, id },
 * parts: [] }` becomes a `malformed` entry (counted, as a bad transcript line is).
 */
export function openCodeEntries(exported: OpenCodeExport): OpenCodeSession {
  const session: OpenCodeSession = { sessionId: exported.info.id, entries: [] };
  const { entries } = session;
  const messages: Array<{ info: Json; parts: Json[] } | undefined> = exported.messages.map((message) => {
    if (!isRecord(message) || !isRecord(message['info']) || !Array.isArray(message['parts'])) return undefined;
    return { info: message['info'], parts: message['parts'].filter(isRecord) };
  });
  // Compactions OpenCode counts: a `compaction` part whose summary (an assistant message with `summary: true` answering it) finished without error.
  const summaries = new Map<string, number>();
  messages.forEach((message, index) => {
    const info = message?.info;
    if (
      info?.['role'] === 'assistant' &&
      info['summary'] === true &&
      info['finish'] !== undefined &&
      info['error'] === undefined &&
      typeof info['parentID'] === 'string'
    )
      summaries.set(info['parentID'], index);
  });
  const ids = new Map<string, number>();
  messages.forEach((message, index) => {
    if (typeof message?.info['id'] === 'string') ids.set(message.info['id'], index);
  });
  /** Tails to send back after a summary: summary index → the tail's message indexes. */
  const tails = new Map<number, { from: number; to: number }>();

  const pushAssistant = (index: number, info: Json, parts: Json[], asHistory: boolean): void => {
    const line = index + 1;
    const messageId = typeof info['id'] === 'string' ? info['id'] : `message-${line}`;
    const model = typeof info['modelID'] === 'string' ? info['modelID'] : undefined;
    if (model !== undefined && session.model === undefined && !asHistory) session.model = model;
    const timestamp = timestampOf(info);
    // A failed request is not sent again (an abort that produced something is).
    const error = info['error'];
    const aborted = isRecord(error) && error['name'] === 'MessageAbortedError';
    if (error !== undefined && !(aborted && parts.some((part) => part['type'] !== 'step-start' && part['type'] !== 'reasoning'))) return;
    stepsOf(parts, info['tokens']).forEach((step, stepIndex) => {
      const id = stepIndex === 0 ? messageId : `${messageId}#${stepIndex}`;
      if (asHistory) {
        entries.push({ type: 'history', line, role: 'assistant', content: step.blocks, messageId: id });
        if (step.results.length > 0) entries.push({ type: 'history', line, role: 'user', content: step.results });
        return;
      }
      const usage = error === undefined ? usageOfTokens(step.tokens) : undefined;
      if (usage)
        entries.push({
          type: 'usage',
          line,
          messageId: id,
          ...(model !== undefined ? { model } : {}),
          ...usage,
          isSidechain: false,
          ...(timestamp !== undefined ? { timestamp } : {}),
        });
      entries.push({
        type: 'message',
        line,
        role: 'assistant',
        content: step.blocks,
        messageId: id,
        ...(model !== undefined ? { model } : {}),
        isSidechain: false,
        ...(timestamp !== undefined ? { timestamp } : {}),
      });
      if (step.results.length > 0)
        entries.push({
          type: 'message',
          line,
          role: 'user',
          content: step.results,
          isSidechain: false,
          ...(timestamp !== undefined ? { timestamp } : {}),
        });
    });
  };

  const pushUser = (index: number, info: Json, parts: Json[], asHistory: boolean): void => {
    const line = index + 1;
    const { blocks, meta } = userContent(parts);
    if (blocks.length === 0) return;
    if (asHistory) {
      entries.push({ type: 'history', line, role: 'user', content: blocks });
      return;
    }
    const timestamp = timestampOf(info);
    entries.push({
      type: 'message',
      line,
      role: 'user',
      content: blocks,
      isSidechain: false,
      ...(meta ? { isMeta: true as const } : {}),
      ...(timestamp !== undefined ? { timestamp } : {}),
    });
  };

  messages.forEach((message, index) => {
    const line = index + 1;
    if (!message) {
      entries.push({ type: 'malformed', line, reason: 'message is not { info, parts: [] }' });
      return;
    }
    const { info, parts } = message;
    const id = typeof info['id'] === 'string' ? info['id'] : undefined;
    if (info['role'] === 'user') {
      const compaction = parts.find((part) => part['type'] === 'compaction');
      const summaryIndex = id === undefined ? undefined : summaries.get(id);
      if (compaction && summaryIndex !== undefined) {
        const timestamp = timestampOf(info);
        entries.push({
          type: 'compact-boundary',
          line,
          trigger: compaction['auto'] === true ? 'auto' : 'manual',
          ...(id !== undefined ? { uuid: id } : {}),
          ...(timestamp !== undefined ? { timestamp } : {}),
        });
        entries.push({ type: 'history', line, role: 'user', content: [{ type: 'text', text: COMPACTION_QUESTION }], compactSummary: true });
        const tailStart = typeof compaction['tail_start_id'] === 'string' ? ids.get(compaction['tail_start_id']) : undefined;
        if (tailStart !== undefined && tailStart < index) tails.set(summaryIndex, { from: tailStart, to: index });
        return;
      }
      // A compaction that never finished is sent as its question, like any user message.
      pushUser(index, info, compaction ? [...parts, { type: 'text', text: COMPACTION_QUESTION, synthetic: true }] : parts, false);
      return;
    }
    if (info['role'] === 'assistant') {
      const tail = tails.get(index);
      if (info['summary'] === true && typeof info['parentID'] === 'string' && summaries.get(info['parentID']) === index) {
        // The summary answers the compaction's question; the kept tail follows it.
        pushAssistant(index, info, parts, true);
        for (let at = tail?.from ?? 0; tail && at < tail.to; at++) {
          const kept = messages[at];
          if (!kept) continue;
          if (kept.info['role'] === 'assistant') pushAssistant(at, kept.info, kept.parts, true);
          else if (kept.info['role'] === 'user' && !kept.parts.some((part) => part['type'] === 'compaction'))
            pushUser(at, kept.info, kept.parts, true);
        }
        return;
      }
      pushAssistant(index, info, parts, false);
      return;
    }
    entries.push({ type: 'malformed', line, reason: `message role ${JSON.stringify(info['role'])} is neither user nor assistant` });
  });
  return session;
}
