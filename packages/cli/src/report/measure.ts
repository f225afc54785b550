import type { TokenCounter } from '@hookwise/core';
import { fromAnthropicMessages, type Message } from '@hookwise/core/messages';
import { partTokens } from '@hookwise/core/counting';

/**
 * Measuring: the live history a request would carry, and what a transformed history gave up,
 * counted with a token counter the caller passes (the engine's, the one plugins count with).
 * Figures derived from the history belong here — today what the `llm:before` transformers take
 * out of each request and of the history a compaction summarised (`measureTransform`); figures
 * such as the history's own size at a compaction or the context a request would have had after
 * pruning are functions of the same two inputs (messages, counter). The replay (`replay.ts`)
 * decides when to measure and stores the figures on its usage points and compactions.
 */

/** A message still being read, in Anthropic form; core's converter makes it a Message when asked. */
interface Draft {
  role: 'user' | 'assistant';
  /** The line's own content array until a later line adds blocks (then a copy: entries are not written into). */
  blocks: unknown[];
  owned: boolean;
  messageId: string | undefined;
  isMeta: boolean;
  compactSummary: boolean;
  /** The converted message, until more blocks arrive (then undefined: assigned, not deleted, so drafts keep one shape). */
  message: Message | undefined;
}

/**
 * The messages of the live context (since the latest compaction), built one transcript line at
 * a time. Claude Code writes one API response as one line per content block (same
 * `message.id`) and runs tools while the response streams, so lines are joined back into what
 * the API saw: one assistant message per response, one user message per run of tool results.
 * Content is converted with core's Anthropic converter, lazily: only when a history is asked
 * for, and only the messages that changed since.
 */
export class LiveHistory {
  private drafts: Draft[] = [];
  /** The converted messages, one per draft; undefined where a draft changed since it was converted. */
  private converted: Array<Message | undefined> = [];
  /** The first draft that changed since `messages()` last converted them all (`length` when none did): the newest ones, as a rule. */
  private firstStale = 0;
  private openAssistant: Draft | undefined;
  private openResults: Draft | undefined;
  /** Tool names by tool-use id, so a result carries its tool's name (core's converter does it within one call). */
  private readonly toolNames = new Map<string, string>();

  get length(): number {
    return this.drafts.length;
  }

  /** An assistant line: a new response, or the next block of the open one (same `message.id`). */
  addAssistant(content: string | unknown[], messageId: string | undefined): { newResponse: boolean } {
    const blocks = asBlocks(content);
    for (const block of blocks) {
      const { type, id, name } = block as { type?: unknown; id?: unknown; name?: unknown };
      if (type === 'tool_use' && typeof id === 'string' && typeof name === 'string') this.toolNames.set(id, name);
    }
    if (this.openAssistant && messageId !== undefined && this.openAssistant.messageId === messageId) {
      this.append(this.openAssistant, blocks);
      return { newResponse: false };
    }
    this.openResults = undefined;
    this.openAssistant = this.push({
      role: 'assistant',
      blocks,
      owned: blocks !== content,
      messageId,
      isMeta: false,
      compactSummary: false,
      message: undefined,
    });
    return { newResponse: true };
  }

  /** A user line of tool results: joins the results that came right before it. */
  addResults(content: unknown[]): void {
    if (this.openResults) this.append(this.openResults, content);
    else
      this.openResults = this.push({
        role: 'user',
        blocks: content,
        owned: false,
        messageId: undefined,
        isMeta: false,
        compactSummary: false,
        message: undefined,
      });
  }

  /** Any other user line (a prompt, a meta line, a compaction summary), returned as a message. */
  addUser(content: string | unknown[], flags: { isMeta?: boolean; compactSummary?: boolean }): Message {
    this.openAssistant = undefined;
    this.openResults = undefined;
    const blocks = asBlocks(content);
    const draft = this.push({
      role: 'user',
      blocks,
      owned: blocks !== content,
      messageId: undefined,
      isMeta: flags.isMeta === true,
      compactSummary: flags.compactSummary === true,
      message: undefined,
    });
    // Converted now: the replay asks whether it is a prompt, and nothing joins a prompt later.
    const message = (draft.message = this.convert(draft));
    this.converted[this.converted.length - 1] = message;
    return message;
  }

