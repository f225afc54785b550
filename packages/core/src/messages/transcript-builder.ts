import { fromAnthropicMessages, type AnthropicMessageParam } from './anthropic.js';
import { isRecord } from './provider-metadata.js';
import type { Transcript, TranscriptCompactBoundary, TranscriptLine, TranscriptMessageEntry, TranscriptUsage } from './transcript.js';
import { transcriptEntriesOf } from './transcript-entries.js';

/** A message under construction; content stays in Anthropic form so the converter does the rest. */
interface Draft {
  role: 'user' | 'assistant';
  content: string | unknown[];
  line: number;
  uuid?: string;
  timestamp?: string;
  messageId?: string;
  isMeta?: boolean;
  compactSummary?: boolean;
}

function isToolResultsOnly(content: string | unknown[]): content is unknown[] {
  return Array.isArray(content) && content.length > 0 && content.every((block) => isRecord(block) && block['type'] === 'tool_result');
}

/**
 * Turns transcript entries into a Transcript. Claude Code writes one API response as one line per
 * content block, all with the same `message.id`, and runs tools while the response streams, so
 * a response with several tool calls is written as call, result, call, result. The builder
 * joins these back into what the API saw: one assistant message with every block, then one user
 * message with every result.
 */
export class TranscriptBuilder {
  private readonly drafts: Draft[] = [];
  private readonly transcript: Omit<Transcript, 'messages' | 'lineCount'> = { malformed: [], skippedLines: 0, compactions: [], usage: [] };
  private readonly usageByMessageId = new Map<string, TranscriptUsage>();
  /** Assistant draft that later lines of the same API message may still join. */
  private openAssistant: Draft | undefined;
  /** User draft of tool results only, that the next result lines may still join. */
  private openResults: Draft | undefined;

  add(parsed: TranscriptLine): void {
    for (const entry of transcriptEntriesOf(parsed)) {
      switch (entry.type) {
        case 'malformed':
          this.transcript.malformed.push({ line: entry.line, reason: entry.reason });
          break;
        case 'usage':
          this.addUsage(entry);
          break;
        case 'message':
          if (!entry.isSidechain) this.addMessage(entry);
          break;
        case 'compact-boundary':
          this.addCompaction(entry);
          break;
        case 'other':
          this.transcript.skippedLines += 1;
          break;
      }
    }
  }

  private addCompaction({ type: _type, ...boundary }: { type: 'compact-boundary' } & TranscriptCompactBoundary): void {
    this.transcript.compactions.push({ ...boundary, messageIndex: this.drafts.length });
    // Nothing joins across a compaction: what follows is a new context.
    this.openAssistant = undefined;
    this.openResults = undefined;
  }

  private addUsage({ type: _type, ...usage }: { type: 'usage' } & TranscriptUsage): void {
    const existing = usage.messageId === undefined ? undefined : this.usageByMessageId.get(usage.messageId);
    if (existing) {
      // Streaming lines repeat the usage; the last line has the final figures.
      existing.inputTokens = usage.inputTokens;
      existing.cacheReadInputTokens = usage.cacheReadInputTokens;
      existing.cacheCreationInputTokens = usage.cacheCreationInputTokens;
      existing.contextTokens = usage.contextTokens;
      return;
    }
    if (usage.messageId !== undefined) this.usageByMessageId.set(usage.messageId, usage);
    this.transcript.usage.push(usage);
  }

  private addMessage(entry: TranscriptMessageEntry): void {
    const { role, content, messageId } = entry;
    if (role === 'assistant') {
      if (this.openAssistant && messageId !== undefined && this.openAssistant.messageId === messageId) {
        this.openAssistant.content = joinContent(this.openAssistant.content, content);
        return;
      }
      this.openAssistant = this.push(entry);
      this.openResults = undefined;
      return;
    }

    if (isToolResultsOnly(content)) {
      if (this.openResults) {
        this.openResults.content = joinContent(this.openResults.content, content);
        return;
      }
      const follows = this.drafts[this.drafts.length - 1] === this.openAssistant;
      this.openResults = this.push(entry);
      if (!follows) this.openAssistant = undefined;
      return;
    }
    this.push(entry);
    this.openAssistant = undefined;
    this.openResults = undefined;
  }

  private push(entry: TranscriptMessageEntry): Draft {
    const draft: Draft = { role: entry.role, content: entry.content, line: entry.line };
    if (entry.uuid !== undefined) draft.uuid = entry.uuid;
    if (entry.timestamp !== undefined) draft.timestamp = entry.timestamp;
    if (entry.messageId !== undefined) draft.messageId = entry.messageId;
    if (entry.isMeta) draft.isMeta = true;
    if (entry.isCompactSummary) draft.compactSummary = true;
    this.drafts.push(draft);
    return draft;
  }

  finish(lineCount: number): Transcript {
    // Only role and content: the API fields of a transcript message (id, usage, model) are not request fields.
    const params = this.drafts.map((draft) => ({ role: draft.role, content: draft.content }) as AnthropicMessageParam);
    const messages = fromAnthropicMessages(params);
    messages.forEach((message, index) => {
      const draft = this.drafts[index]!;
      if (draft.uuid !== undefined) message.id = draft.uuid;
      if (draft.compactSummary) message.compactSummary = true;
      const claudeCode: Record<string, unknown> = { line: draft.line };
      if (draft.uuid !== undefined) claudeCode['uuid'] = draft.uuid;
      if (draft.timestamp !== undefined) claudeCode['timestamp'] = draft.timestamp;
      if (draft.messageId !== undefined) claudeCode['messageId'] = draft.messageId;
      if (draft.isMeta) claudeCode['isMeta'] = true;
      message.providerMetadata = { ...message.providerMetadata, claudeCode };
    });
    return { messages, ...this.transcript, lineCount };
  }
}

function joinContent(first: string | unknown[], second: string | unknown[]): unknown[] {
  const asBlocks = (content: string | unknown[]) => (typeof content === 'string' ? [{ type: 'text', text: content }] : content);
  return [...asBlocks(first), ...asBlocks(second)];
}
