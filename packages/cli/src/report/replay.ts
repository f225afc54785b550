import path from 'node:path';
import type { MergedOutcome, PointInput, PointName } from '@hookwise/core';
import type { Engine } from '@hookwise/core/host';
import { isUserPrompt, parseSlashCommand, type Message, type SlashCommand } from '@hookwise/core/messages';
import {
  readTranscriptEntries,
  type TranscriptCompactBoundary,
  type TranscriptMessageEntry,
  type TranscriptUsage,
} from '@hookwise/core/claude-code';
import { LiveHistory, stringChars } from './measure.js';
import { errorText, ReplayHost, type TranscriptFacts } from './replay-host.js';
import { RequestPricer } from './replay-requests.js';

/**
 * Replays a session through a hookwise engine: every entry (a Claude Code transcript line, or
 * an OpenCode export's or pi session's entries in the same shape) is turned into the lifecycle
 * points a live host would have emitted for it (see `replay-host.ts`), so the plugins run on the
 * same points, in the same order, as in a live session; what they said (notices, preserved
 * labels, transformed requests, errors) is recorded with the line that caused it. Lines are
 * streamed (core's transcript reader), so memory follows the live history, not the file.
 *
 * Points, per entry (main chain only; side-chain lines count for nothing):
 * - the first line: `session:start` (startup);
 * - a user prompt (core's rule): `prompt:submit`, a recorded slash command as typed (`/name args`)
 *   with its `command`;
 * - each assistant `tool_use` block: `tool:before`;
 * - each user `tool_result` block: `tool:after` (`ok: false` with the error text when `is_error`);
 * - the end of a turn (a response without tool calls, followed by a user line, a compaction or
 *   the end of the file): `agent:stop`, with the response's text, before whatever follows;
 * - a compact boundary: `compact:before`, then `session:start` (compact) and `compact:after`
 *   once the size after it is known (`postTokens`, else the next measured request, looked for
 *   up to 500 lines ahead);
 * - `llm:before` on the history a request carried, at the first line of each new API response
 *   (a new `message.id`) and on the history a compaction summarised — what a request
 *   transformer (hook-prune) changes in a host that runs it before every request.
 */

import type {
  HistoryEntry,
  PruneFigure,
  ReplayCompaction,
  ReplayEntry,
  ReplayNotice,
  ReplayOptions,
  ReplayResult,
  UsagePoint,
} from './replay-result.js';

export type {
  HistoryEntry,
  PruneFigure,
  ReplayCompaction,
  ReplayEntry,
  ReplayHookError,
  ReplayNotice,
  ReplayOptions,
  ReplayResult,
  SessionHost,
  UsagePoint,
} from './replay-result.js';

const COMPACTION_LOOKAHEAD = 500;

export function sessionIdFor(transcriptPath: string): string {
  const base = path.basename(transcriptPath).replace(/\.jsonl?$/i, '');
  return /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(base) ? base : 'replay';
}

/**
 * What Claude Code sends for a user prompt: the text as typed, and the slash command when it ran
 * one. A command it ran is recorded in the transcript as `<command-name>` tags (typed `/name
 * args`); a plain `/x` in the text is a prompt it did not run as a command.
 */
export function typedPrompt(message: Message): { prompt: string; ran?: SlashCommand } {
  const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  const command = text.includes('<command-name>') ? parseSlashCommand(text) : undefined;
  return command ? { prompt: `/${command.name}${command.args === '' ? '' : ` ${command.args}`}`, ran: command } : { prompt: text };
}

interface PendingCompaction {
  compaction: ReplayCompaction;
  buffer: ReplayEntry[];
}

class Replayer {
  readonly result: ReplayResult;
  private readonly engine: Engine;
  private readonly host: ReplayHost;
  private readonly hasRequestHooks: boolean;
  private readonly clock: { setTimestamp(text: string): void } | undefined;
  /** `ReplayOptions.contextWindow`: given to every point. */
  private readonly contextWindow: number | undefined;