  /** A compaction: what follows is a new context. */
  clear(): void {
    this.drafts = [];
    this.converted = [];
    this.firstStale = 0;
    this.openAssistant = undefined;
    this.openResults = undefined;
  }

  /**
   * The history as provider-neutral messages. Unchanged messages are the same objects as last
   * time. The array is the history's own, valid until the history changes (the replay reads it
   * during one request only; the engine hands hooks a copy): no array per request.
   */
  messages(): Message[] {
    const { drafts, converted } = this;
    for (let index = this.firstStale; index < drafts.length; index++) {
      if (converted[index] === undefined) {
        const draft = drafts[index]!;
        converted[index] = draft.message ??= this.convert(draft);
      }
    }
    this.firstStale = drafts.length;
    return converted as Message[];
  }

  private convert(draft: Draft): Message {
    const [message] = fromAnthropicMessages([{ role: draft.role, content: draft.blocks as never }]);
    const converted = message!;
    for (const part of converted.parts)
      if (part.type === 'tool-result' && part.toolName === undefined) {
        const name = this.toolNames.get(part.toolCallId);
        if (name !== undefined) part.toolName = name;
      }
    if (draft.compactSummary) converted.compactSummary = true;
    // Where hook-prune and core's user-prompt rule look for Claude Code's meta flag.
    if (draft.isMeta) converted.providerMetadata = { ...converted.providerMetadata, claudeCode: { isMeta: true } };
    return converted;
  }

  private push(draft: Draft): Draft {
    this.drafts.push(draft);
    this.converted.push(undefined);
    return draft;
  }

  /** More blocks of the open response or result run (one of the newest drafts: found from the end). */
  private append(draft: Draft, blocks: unknown[]): void {
    if (!draft.owned) {
      draft.blocks = draft.blocks.slice();
      draft.owned = true;
    }
    for (const block of blocks) draft.blocks.push(block);
    draft.message = undefined;
    const index = this.drafts.lastIndexOf(draft);
    this.converted[index] = undefined;
    if (index < this.firstStale) this.firstStale = index;
  }
}

