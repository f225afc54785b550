import type { Message, MessagePart, ToolResultContent } from '@hookwise/core/messages';

/**
 * The language model prompt of the AI SDK (`LanguageModelV2Prompt` in ai 5, `V3` in ai 6, `V4`
 * in ai 7 — the same shape), typed structurally so one package serves every major. Only the
 * fields hookwise reads are named; everything else passes through untouched.
 */
export type PromptMessage =
  | { role: 'system'; content: string; providerOptions?: unknown }
  | { role: 'user' | 'assistant' | 'tool'; content: readonly PromptPart[]; providerOptions?: unknown };

/** A part of a prompt message, as far as hookwise reads it (the SDK's parts are interfaces: no index signature). */
export interface PromptPart {
  readonly type: string;
  readonly text?: unknown;
  readonly toolCallId?: unknown;
  readonly toolName?: unknown;
  readonly input?: unknown;
  readonly output?: unknown;
  readonly providerExecuted?: unknown;
  readonly mediaType?: unknown;
  readonly providerOptions?: unknown;
}

/**
 * A text part that is a compaction the provider made on its side: `@ai-sdk/anthropic` gives back
 * Anthropic's server-side `compaction` block as a text part marked `providerOptions.anthropic.type
 * = 'compaction'`, and sends it back as that block. The API ignores what comes before it.
 */
export const isServerCompaction = (part: PromptPart): boolean =>
  part.type === 'text' && (part.providerOptions as { anthropic?: { type?: unknown } } | undefined)?.anthropic?.type === 'compaction';

/** Where each core part came from: the prompt message and part index. */
interface Origin {
  message: number;
  part: number;
}

/** The prompt as core messages, and the way back. */
export interface ConvertedPrompt {
  /** The system texts of the prompt, joined: `llm:before`'s `systemPrompt`. */
  systemPrompt: string;
  messages: Message[];
  /** The origin of each tool result and tool call, by core part. */
  origins: Pick<OriginTable, 'get'>;
}

