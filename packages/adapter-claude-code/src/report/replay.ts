import path from 'node:path';
import { iterateTranscript, type Engine, type EventRecord, type HookFailure, type MergedOutcome, type Message, type MessagePart, type PointInput, type PointName, type TranscriptUsage } from '@hookwise/core';
import { contentToParts, createResultTokenCounter, diffHistories } from './messages.js';

/**
 * Replays a Claude Code transcript through a hookwise engine: every line is turned into the
 * lifecycle events Claude Code would have fired for it, the configured plugins run on them,
 * and what they said (notices, preserved labels, pruned requests, errors) is recorded with the
 * transcript line that caused it. Lines are streamed, so memory follows the live history (what
 * a request would carry since the latest compaction), not the file.
 *
 * Event mapping, per line:
 * - the first line: `session:start` (startup);
 * - a user prompt (string content or text blocks, not a tool-result carrier, not a compaction
 *   summary, not a meta line, not echoed command output): `prompt:submit`, with a slash command
 *   parsed from Claude Code's `<command-name>` tags or a leading `/`;
 * - each assistant `tool_use` block: `tool:before`;
 * - each user `tool_result` block: `tool:after` (ok = !is_error);
 * - the first line of each new API response (a new `message.id`): `llm:before` with the history
 *   the request carried, i.e. what hook-prune would change before that request;
 * - `system`/`compact_boundary`: `llm:before` on the history being compacted, `compact:before`,
 *   then `compact:after` and `session:start` (compact) once the size after it is known
 *   (`compactMetadata.postTokens`, else the next measured request).
 * Every event carries `contextTokens`: the latest main-chain assistant usage (input + cache
 * read + cache creation). Side-chain lines count for nothing.
 */

/** One main-chain response's usage (core's transcript figures), as the replay saw it. */
export interface UsagePoint extends Omit<TranscriptUsage, 'isSidechain'> {
  /** Main-chain tool calls made before this response. */
  toolCallsBefore: number;
  /** What hook-prune changed in the request that produced this response; undefined when it did not run. */
  prune?: PruneFigure;
}

export interface PruneFigure {
  reclaimedTokens: number;
  parts: number;
  /** Messages the request carried. */
  messages: number;
}

export interface ReplayNotice {
  /** Line of the event whose outcome carried the notice. */
  eventLine: number;
  point: PointName;
  text: string;
  /** Line of the usage figure the event carried as `contextTokens` (first line of that response). */
  usageLine?: number;
  contextTokens?: number;
  /** For tool events: the line of the `tool_use` block. */
  toolUseLine?: number;
  /** Main-chain tool calls so far (the current one included). */
  toolCalls: number;
  /** Event-log records the plugins appended while the event ran. */
  records: EventRecord[];
}

export interface ReplayCompaction {
  line: number;
  trigger: 'manual' | 'auto';
  preTokens?: number;
  postTokens?: number;
  postTokensSource?: 'metadata' | 'measured';
  /** Labels the `compact:before` hooks preserved (hook-precompact: active commands, intents…). */
  preserved: string[];
  /** Text the `compact:before` hooks added to the compaction instructions. */
  instructions?: string;
  blockedBy?: string;
  prune?: PruneFigure;
}

export interface ReplayHookError extends HookFailure {
  line: number;
  point: PointName;
}

export interface ReplayResult {
  transcript: string;
  sessionId: string;
  /** Number of the last line read. */
  lines: number;
  malformed: Array<{ line: number; reason: string }>;
  model?: string;
  usage: UsagePoint[];
  toolCalls: Array<{ line: number; toolName: string; toolUseId?: string }>;
  prompts: Array<{ line: number; command?: string }>;
  notices: ReplayNotice[];
  compactions: ReplayCompaction[];
  hookErrors: ReplayHookError[];
  /** Times `llm:before` ran (0 when no hook listens there). */
  pruneRuns: number;
  pruneSampling: 'turn' | 'every-request';
}

export interface ReplayOptions {
  engine: Engine;
  /** Session id for the events; default: the file name when it is a safe name, else `replay`. */
  sessionId?: string;
  /** The model's context window, passed on every event. */
  contextWindow?: number;
  /** Called for every non-blank line read (for a progress bar). */
  onLine?: (line: number) => void;
  /** Given each line's `timestamp`, so the engine's clock follows the recorded session. */
  clock?: { setTimestamp(text: string): void };
  /**
   * `turn` (default): run `llm:before` on the first request after each user message and on each
   * compaction, and carry its figure to the other requests of the turn. Exact for hook-prune,
   * whose choice changes only when a user prompt arrives (unless its `supersede` option is on);
   * about a quarter of the cost. `every-request`: run it before every request.
   */
  pruneSampling?: 'turn' | 'every-request';
}

