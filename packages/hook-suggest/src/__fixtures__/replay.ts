import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PointName } from '@hookwise/core';
import type { Engine } from '@hookwise/core/host';
import { fromAnthropicMessages, isUserPrompt } from '@hookwise/core/messages';
import { contextUsageFields, readTranscriptTail, transcriptEntriesOf, type TranscriptMessageEntry } from '@hookwise/core/claude-code';

/** The root `fixtures/` folder of the repository (third-party data with LICENSE and PROVENANCE). */
export const fixturesRoot = fileURLToPath(new URL('../../../../fixtures/', import.meta.url));
export const bigSession = path.join(fixturesRoot, 'claude-code-transcripts/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl');

export interface ReplayNotice {
  /** 1-based line of the transcript after which the point fired. */
  line: number;
  point: PointName;
  notice: string;
}

export interface ReplayResult {
  notices: ReplayNotice[];
  toolCalls: number;
  errors: string[];
}

/**
 * What the Claude Code binding adds to a payload that carries `transcriptPath`, for a plugin
 * that `needs: ['contextUsage']`: the sizes its transcript's tail gives (fields already set win).
 */
export async function addTranscriptUsage(point: PointName, payload: Record<string, unknown>): Promise<Record<string, unknown>> {
  const transcriptPath = payload['transcriptPath'];
  if (typeof transcriptPath !== 'string') return payload;
  const tail = await readTranscriptTail(transcriptPath).catch(() => undefined);
  const fields = tail ? (contextUsageFields(point, tail) as Record<string, unknown>) : {};
  for (const name in fields) if (payload[name] === undefined) payload[name] = fields[name];
  return payload;
}

/** `engine.emit` as the Claude Code binding calls it (see {@link addTranscriptUsage}). */
export async function emitAsClaudeCode<P extends PointName>(engine: Engine, point: P, payload: Record<string, unknown>) {
  return engine.emit(point, (await addTranscriptUsage(point, { ...payload })) as never);
}

/** A clock that reads the timestamp of the transcript line being replayed. */
export function transcriptClock(): { now(): number; set(timestamp: unknown): void } {
  let current = Date.parse('2026-01-01T00:00:00.000Z');
  return {
    now: () => current,
    set(timestamp) {
      const parsed = typeof timestamp === 'string' ? Date.parse(timestamp) : Number.NaN;
      if (!Number.isNaN(parsed)) current = parsed;
    },
  };
}

/** The prompt a user line carries, by core's one rule; undefined when the user did not write it. */
function realPrompt(entry: TranscriptMessageEntry): string | undefined {
  if (entry.role !== 'user' || entry.isSidechain) return undefined;
  const [message] = fromAnthropicMessages([{ role: 'user', content: entry.content } as never]);
  if (!message) return undefined;
  if (entry.isMeta) message.providerMetadata = { claudeCode: { isMeta: true } };
  if (entry.isCompactSummary) message.compactSummary = true;
  if (!isUserPrompt(message)) return undefined;
  return message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/**
 * Replays a Claude Code transcript through an engine the way Claude Code would drive hooks:
 * the transcript grows line by line in `transcriptPath`; `tool:after` per `tool_use` block once
 * the assistant line that asked for it is written; `prompt:submit` per typed prompt;
 * `agent:stop` where the transcript shows the Stop hooks ran; `compact:before` before the
 * `compact_boundary` line is written and `compact:after` after it.
 *
 * `mode: 'transcript'` gives hooks `transcriptPath` and what the Claude Code binding reads from
 * its tail (`contextUsageFields`); `mode: 'host'` gives them `contextTokens` measured from the
 * lines so far, as a VS Code-hosted agent would.
 */
export async function replayTranscript(
  fixture: string,
  options: { engine: Engine; sessionId: string; transcriptPath: string; mode: 'transcript' | 'host'; clock?: ReturnType<typeof transcriptClock> },
): Promise<ReplayResult> {
  const { engine, sessionId, transcriptPath, mode, clock } = options;
  const lines = readFileSync(fixture, 'utf8').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const result: ReplayResult = { notices: [], toolCalls: 0, errors: [] };
  let hostTokens: number | undefined;
  const sizes = () => (mode === 'host' ? (hostTokens === undefined ? {} : { contextTokens: hostTokens }) : { transcriptPath });
  const emit = async (line: number, point: PointName, payload: Record<string, unknown>) => {
    await addTranscriptUsage(point, payload);
    const outcome = await engine.emit(point, { sessionId, ...payload } as never);
    for (const error of outcome.errors) result.errors.push(`${line} ${point}: ${error.pluginName} ${error.message}`);
    if (outcome.block) result.errors.push(`${line} ${point}: blocked by ${outcome.block.pluginName}`);
    if (outcome.notice) result.notices.push({ line, point, notice: outcome.notice });
  };

  const descriptor = openSync(transcriptPath, 'w');
  try {
    await emit(0, 'session:start', { source: 'startup', ...(mode === 'transcript' ? { transcriptPath } : {}) });
    for (const [index, text] of lines.entries()) {
      const line = index + 1;
      let record: Record<string, unknown> | undefined;
      try {
        const parsed: unknown = JSON.parse(text);
        if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) record = parsed as Record<string, unknown>;
      } catch {
        record = undefined;
      }
      clock?.set(record?.timestamp);
      const entries = record ? transcriptEntriesOf({ line, value: record }) : [];
      const boundary = entries.find((entry) => entry.type === 'compact-boundary');
      if (boundary) await emit(line, 'compact:before', { trigger: boundary.trigger === 'auto' ? 'auto' : 'manual', ...sizes() });
      writeSync(descriptor, `${text}\n`);
      if (boundary) {
        hostTokens = boundary.postTokens;
        await emit(line, 'compact:after', {
          trigger: boundary.trigger === 'auto' ? 'auto' : 'manual',
          ...(mode === 'host' ? { ...(boundary.preTokens !== undefined ? { tokensBefore: boundary.preTokens } : {}) } : { transcriptPath }),
        });
        continue;
      }
      for (const entry of entries) {
        if (entry.type === 'usage' && !entry.isSidechain) hostTokens = entry.contextTokens;
        if (entry.type === 'message' && entry.role === 'assistant' && !entry.isSidechain) {
          for (const block of Array.isArray(entry.content) ? entry.content : []) {
            if (typeof block !== 'object' || block === null || (block as { type?: unknown }).type !== 'tool_use') continue;
            const toolUse = block as { id?: string; name?: string; input?: unknown };
            result.toolCalls += 1;
            await emit(line, 'tool:after', { toolName: toolUse.name ?? 'unknown', input: toolUse.input ?? null, output: null, ok: true, ...(toolUse.id ? { toolUseId: toolUse.id } : {}), ...sizes() });
          }
        }
        const prompt = entry.type === 'message' ? realPrompt(entry) : undefined;
        if (prompt !== undefined) await emit(line, 'prompt:submit', { prompt, ...sizes() });
        if (entry.type === 'other' && entry.value['type'] === 'system' && entry.value['subtype'] === 'stop_hook_summary') await emit(line, 'agent:stop', { ...sizes() });
      }
    }
  } finally {
    closeSync(descriptor);
  }
  return result;
}