  private started = false;
  private readonly history = new LiveHistory();
  private readonly requests: RequestPricer;
  /** Message id of the response whose lines are being read. */
  private openResponse: string | undefined;
  private readonly toolUses = new Map<string, { input: unknown; line: number; toolName: string }>();
  private readonly usageByMessageId = new Map<string, UsagePoint>();
  /** The usage entry of the line being read (core yields it just before the line's message). */
  private lineUsage: (TranscriptUsage & { type: 'usage' }) | undefined;
  /** The latest measured request since the latest compaction. */
  private lastUsage: UsagePoint | undefined;
  /** `postTokens` of the latest compaction, until a request is measured after it. */
  private sizeAfterCompaction: number | undefined;
  /** The latest response when it called no tool: if the turn ends here, the host emits `agent:stop`. */
  private turnEnd: { line: number; text: string } | undefined;
  /** Facts of the compaction being replayed, for its own events. */
  private compactionFacts: TranscriptFacts | undefined;
  private pending: PendingCompaction | undefined;

  constructor(transcript: string, options: ReplayOptions) {
    this.engine = options.engine;
    this.hasRequestHooks = this.engine.has('llm:before');
    this.clock = options.clock;
    this.contextWindow = options.contextWindow;
    const pruneSampling = options.pruneSampling ?? 'every-request';
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
      requestHooks: this.hasRequestHooks,
      pruneRuns: 0,
      pruneSampling,
      edits: [],
      outputTransforms: [],
    };
    this.host = new ReplayHost(this.engine, this.result.sessionId, (point) => this.facts(point));
    this.requests = new RequestPricer({
      counter: this.engine.services.tokenCounter,
      history: this.history,
      sampling: pruneSampling,
      result: this.result,
      emit: (line, messages) => this.emit(line, 'llm:before', { systemPrompt: '', messages }),
    });
  }

  /**
   * The context size events carry, and the line that measured it: during a compaction's own
   * events its sizes; else the latest measured request since the latest compaction, as sent
   * (less what the transforms took off it); else that
   * compaction's `postTokens` (core's rule for the current size); else unknown.
   */
  private context(): { tokens?: number; usageLine?: number } {
    if (this.compactionFacts?.contextTokens !== undefined) return { tokens: this.compactionFacts.contextTokens };
    if (this.lastUsage) {
      // A live host measures its context from the last response's usage: what it sent, with the
      // llm:before transforms applied. The recorded usage is the unpruned request, so what the
      // transforms reclaimed from that request comes off (adapter-pi, adapter-opencode).
      const reclaimed = this.lastUsage.prune?.reclaimedTokens ?? 0;
      return { tokens: this.lastUsage.contextTokens - reclaimed, usageLine: this.lastUsage.line };
    }
    return this.sizeAfterCompaction !== undefined ? { tokens: this.sizeAfterCompaction } : {};
  }

  private facts(point: PointName): TranscriptFacts {
    const facts: TranscriptFacts = {};
    const { tokens } = this.context();
    if (tokens !== undefined) facts.contextTokens = tokens;
    if (this.result.model !== undefined) facts.model = this.result.model;
    if (this.contextWindow !== undefined) facts.contextWindow = this.contextWindow;
    if (this.compactionFacts) {
      if (point === 'compact:after') {
        if (this.compactionFacts.tokensBefore !== undefined) facts.tokensBefore = this.compactionFacts.tokensBefore;
        if (this.compactionFacts.tokensAfter !== undefined) facts.tokensAfter = this.compactionFacts.tokensAfter;
      }
    }
    return facts;
  }

  /**
   * Handles one entry. Returns a promise only when the entry may emit something: most lines
   * (progress, snapshots) are settled synchronously, which keeps the replay close to the cost of
   * reading.
   */
  process(entry: ReplayEntry): Promise<void> | undefined {
    if (entry.line > this.result.lines) this.result.lines = entry.line;
    if (!this.started) return this.start(entry);
    if (this.pending) return this.buffer(entry);
    // A line's usage belongs to that line's message only (a malformed entry may come between them).
    if (this.lineUsage !== undefined && entry.line !== this.lineUsage.line) this.lineUsage = undefined;
    switch (entry.type) {
      case 'malformed':
        this.result.malformed.push({ line: entry.line, reason: entry.reason });
        return undefined;
      case 'usage':
        if (!entry.isSidechain) this.lineUsage = entry;
        return undefined;
      case 'message':
        if (entry.isSidechain) return undefined;
        if (this.clock && entry.timestamp !== undefined) this.clock.setTimestamp(entry.timestamp);
        return entry.role === 'assistant' ? this.assistantLine(entry) : this.userLine(entry);
      case 'compact-boundary':
        if (this.clock && entry.timestamp !== undefined) this.clock.setTimestamp(entry.timestamp);
        return this.compactBoundary(entry);
      case 'history':
        this.addHistory(entry);
        return undefined;
      default:
        return undefined;
    }
  }

  /** A message back in the live history (see `HistoryEntry`): no event, and a new response follows it. */
  private addHistory(entry: HistoryEntry): void {
    this.openResponse = undefined;
    if (entry.role === 'assistant') this.history.addAssistant(entry.content, entry.messageId);
    else if (entry.content.some((block) => (block as { type?: unknown }).type === 'tool_result')) this.history.addResults(entry.content);
    else this.history.addUser(entry.content, entry.compactSummary ? { compactSummary: true } : {});
  }

  private async start(entry: ReplayEntry): Promise<void> {
    this.started = true;
    const timestamp = entry.type === 'other' ? entry.value['timestamp'] : 'timestamp' in entry ? entry.timestamp : undefined;
    if (this.clock && typeof timestamp === 'string') this.clock.setTimestamp(timestamp);
    await this.emit(entry.line, 'session:start', { source: 'startup' });
    await this.process(entry);
  }

  private buffer(entry: ReplayEntry): Promise<void> | undefined {
    const pending = this.pending!;
    pending.buffer.push(entry);
    if (entry.type === 'usage' && !entry.isSidechain) return this.finishCompaction(entry.contextTokens);
    if (pending.buffer.length >= COMPACTION_LOOKAHEAD) return this.finishCompaction(undefined);
    return undefined;
  }

  async finish(): Promise<ReplayResult> {
    if (this.pending) await this.finishCompaction(undefined);
    await this.stop();
    return this.result;
  }

  /** Stop for the turn that ended with the latest response, once something shows it ended. */
  private async stop(): Promise<void> {
    const end = this.turnEnd;
    if (!end) return;
    this.turnEnd = undefined;
    await this.emit(end.line, 'agent:stop', end.text !== '' ? { lastMessage: end.text, stopHookActive: false } : { stopHookActive: false });
  }

  /** Emits a point (when a hook listens) and records what the plugins said. */
  private async emit<P extends PointName>(
    line: number,
    point: P,
    payload: Omit<PointInput<P>, 'sessionId'>,
    cause: { toolUseLine?: number } = {},
  ): Promise<MergedOutcome | undefined> {
    const emission = await this.host.emit(point, payload);
    if (emission) this.record(line, point, emission.outcome, cause);
    return emission?.outcome;
  }

  private record(line: number, point: PointName, outcome: MergedOutcome, cause: { toolUseLine?: number }): void {
    for (const failure of outcome.errors) this.result.hookErrors.push({ line, point, ...failure });
    if (outcome.notice === undefined || outcome.notice.trim() === '') return;
    const notice: ReplayNotice = {
      eventLine: line,
      point,
      text: outcome.notice,
      toolCalls: this.result.toolCalls.length,
      notices: outcome.notices,
    };
    const { tokens, usageLine } = this.context();
    if (tokens !== undefined) notice.contextTokens = tokens;
    if (usageLine !== undefined) notice.usageLine = usageLine;
    if (cause.toolUseLine !== undefined) notice.toolUseLine = cause.toolUseLine;
    if (Object.keys(outcome.measurements).length > 0) notice.measurements = outcome.measurements;
    this.result.notices.push(notice);
  }

  private async assistantLine(entry: TranscriptMessageEntry): Promise<void> {
    const { line, messageId } = entry;
    const usage = this.lineUsage;
    this.lineUsage = undefined;
    const continues = this.openResponse !== undefined && messageId !== undefined && this.openResponse === messageId;
    // A new API response: the request behind it carried the history as it stands now.
    const prune = continues || !this.hasRequestHooks ? undefined : await this.requests.transform(line, { carry: true });
    this.history.addAssistant(entry.content, messageId);
    this.openResponse = messageId;
    if (usage) this.recordUsage(usage, prune);
    this.noteTurnEnd(entry, continues);
    if (!Array.isArray(entry.content)) return;
    for (const block of entry.content) {
      const { type, id, name, input } = block as { type?: unknown; id?: unknown; name?: unknown; input?: unknown };
      if (type !== 'tool_use') continue;
      const toolName = typeof name === 'string' ? name : 'unknown';
      const toolUseId = typeof id === 'string' && id !== '' ? id : undefined;
      const toolInput = input ?? {};
      if (toolUseId !== undefined) this.toolUses.set(toolUseId, { input: toolInput, line, toolName });
      this.requests.checkEdits(line, toolName, toolInput);
      this.result.toolCalls.push({ line, toolName, ...(toolUseId !== undefined ? { toolUseId } : {}) });
      await this.emit(
        line,
        'tool:before',
        toolUseId !== undefined ? { toolName, input: toolInput, toolUseId } : { toolName, input: toolInput },
        { toolUseLine: line },
      );
    }
  }

  /** A response that calls no tool may end the turn; one that calls a tool continues it. */
  private noteTurnEnd(entry: TranscriptMessageEntry, continues: boolean): void {
    let text: string;
    if (typeof entry.content === 'string') text = entry.content;
    else {
      // The text blocks' texts, the empty ones left out, a line apart (one pass, no arrays: every assistant line comes here).
      text = '';
      for (const block of entry.content) {
        const { type, text: blockText } = block as { type?: unknown; text?: unknown };
        if (type === 'tool_use') {
          this.turnEnd = undefined;
          return;
        }
        if (type !== 'text') continue;
        const part = String(blockText ?? '');
        if (part !== '') text = text === '' ? part : `${text}\n${part}`;
      }
    }
    // Lines of one response join; a response after a tool call starts the candidate anew.
    if (continues && this.turnEnd) {
      const before = this.turnEnd.text;
      this.turnEnd = { line: this.turnEnd.line, text: before === '' ? text : text === '' ? before : `${before}\n${text}` };
    } else {
      this.turnEnd = { line: entry.line, text };
    }
  }

  private recordUsage(usage: TranscriptUsage, prune: PruneFigure | undefined): void {
    if (this.result.model === undefined && usage.model !== undefined) this.result.model = usage.model;
    const figures = {
      inputTokens: usage.inputTokens,
      cacheReadInputTokens: usage.cacheReadInputTokens,
      cacheCreationInputTokens: usage.cacheCreationInputTokens,
      contextTokens: usage.contextTokens,
    };
    const existing = usage.messageId === undefined ? undefined : this.usageByMessageId.get(usage.messageId);
    if (existing) {
      // Streaming lines repeat the usage; the last line has the final figures.
      Object.assign(existing, figures);
      return;
    }
    const point: UsagePoint = { line: usage.line, ...figures, toolCallsBefore: this.result.toolCalls.length };
    if (usage.messageId !== undefined) {
      point.messageId = usage.messageId;
      this.usageByMessageId.set(usage.messageId, point);
    }
    if (usage.model !== undefined) point.model = usage.model;
    if (prune) point.prune = prune;
    this.result.usage.push(point);
    this.lastUsage = point;
    this.sizeAfterCompaction = undefined;
  }

  private async userLine(entry: TranscriptMessageEntry): Promise<void> {
    const { line, content } = entry;
    if (Array.isArray(content) && content.some((block) => (block as { type?: unknown }).type === 'tool_result')) {
      this.history.addResults(content);
      for (const block of content) {
        const {
          type,
          tool_use_id: toolUseId,
          content: output,
          is_error: isError,
        } = block as { type?: unknown; tool_use_id?: unknown; content?: unknown; is_error?: unknown };
        if (type !== 'tool_result') continue;
        const call = typeof toolUseId === 'string' ? this.toolUses.get(toolUseId) : undefined;
        const toolName = call?.toolName ?? 'unknown';
        // One object per event, built field by field (a replay sends hundreds); a failed tool's output is its error text.
        const error = isError === true ? errorText(output) : undefined;
        const payload: Omit<PointInput<'tool:after'>, 'sessionId'> = error === undefined
          ? { toolName, input: call?.input ?? {}, output, ok: true }
          : { toolName, input: call?.input ?? {}, output: error, ok: false, error };
        if (typeof toolUseId === 'string' && toolUseId !== '') payload.toolUseId = toolUseId;
        const after = await this.emit(line, 'tool:after', payload, call ? { toolUseLine: call.line } : {});
        // A replaced output: what a host that lets tool:after rewrite an output (Claude Code's updatedToolOutput) applies.
        if (error === undefined && after?.value !== undefined)
          this.result.outputTransforms.push({ line, toolName, charsBefore: stringChars(output), charsAfter: stringChars(after.value) });
      }
      return;
    }
    this.openResponse = undefined;
    // Any user message may be a prompt to a request transformer: its choice may change from here.
    this.requests.newTurn();
    const message = this.history.addUser(content, { isMeta: entry.isMeta === true, compactSummary: entry.isCompactSummary === true });
    const prompt = isUserPrompt(message);
    // A prompt, or Claude Code's meta line before a local command: the user is back, the turn
    // ended with the latest response. Other text it writes there ("[Request interrupted by
    // user]") means the turn was cut: Claude Code fires no Stop then.
    if (prompt || entry.isMeta === true) await this.stop();
    else this.turnEnd = undefined;
    if (!prompt) return;
    const { prompt: typed, ran } = typedPrompt(message);
    this.result.prompts.push({ line, ...(ran ? { command: ran.name } : {}) });
    // A command the host ran comes with it; a plain `/x` it did not run is a prompt like any other.
    await this.emit(line, 'prompt:submit', ran ? { prompt: typed, command: { name: ran.name, args: ran.args } } : { prompt: typed });
  }

  private async compactBoundary(boundary: TranscriptCompactBoundary): Promise<void> {
    const { line } = boundary;
    // A manual compaction comes after the turn ended; an automatic one inside a turn has no Stop to send.
    await this.stop();
    const compaction: ReplayCompaction = { line, trigger: boundary.trigger === 'auto' ? 'auto' : 'manual', preserved: [] };
    const preTokens = boundary.preTokens ?? this.lastUsage?.contextTokens;
    if (preTokens !== undefined) compaction.preTokens = preTokens;
    this.result.compactions.push(compaction);

    this.openResponse = undefined;
    const prune = this.hasRequestHooks ? await this.requests.transform(line, { carry: false }) : undefined;
    if (prune) compaction.prune = prune;
    this.compactionFacts = preTokens !== undefined ? { contextTokens: preTokens } : {};
    const before = await this.emit(line, 'compact:before', { trigger: compaction.trigger });
    this.compactionFacts = undefined;
    if (before) {
      compaction.preserved = [...before.preserved];
      if (before.context !== undefined) compaction.instructions = before.context;
      if (before.block) compaction.blockedBy = before.block.pluginName;
    }
    // What follows the boundary is a new context, of a size unknown until the next request
    // unless the boundary says it (events before it must not carry the old size).
    this.history.clear();
    this.requests.clear();
    this.lastUsage = undefined;
    this.sizeAfterCompaction = boundary.postTokens;
    if (boundary.postTokens !== undefined) {
      compaction.postTokens = boundary.postTokens;
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

  /** After a compaction: `session:start` (compact), then `compact:after`, as the hosts' adapters emit them. */
  private async afterCompaction(compaction: ReplayCompaction): Promise<void> {
    const facts: TranscriptFacts = {};
    if (compaction.preTokens !== undefined) facts.tokensBefore = compaction.preTokens;
    if (compaction.postTokens !== undefined) facts.tokensAfter = compaction.postTokens;
    this.compactionFacts = facts;
    try {
      await this.emit(compaction.line, 'session:start', { source: 'compact' });
      await this.emit(compaction.line, 'compact:after', { trigger: compaction.trigger });
    } finally {
      this.compactionFacts = undefined;
    }
  }
}

/**
 * Replays a transcript file through the engine and returns what happened, line by line.
 * Throws only when the file cannot be read; bad lines are counted in `malformed`.
 */
export async function replayTranscript(transcript: string, options: ReplayOptions): Promise<ReplayResult> {
  return replayEntries(transcript, readTranscriptEntries(transcript, options.synchronousReads ? { synchronous: true } : {}), options);
}

/**
 * Replays entries from any source (a Claude Code transcript through core's reader, an OpenCode
 * export through `opencode-export.ts`) as one session; `transcript` names it in the result.
 */
export async function replayEntries(
  transcript: string,
  batches: AsyncIterable<readonly ReplayEntry[]> | Iterable<readonly ReplayEntry[]>,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const replayer = new Replayer(transcript, options);
  // Entries come a chunk at a time; only entries that emit wait for the engine.
  let lastLine = 0;
  for await (const entries of batches) {
    for (const entry of entries) {
      if (entry.line !== lastLine) options.onLine?.((lastLine = entry.line));
      const pending = replayer.process(entry);
      if (pending) await pending;
    }
  }
  return replayer.finish();
}