function stringify(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A tool result's `output` as core content. `content` outputs keep their text and images;
 * `json` and `error-json` are the JSON text the provider sends; `execution-denied` (ai 6 and 7)
 * is its reason.
 */
function resultContent(output: unknown): { content: ToolResultContent; isError: boolean } {
  const value = output as { type?: unknown; value?: unknown; reason?: unknown } | undefined;
  switch (value?.type) {
    case 'text':
      return { content: stringify(value.value ?? ''), isError: false };
    case 'error-text':
      return { content: stringify(value.value ?? ''), isError: true };
    case 'json':
      return { content: stringify(value.value), isError: false };
    case 'error-json':
      return { content: stringify(value.value), isError: true };
    case 'execution-denied':
      return { content: typeof value.reason === 'string' ? value.reason : 'Tool execution denied.', isError: true };
    case 'content': {
      const parts = Array.isArray(value.value) ? (value.value as Array<{ type?: string; text?: string; mediaType?: string }>) : [];
      return {
        content: parts.map((part) =>
          part.type === 'text'
            ? { type: 'text' as const, text: part.text ?? '' }
            : { type: 'image' as const, ...(part.mediaType ? { mediaType: part.mediaType } : {}) },
        ),
        isError: false,
      };
    }
    default:
      return { content: stringify(output), isError: false };
  }
}

/** Where the origin of each converted part is kept: a Map for one conversion, a WeakMap across calls. */
interface OriginTable {
  get(part: MessagePart): Origin | undefined;
  set(part: MessagePart, origin: Origin): unknown;
}

/**
 * One prompt message as a core message (undefined for a system message). User text and files,
 * assistant text, reasoning and tool calls, and `role: 'tool'` results become core parts.
 * Provider-executed calls and results (server tools, with provider-specific shapes) are left out:
 * hookwise never edits them, and leaving both out keeps the pairing core sees whole.
 */
export function convertMessage(message: PromptMessage, messageIndex: number, origins: OriginTable): Message | undefined {
  if (message.role === 'system') return undefined;
  const parts: MessagePart[] = [];
  message.content.forEach((part, partIndex) => {
    switch (part.type) {
      case 'text':
        parts.push({ type: 'text', text: typeof part.text === 'string' ? part.text : '' });
        return;
      case 'reasoning':
        parts.push({ type: 'reasoning', text: typeof part.text === 'string' ? part.text : '' });
        return;
      case 'file':
      case 'image':
        parts.push({ type: 'image', ...(typeof part.mediaType === 'string' ? { mediaType: part.mediaType } : {}) });
        return;
      case 'tool-call': {
        if (part.providerExecuted === true || message.role !== 'assistant') return;
        const call: MessagePart = {
          type: 'tool-call',
          toolCallId: String(part.toolCallId),
          toolName: String(part.toolName),
          input: part.input,
        };
        origins.set(call, { message: messageIndex, part: partIndex });
        parts.push(call);
        return;
      }
      case 'tool-result': {
        if (message.role !== 'tool') return;
        const { content, isError } = resultContent(part.output);
        const result: MessagePart = {
          type: 'tool-result',
          toolCallId: String(part.toolCallId),
          toolName: String(part.toolName),
          output: content,
          ...(isError ? { isError: true } : {}),
        };
        origins.set(result, { message: messageIndex, part: partIndex });
        parts.push(result);
        return;
      }
      default:
        return;
    }
  });
  // Core's rule: nothing before the latest compaction summary is pruned.
  return {
    role: message.role,
    parts,
    ...(message.role === 'assistant' && message.content.some(isServerCompaction) ? { compactSummary: true } : {}),
  };
}

const systemPromptOf = (prompt: readonly PromptMessage[]): string =>
  prompt
    .filter((message): message is Extract<PromptMessage, { role: 'system' }> => message.role === 'system')
    .map((message) => message.content)
    .join('\n\n');

/**
 * The prompt as core messages, in order, with the system texts apart. The plain conversion: the
 * spec of {@link createPromptConverter}, which gives the same result.
 */
export function fromPrompt(prompt: readonly PromptMessage[]): ConvertedPrompt {
  const origins = new Map<MessagePart, Origin>();
  const messages: Message[] = [];
  prompt.forEach((message, index) => {
    const converted = convertMessage(message, index, origins);
    if (converted) messages.push(converted);
  });
  return { systemPrompt: systemPromptOf(prompt), messages, origins };
}

/** Whether two prompt parts say the same to the model (a cheap check: strings compare by pointer first). */
function samePart(a: PromptPart, b: PromptPart): boolean {
  if (a === b) return true;
  if (a.type !== b.type || a.providerExecuted !== b.providerExecuted) return false;
  switch (a.type) {
    case 'text':
    case 'reasoning':
      return a.text === b.text && isServerCompaction(a) === isServerCompaction(b);
    case 'tool-call':
      return a.toolCallId === b.toolCallId && a.toolName === b.toolName;
    case 'tool-result': {
      const left = a.output as { type?: unknown; value?: unknown; reason?: unknown } | undefined;
      const right = b.output as { type?: unknown; value?: unknown; reason?: unknown } | undefined;
      return (
        a.toolCallId === b.toolCallId &&
        left?.type === right?.type &&
        left?.reason === right?.reason &&
        (left?.value === right?.value || stringify(left?.value) === stringify(right?.value))
      );
    }
    default:
      return false;
  }
}

function sameMessage(a: PromptMessage, b: PromptMessage): boolean {
  if (a === b) return true;
  if (a.role !== b.role) return false;
  if (a.role === 'system' || b.role === 'system') return a.content === b.content;
  if (a.content.length !== b.content.length) return false;
  for (let index = 0; index < a.content.length; index++) if (!samePart(a.content[index]!, b.content[index]!)) return false;
  return true;
}

/**
 * A conversion that remembers the last prompt of a conversation. The SDK builds every call's
 * prompt afresh, but each call repeats the last one and adds to it: the messages that say the
 * same as last time keep the very core messages they were converted to, so a plugin that keeps
 * work per message (hook-prune's index and token counts) pays only for what is new.
 */
export function createPromptConverter(): (prompt: readonly PromptMessage[]) => ConvertedPrompt {
  let lastPrompt: readonly PromptMessage[] = [];
  let lastCore: Array<Message | undefined> = [];
  const origins = new WeakMap<MessagePart, Origin>();
  return (prompt) => {
    let same = 0;
    const limit = Math.min(prompt.length, lastPrompt.length);
    while (same < limit && sameMessage(prompt[same]!, lastPrompt[same]!)) same++;
    const core = lastCore.slice(0, same);
    for (let index = same; index < prompt.length; index++) core.push(convertMessage(prompt[index]!, index, origins));
    lastPrompt = prompt;
    lastCore = core;
    return { systemPrompt: systemPromptOf(prompt), messages: core.filter((message): message is Message => message !== undefined), origins };
  };
}

function contentText(content: ToolResultContent): string {
  if (typeof content === 'string') return content;
  return content.map((part) => (part.type === 'text' ? part.text : `[image${part.mediaType ? ` ${part.mediaType}` : ''}]`)).join('\n');
}

/** What applying a hook's messages changed in the prompt. */
export interface AppliedPrompt {
  prompt: PromptMessage[];
  /** Tool results whose output was replaced. */
  outputsReplaced: number;
  /** Tool calls whose input was replaced (a digest of an old write). */
  inputsReplaced: number;
  /** Edits with no place in the prompt (added or dropped messages, unknown ids): left out. */
  editsIgnored: number;
  /** Tool outputs a hook replaced that were left to the provider's own clearing. */
  outputsLeft: number;
}

/** One prompt message as a hook's edits left it, remembered for the next call. */
export interface AppliedMessage {
  /** The hook's message it was made from. */
  transformed: Message;
  message: PromptMessage;
  /** Whether tool results were applied (a call that defers them to the provider is another call). */
  toolResults: boolean;
  outputsReplaced: number;
  inputsReplaced: number;
  outputsLeft: number;
}

/** Remembers each applied message by the core message it replaced (the conversation's memo). */
export type AppliedMemo = WeakMap<Message, AppliedMessage>;

interface Counts {
  outputsReplaced: number;
  inputsReplaced: number;
  outputsLeft: number;
  editsIgnored: number;
}

/**
 * Writes what a hook changed back onto copies of the prompt: a tool result's output (as a
 * `text` output, valid in every major and never empty) and a tool call's input. Ids, order and
 * every other part stay, so each call keeps its result; untouched messages are the same objects.
 * Anything else a hook changed is counted and left out.
 *
 * With a `memo`, a message the hook changed the same way last call (hook-prune gives the same
 * message object for the same prune) is the message applied then: a conversation's repeated
 * prunes cost a lookup each, not a copy.
 */
export function applyToPrompt(
  prompt: readonly PromptMessage[],
  converted: ConvertedPrompt,
  transformed: readonly Message[],
  options: { toolResults?: boolean; memo?: AppliedMemo } = {},
): AppliedPrompt {
  const toolResults = options.toolResults !== false;
  const counts: Counts = { outputsReplaced: 0, inputsReplaced: 0, outputsLeft: 0, editsIgnored: 0 };
  const replaced = new Map<number, PromptMessage>();
  // A new part is matched to the part at its place, or else to the original with its id.
  let byId: Map<string, { part: MessagePart; origin: Origin }> | undefined;
  const originalOf = (part: MessagePart & { toolCallId: string }, place: MessagePart | undefined) => {
    if (place !== undefined && place.type === part.type && (place as { toolCallId: string }).toolCallId === part.toolCallId) {
      const origin = converted.origins.get(place);
      if (origin !== undefined) return { part: place, origin };
    }
    if (byId === undefined) {
      byId = new Map();
      for (const message of converted.messages)
        for (const original of message.parts) {
          const origin = converted.origins.get(original);
          if (origin !== undefined && (original.type === 'tool-result' || original.type === 'tool-call'))
            byId.set(`${original.type} ${original.toolCallId}`, { part: original, origin });
        }
    }
    return byId.get(`${part.type} ${part.toolCallId}`);
  };

  /** The edits of one hook message, by prompt message and part index. */
  const editsOf = (message: Message, before: Message | undefined, tally: Omit<Counts, 'editsIgnored'>) => {
    const edits = new Map<number, Map<number, PromptPart>>();
    const aligned = before !== undefined && before.parts.length === message.parts.length;
    message.parts.forEach((part, partIndex) => {
      // A hook returns the parts it kept as the same objects: only new ones are edits.
      if (converted.origins.get(part) !== undefined || (part.type !== 'tool-result' && part.type !== 'tool-call')) return;
      const original = originalOf(part, aligned ? before.parts[partIndex] : undefined);
      if (!original) {
        counts.editsIgnored++;
        return;
      }
      const source = (prompt[original.origin.message]!.content as readonly PromptPart[])[original.origin.part]!;
      let edited: PromptPart | undefined;
      if (part.type === 'tool-result' && original.part.type === 'tool-result') {
        const text = contentText(part.output);
        if (text === contentText(original.part.output)) return;
        if (!toolResults) {
          tally.outputsLeft++;
          return;
        }
        // Never an empty result: Anthropic rejects one.
        edited = { ...source, output: { type: 'text', value: text === '' ? ' ' : text } } as PromptPart;
        tally.outputsReplaced++;
      } else if (part.type === 'tool-call' && original.part.type === 'tool-call') {
        if (stringify(part.input) === stringify(original.part.input)) return;
        edited = { ...source, input: part.input } as PromptPart;
        tally.inputsReplaced++;
      }
      if (!edited) return;
      let parts = edits.get(original.origin.message);
      if (!parts) edits.set(original.origin.message, (parts = new Map()));
      parts.set(original.origin.part, edited);
    });
    return edits;
  };
  const applyEdits = (edits: Map<number, Map<number, PromptPart>>) => {
    for (const [index, parts] of edits) {
      const message = replaced.get(index) ?? prompt[index]!;
      if (message.role === 'system') continue;
      replaced.set(index, { ...message, content: message.content.map((part, partIndex) => parts.get(partIndex) ?? part) });
    }
  };

  // Only tool results and tool calls have a place to go back to; a hook that added or dropped
  // messages asked for something the prompt cannot take without breaking its pairing.
  const positional = transformed.length === converted.messages.length;
  if (!positional) counts.editsIgnored++;
  transformed.forEach((message, messageIndex) => {
    const before = positional ? converted.messages[messageIndex] : undefined;
    if (message === before) return;
    const remembered = before ? options.memo?.get(before) : undefined;
    if (remembered !== undefined && remembered.transformed === message && remembered.toolResults === toolResults) {
      const origin = converted.origins.get(before!.parts.find((part) => converted.origins.get(part) !== undefined)!);
      if (origin !== undefined) {
        replaced.set(origin.message, remembered.message);
        counts.outputsReplaced += remembered.outputsReplaced;
        counts.inputsReplaced += remembered.inputsReplaced;
        counts.outputsLeft += remembered.outputsLeft;
        return;
      }
    }
    const tally = { outputsReplaced: 0, inputsReplaced: 0, outputsLeft: 0 };
    const edits = editsOf(message, before, tally);
    counts.outputsReplaced += tally.outputsReplaced;
    counts.inputsReplaced += tally.inputsReplaced;
    counts.outputsLeft += tally.outputsLeft;
    applyEdits(edits);
    // One core message is one prompt message: remember what it became.
    if (before && options.memo && edits.size === 1) {
      const [index] = edits.keys();
      options.memo.set(before, { transformed: message, message: replaced.get(index!)!, toolResults, ...tally });
    }
  });
  const result = { ...counts, prompt: prompt as PromptMessage[] };
  if (replaced.size === 0) return result;
  return { ...result, prompt: prompt.map((message, index) => replaced.get(index) ?? message) };
}

/**
 * The prompt with hookwise's system text as one system message of its own, right after the
 * app's leading system messages: it sits before the conversation, so it must stay the same from
 * call to call for the provider's prefix cache to hold, and the app's own system text stays first.
 */
export function withSystemText(prompt: readonly PromptMessage[], text: string): PromptMessage[] {
  let index = 0;
  while (index < prompt.length && prompt[index]!.role === 'system') index++;
  return [...prompt.slice(0, index), { role: 'system', content: text }, ...prompt.slice(index)];
}

/** The text of the prompt's last message when it is the user's: a new turn of the conversation. */
export function lastUserText(prompt: readonly PromptMessage[]): string | undefined {
  const last = prompt[prompt.length - 1];
  if (!last || last.role !== 'user') return undefined;
  return last.content
    .filter((part) => part.type === 'text')
    .map((part) => (typeof part.text === 'string' ? part.text : ''))
    .join('\n');
}

/** How many user messages the prompt holds (a new one marks a new turn). */
export function userMessageCount(prompt: readonly PromptMessage[]): number {
  let count = 0;
  for (const message of prompt) if (message.role === 'user') count++;
  return count;
}