function asBlocks(content: string | unknown[]): unknown[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

// Tokens of one part by core's estimate (the one plugins use), counted once per part object in
// the process: core's figure, which a plugin that counted the part first (hook-prune) has kept.
// A message's sum is not kept: the report sums each message once (the history at a compaction;
// the meter keeps its figures per changed pair), so a memo per message was a WeakMap write per
// message that was never read.

/** Tokens of one message: the sum of its parts. */
export function messageTokens(message: Message, counter: TokenCounter): number {
  let tokens = 0;
  for (const part of message.parts) tokens += partTokens(part, counter);
  return tokens;
}

/** Tokens a transform took out, and how many parts it changed. */
export interface TransformFigure {
  tokens: number;
  parts: number;
}

/**
 * `measureTransform` for one replay's requests, which carry the same history again and again:
 * what each message position gave up is kept with the message pair it was measured on (the
 * original and the transformed message), and a request whose position holds the same pair takes
 * it as is — a transformer that reapplies its prunes on every request returns the same copies
 * (copy on write). One pointer comparison per changed message instead of a memo lookup per part.
 * Only whole-number figures are kept (every part's), so the sums are the ones a part-by-part
 * walk adds up, whatever the order.
 */
export class TransformMeter {
  private befores: Array<Message | undefined> = [];
  private afters: Array<Message | undefined> = [];
  private figures: Array<TransformFigure | undefined> = [];

  constructor(private readonly counter: TokenCounter) {}

  measure(original: readonly Message[], transformed: readonly Message[]): TransformFigure {
    return measureTransform(original, transformed, this.counter, this);
  }

  /** The figure of the pair at `index`, kept or measured now (and kept); undefined when its part figures are not all whole numbers. */
  pairFigure(index: number, before: Message, after: Message): TransformFigure | undefined {
    if (this.befores[index] === before && this.afters[index] === after) return this.figures[index];
    const diff = messageDiff(before, after, this.counter);
    if (diff === undefined) return undefined;
    this.befores[index] = before;
    this.afters[index] = after;
    return (this.figures[index] = diff);
  }

  /** A compaction: the next history is new messages (the old pairs would only keep them alive). */
  clear(): void {
    this.befores = [];
    this.afters = [];
    this.figures = [];
  }
}

/** What one message gave up: the changed parts' tokens (before minus after) and how many changed; undefined when some part's figure is not a whole number. */
function messageDiff(before: Message, after: Message, counter: TokenCounter): TransformFigure | undefined {
  if (before.parts.length !== after.parts.length) {
    const beforeTokens = messageTokens(before, counter);
    const afterTokens = messageTokens(after, counter);
    return Number.isInteger(beforeTokens) && Number.isInteger(afterTokens)
      ? { tokens: beforeTokens - afterTokens, parts: changedParts(before, after) }
      : undefined;
  }
  let tokens = 0;
  let parts = 0;
  for (let partIndex = 0; partIndex < before.parts.length; partIndex++) {
    const beforePart = before.parts[partIndex]!;
    const afterPart = after.parts[partIndex]!;
    if (beforePart === afterPart) continue;
    parts++;
    const beforeTokens = partTokens(beforePart, counter);
    const afterTokens = partTokens(afterPart, counter);
    if (!Number.isInteger(beforeTokens) || !Number.isInteger(afterTokens)) return undefined;
    tokens += beforeTokens - afterTokens;
  }
  return { tokens, parts };
}

/** How many parts of a replaced message changed: the replaced ones, or the difference in number when parts were added or dropped. */
function changedParts(before: Message, after: Message): number {
  if (before.parts.length !== after.parts.length) return Math.abs(before.parts.length - after.parts.length);
  let parts = 0;
  for (let partIndex = 0; partIndex < before.parts.length; partIndex++) if (before.parts[partIndex] !== after.parts[partIndex]) parts++;
  return parts;
}

/** `total` plus one message's part figures, added one by one: the order every figure is summed in. */
function addPartDiffs(total: number, before: Message, after: Message, counter: TokenCounter): number {
  if (before.parts.length !== after.parts.length) return total + (messageTokens(before, counter) - messageTokens(after, counter));
  for (let partIndex = 0; partIndex < before.parts.length; partIndex++) {
    const beforePart = before.parts[partIndex]!;
    const afterPart = after.parts[partIndex]!;
    if (beforePart !== afterPart) total += partTokens(beforePart, counter) - partTokens(afterPart, counter);
  }
  return total;
}

/**
 * What a transformed history gave up against the original: tokens of the parts that were
 * replaced minus their replacements, and how many parts changed. Transformers copy on write,
 * so messages and parts left alone are the same objects and cost a reference comparison. A
 * message with parts added or dropped counts as its total before minus after. With a `meter`,
 * each replaced message's figure is the one it kept for the same pair (see `TransformMeter`).
 */
export function measureTransform(
  original: readonly Message[],
  transformed: readonly Message[],
  counter: TokenCounter,
  meter?: TransformMeter,
): TransformFigure {
  if (original === transformed) return { tokens: 0, parts: 0 };
  if (original.length !== transformed.length) {
    // A transformer that drops messages: compare totals.
    const total = (messages: readonly Message[]) => messages.reduce((sum, message) => sum + messageTokens(message, counter), 0);
    const kept = new Set(transformed.flatMap((message) => message.parts));
    let parts = 0;
    for (const message of original) for (const part of message.parts) if (!kept.has(part)) parts++;
    return { tokens: total(original) - total(transformed), parts };
  }
  let tokens = 0;
  let parts = 0;
  for (let index = 0; index < original.length; index++) {
    const before = original[index]!;
    const after = transformed[index]!;
    if (before === after) continue;
    const known = meter?.pairFigure(index, before, after);
    // A message's figure at once only while every figure so far is whole (then exact in any order); else part by part.
    if (known !== undefined && Number.isInteger(tokens)) {
      tokens += known.tokens;
      parts += known.parts;
    } else {
      tokens = addPartDiffs(tokens, before, after, counter);
      parts += changedParts(before, after);
    }
  }
  return { tokens, parts };
}

/** Characters of every string in a tool output (the measure the arrival trim uses). */
export function stringChars(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + stringChars(item), 0);
  if (value !== null && typeof value === 'object') return Object.values(value).reduce((sum: number, item) => sum + stringChars(item), 0);
  return 0;
}