type Entry = { line: number; value: Record<string, unknown> } | { line: number; error: string; text: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const numberOrZero = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

// Lines Claude Code writes as user messages that the user did not type.
const NOT_A_PROMPT = /^\s*(<local-command-stdout>|<local-command-stderr>|<local-command-caveat>|\[Request interrupted by user)/;
const COMMAND_NAME = /<command-name>\s*\/?([^<\s]*)\s*<\/command-name>/;
const COMMAND_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;
const PLAIN_COMMAND = /^\/([A-Za-z0-9][\w:.-]*)(?:\s+([\s\S]*))?$/;
// A compaction waits this many lines at most for the next measured size.
const COMPACTION_LOOKAHEAD = 500;

/** 1M for Claude Code's `[1m]` models, 200k for any other known model, unknown without one. */
export function contextWindowForModel(model: string | undefined): number | undefined {
  if (model === undefined) return undefined;
  return /\[1m\]\s*$/i.test(model) ? 1_000_000 : 200_000;
}

export function sessionIdFor(transcriptPath: string): string {
  const base = path.basename(transcriptPath).replace(/\.jsonl?$/i, '');
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(base) ? base : 'replay';
}

/** The prompt text of a user line and its slash command, or undefined when the line is no prompt. */
export function promptOf(content: unknown): { prompt: string; command?: { name: string; args: string } } | undefined {
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    if (content.length === 0 || !content.every((block) => isRecord(block) && block['type'] === 'text')) return undefined;
    text = content.map((block) => String((block as Record<string, unknown>)['text'] ?? '')).join('\n');
  } else return undefined;
  if (text.trim() === '' || NOT_A_PROMPT.test(text)) return undefined;
  const tagged = COMMAND_NAME.exec(text);
  if (tagged && tagged[1]) {
    const args = (COMMAND_ARGS.exec(text)?.[1] ?? '').trim();
    return { prompt: args === '' ? `/${tagged[1]}` : `/${tagged[1]} ${args}`, command: { name: tagged[1], args } };
  }
  const plain = PLAIN_COMMAND.exec(text.trim());
  if (plain && plain[1]) return { prompt: text, command: { name: plain[1], args: (plain[2] ?? '').trim() } };
  return { prompt: text };
}

interface PendingCompaction {
  compaction: ReplayCompaction;
  buffer: Entry[];
}

class Replayer {
  readonly result: ReplayResult;
  private readonly engine: Engine;
  private readonly contextWindow: number | undefined;
  private readonly resultTokens;
  private readonly eventLines: string[] | undefined;
  private readonly hasPruneHooks: boolean;
  private readonly clock: { setTimestamp(text: string): void } | undefined;
  private readonly pruneSampling: 'turn' | 'every-request';
  /** The figure of this turn's first request, carried to its other requests (`turn` sampling). */
  private turnPrune: PruneFigure | undefined;

  private started = false;
  /** Messages of the live context (since the latest compaction); the newest may still grow. */
  private history: Message[] = [];
  private openAssistant: { messageId: string | undefined; message: Message } | undefined;
  private openResults: Message | undefined;
  private readonly toolNames = new Map<string, string>();
  private readonly toolInputs = new Map<string, { input: unknown; line: number }>();
  private readonly usageByMessageId = new Map<string, UsagePoint>();
  /** The latest measured request since the latest compaction: what `contextTokens` says on every event. */
  private lastUsage: UsagePoint | undefined;
  private pending: PendingCompaction | undefined;

  constructor(transcript: string, options: ReplayOptions) {
    this.engine = options.engine;
    this.contextWindow = options.contextWindow;
    this.resultTokens = createResultTokenCounter(this.engine.services.tokenCounter);
    const log = this.engine.services.eventLog as { lines?: unknown };
    this.eventLines = Array.isArray(log.lines) ? (log.lines as string[]) : undefined;
    this.hasPruneHooks = this.engine.has('llm:before');
    this.clock = options.clock;
    this.pruneSampling = options.pruneSampling ?? 'turn';
    this.result = {
      transcript,
      sessionId: options.sessionId ?? sessionIdFor(transcript),
      lines: 0,
      malformed: [],
      usage: [],
      toolCalls: [],
      prompts: [],
      notices: [],
      compactions: [],
      hookErrors: [],
      pruneRuns: 0,
      pruneSampling: options.pruneSampling ?? 'turn',
    };
  }

  /**
   * Handles one line. Returns a promise only when the line may emit something: most lines
   * (progress, snapshots) are settled synchronously, which keeps the replay close to the cost of
   * parsing.
   */
  process(entry: Entry): Promise<void> | undefined {
    if (entry.line > this.result.lines) this.result.lines = entry.line;
    if (!this.started) return this.start(entry);
    if (this.pending) return this.buffer(entry);
    if ('error' in entry) {
      this.result.malformed.push({ line: entry.line, reason: entry.error });
      return undefined;
    }
    const { line, value } = entry;
    const type = value['type'];
    if (type === 'assistant' || type === 'user') {
      if (this.clock && typeof value['timestamp'] === 'string') this.clock.setTimestamp(value['timestamp']);
      return this.messageLine(line, type, value);
    }
    if (type === 'system' && value['subtype'] === 'compact_boundary') {
      if (this.clock && typeof value['timestamp'] === 'string') this.clock.setTimestamp(value['timestamp']);
      return this.compactBoundary(line, value);
    }
    return undefined;
  }

  private async start(entry: Entry): Promise<void> {
    this.started = true;
    if (this.clock && 'value' in entry && typeof entry.value['timestamp'] === 'string') this.clock.setTimestamp(entry.value['timestamp']);
    await this.emit(entry.line, 'session:start', { source: 'startup' });
    await this.process(entry);
  }

  private buffer(entry: Entry): Promise<void> | undefined {
    const pending = this.pending!;
    pending.buffer.push(entry);
    const measured = 'value' in entry ? this.measuredContext(entry.value) : undefined;
    if (measured !== undefined) return this.finishCompaction(measured);
    if (pending.buffer.length >= COMPACTION_LOOKAHEAD) return this.finishCompaction(undefined);
    return undefined;
  }

  async finish(): Promise<ReplayResult> {
    if (this.pending) await this.finishCompaction(undefined);
    return this.result;
  }

  /** Main-chain context size of an assistant line, if it is one with usage. */
  private measuredContext(value: Record<string, unknown>): number | undefined {
    if (value['type'] !== 'assistant' || value['isSidechain'] === true || !isRecord(value['message'])) return undefined;
    const usage = value['message']['usage'];
    if (!isRecord(usage)) return undefined;
    const total = numberOrZero(usage['input_tokens']) + numberOrZero(usage['cache_read_input_tokens']) + numberOrZero(usage['cache_creation_input_tokens']);
    return total > 0 ? total : undefined;
  }

  private common(): Record<string, unknown> {
    // No transcriptPath: plugins that read the transcript would see the end of the session,
    // not the point the replay has reached.
    const fields: Record<string, unknown> = { sessionId: this.result.sessionId };
    if (this.lastUsage) fields['contextTokens'] = this.lastUsage.contextTokens;
    const contextWindow = this.contextWindow ?? contextWindowForModel(this.result.model);
    if (contextWindow !== undefined) fields['contextWindow'] = contextWindow;
    if (this.result.model !== undefined) fields['model'] = this.result.model;
    return fields;
  }

  private async emit<P extends PointName>(line: number, point: P, fields: Record<string, unknown>, cause: { toolUseLine?: number } = {}): Promise<MergedOutcome<P> | undefined> {
    if (!this.engine.has(point) && point !== 'session:start') return undefined;
    const recordsBefore = this.eventLines?.length ?? 0;
    const outcome = await this.engine.emit(point, { ...this.common(), ...fields } as unknown as PointInput<P>);
    for (const failure of outcome.errors) this.result.hookErrors.push({ line, point, ...failure });
    if (outcome.notice !== undefined && outcome.notice.trim() !== '') {
      const records = this.eventLines ? parseRecords(this.eventLines.slice(recordsBefore)) : [];
      const notice: ReplayNotice = { eventLine: line, point, text: outcome.notice, toolCalls: this.result.toolCalls.length, records };
      if (this.lastUsage) {
        notice.usageLine = this.lastUsage.line;
        notice.contextTokens = this.lastUsage.contextTokens;
      }
      if (cause.toolUseLine !== undefined) notice.toolUseLine = cause.toolUseLine;
      this.result.notices.push(notice);
    }
    return outcome;
  }

  private closeDrafts(): void {
    this.openAssistant = undefined;
    this.openResults = undefined;
  }

  private push(message: Message): Message {
    this.history.push(message);
    return message;
  }

  /** Runs `llm:before` on the live history: what hook-prune would change before this request. */
  private async pruneRequest(line: number, options: { carry: boolean }): Promise<PruneFigure | undefined> {
    if (!this.hasPruneHooks || this.history.length === 0) return undefined;
    if (options.carry && this.pruneSampling === 'turn' && this.turnPrune !== undefined) return { ...this.turnPrune, messages: this.history.length };
    const original = this.history;
    const outcome = await this.emit(line, 'llm:before', { systemPrompt: '', messages: original });
    this.result.pruneRuns++;
    const value = outcome?.value as Message[] | undefined;
    const diff = !value || value === original ? { tokens: 0, parts: 0 } : diffHistories(original, value, this.resultTokens, this.engine.services.tokenCounter);
    const figure = { reclaimedTokens: diff.tokens, parts: diff.parts, messages: original.length };
    if (options.carry) this.turnPrune = figure;
    return figure;
  }

  private async messageLine(line: number, type: 'user' | 'assistant', value: Record<string, unknown>): Promise<void> {
    const message = value['message'];
    if (!isRecord(message)) {
      this.result.malformed.push({ line, reason: `${type} line: message is not an object` });
      return;
    }
    if (value['isSidechain'] === true) return;
    const content = message['content'];
    if (typeof content !== 'string' && !Array.isArray(content)) {
      this.result.malformed.push({ line, reason: `${type} line: message.content is neither a string nor an array` });
      return;
    }
    if (type === 'assistant') await this.assistantLine(line, message, content);
    else await this.userLine(line, value, content);
  }

  private async assistantLine(line: number, message: Record<string, unknown>, content: string | unknown[]): Promise<void> {
    const messageId = typeof message['id'] === 'string' ? message['id'] : undefined;
    const continues = this.openAssistant !== undefined && messageId !== undefined && this.openAssistant.messageId === messageId;
    if (!continues) {
      // A new API response: the request behind it carried the history as it stands now.
      this.closeDrafts();
      const prune = await this.pruneRequest(line, { carry: true });
      this.openAssistant = { messageId, message: this.push({ role: 'assistant', parts: [] }) };
      this.recordUsage(line, message, messageId, prune);
    } else {
      this.recordUsage(line, message, messageId, undefined);
    }
    const parts = contentToParts(content, this.toolNames);
    (this.openAssistant!.message.parts as MessagePart[]).push(...parts);
    for (const part of parts) {
      if (part.type !== 'tool-call') continue;
      this.toolNames.set(part.toolCallId, part.toolName);
      this.toolInputs.set(part.toolCallId, { input: part.input, line });
      this.result.toolCalls.push({ line, toolName: part.toolName, ...(part.toolCallId ? { toolUseId: part.toolCallId } : {}) });
      await this.emit(line, 'tool:before', { toolName: part.toolName, input: part.input, ...(part.toolCallId ? { toolUseId: part.toolCallId } : {}) }, { toolUseLine: line });
    }
  }

  private recordUsage(line: number, message: Record<string, unknown>, messageId: string | undefined, prune: PruneFigure | undefined): void {
    const usage = message['usage'];
    if (typeof message['model'] === 'string' && message['model'] !== '<synthetic>' && this.result.model === undefined) this.result.model = message['model'];
    if (!isRecord(usage)) return;
    const figures = {
      inputTokens: numberOrZero(usage['input_tokens']),
      cacheReadInputTokens: numberOrZero(usage['cache_read_input_tokens']),
      cacheCreationInputTokens: numberOrZero(usage['cache_creation_input_tokens']),
    };
    const contextTokens = figures.inputTokens + figures.cacheReadInputTokens + figures.cacheCreationInputTokens;
    // Synthetic responses (API errors, interruptions) carry all-zero usage: no measurement.
    if (contextTokens === 0) return;
    const existing = messageId === undefined ? undefined : this.usageByMessageId.get(messageId);
    if (existing) {
      // Streaming lines repeat the usage; the last line has the final figures.
      Object.assign(existing, figures, { contextTokens });
      return;
    }
    const point: UsagePoint = { line, ...figures, contextTokens, toolCallsBefore: this.result.toolCalls.length };
    if (messageId !== undefined) {
      point.messageId = messageId;
      this.usageByMessageId.set(messageId, point);
    }
    if (typeof message['model'] === 'string') point.model = message['model'];
    if (prune) point.prune = prune;
    this.result.usage.push(point);
    this.lastUsage = point;
  }

  private async userLine(line: number, value: Record<string, unknown>, content: string | unknown[]): Promise<void> {
    const hasResults = Array.isArray(content) && content.some((block) => isRecord(block) && block['type'] === 'tool_result');
    if (hasResults) {
      const parts = contentToParts(content, this.toolNames);
      if (this.openResults) (this.openResults.parts as MessagePart[]).push(...parts);
      else this.openResults = this.push({ role: 'user', parts });
      for (const part of parts) {
        if (part.type !== 'tool-result') continue;
        const call = this.toolInputs.get(part.toolCallId);
        await this.emit(
          line,
          'tool:after',
          {
            toolName: part.toolName ?? 'unknown',
            input: call?.input ?? {},
            output: part.output,
            ok: part.isError !== true,
            ...(part.toolCallId ? { toolUseId: part.toolCallId } : {}),
          },
          call ? { toolUseLine: call.line } : {},
        );
      }
      return;
    }
    this.closeDrafts();
    // Any user message may be a prompt to hook-prune: its choice may change from here.
    this.turnPrune = undefined;
    const message: Message = { role: 'user', parts: contentToParts(content, this.toolNames) };
    if (value['isCompactSummary'] === true) message.compactSummary = true;
    if (value['isMeta'] === true) message.providerMetadata = { claudeCode: { isMeta: true } };
    this.push(message);
    if (message.compactSummary || value['isMeta'] === true) return;
    const prompt = promptOf(content);
    if (!prompt) return;
    this.result.prompts.push({ line, ...(prompt.command ? { command: prompt.command.name } : {}) });
    await this.emit(line, 'prompt:submit', { prompt: prompt.prompt, ...(prompt.command ? { command: prompt.command } : {}) });
  }

  private async compactBoundary(line: number, value: Record<string, unknown>): Promise<void> {
    const metadata = isRecord(value['compactMetadata']) ? value['compactMetadata'] : {};
    const compaction: ReplayCompaction = { line, trigger: metadata['trigger'] === 'auto' ? 'auto' : 'manual', preserved: [] };
    const preTokens = typeof metadata['preTokens'] === 'number' ? metadata['preTokens'] : this.lastUsage?.contextTokens;
    if (preTokens !== undefined) compaction.preTokens = preTokens;
    this.result.compactions.push(compaction);

    this.closeDrafts();
    const prune = await this.pruneRequest(line, { carry: false });
    if (prune) compaction.prune = prune;
    const before = await this.emit(line, 'compact:before', { trigger: compaction.trigger, ...(preTokens !== undefined ? { contextTokens: preTokens } : {}) });
    if (before) {
      compaction.preserved = [...before.preserved];
      if (before.context !== undefined) compaction.instructions = before.context;
      if (before.block) compaction.blockedBy = before.block.pluginName;
    }
    // What follows the boundary is a new context, of a size unknown until the next request
    // (events before it must not carry the old size).
    this.history = [];
    this.lastUsage = undefined;
    this.turnPrune = undefined;
    if (typeof metadata['postTokens'] === 'number') {
      compaction.postTokens = metadata['postTokens'];
      compaction.postTokensSource = 'metadata';
      await this.afterCompaction(compaction);
    } else {
      this.pending = { compaction, buffer: [] };
    }
  }

  private async finishCompaction(measured: number | undefined): Promise<void> {
    const { compaction, buffer } = this.pending!;
    this.pending = undefined;
    if (measured !== undefined) {
      compaction.postTokens = measured;
      compaction.postTokensSource = 'measured';
    }
    await this.afterCompaction(compaction);
    for (const entry of buffer) {
      const pending = this.process(entry);
      if (pending) await pending;
    }
  }

  private async afterCompaction(compaction: ReplayCompaction): Promise<void> {
    const fields: Record<string, unknown> = { trigger: compaction.trigger };
    if (compaction.preTokens !== undefined) fields['tokensBefore'] = compaction.preTokens;
    if (compaction.postTokens !== undefined) fields['tokensAfter'] = compaction.postTokens;
    await this.emit(compaction.line, 'compact:after', fields);
    await this.emit(compaction.line, 'session:start', { source: 'compact' });
  }
}

function parseRecords(lines: string[]): EventRecord[] {
  const records: EventRecord[] = [];
  for (const line of lines) {
    try {
      const record = JSON.parse(line) as unknown;
      if (isRecord(record) && typeof record['type'] === 'string') records.push(record as EventRecord);
    } catch {
      // a truncated record tells nothing reliable; leave it out
    }
  }
  return records;
}

/**
 * Replays a transcript file through the engine and returns what happened, line by line.
 * Throws only when the file cannot be read; bad lines are counted in `malformed`.
 */
export async function replayTranscript(transcript: string, options: ReplayOptions): Promise<ReplayResult> {
  const replayer = new Replayer(transcript, options);
  for await (const entry of iterateTranscript(transcript)) {
    options.onLine?.(entry.line);
    const pending = replayer.process(entry);
    if (pending) await pending;
  }
  return replayer.finish();
}
