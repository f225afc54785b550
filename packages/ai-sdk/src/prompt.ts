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
  origins: Map<MessagePart, Origin>;
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
        content: parts.map((part) => (part.type === 'text' ? { type: 'text' as const, text: part.text ?? '' } : { type: 'image' as const, ...(part.mediaType ? { mediaType: part.mediaType } : {}) })),
        isError: false,
      };
    }
    default:
      return { content: stringify(output), isError: false };
  }
}

/**
 * The prompt as core messages, in order. System messages become `systemPrompt`; user text and
 * files, assistant text, reasoning and tool calls, and `role: 'tool'` results become core parts.
 * Provider-executed calls and results (server tools, with provider-specific shapes) are left out:
 * hookwise never edits them, and leaving both out keeps the pairing core sees whole.
 */
export function fromPrompt(prompt: readonly PromptMessage[]): ConvertedPrompt {
  const systemTexts: string[] = [];
  const messages: Message[] = [];
  const origins = new Map<MessagePart, Origin>();
  prompt.forEach((message, messageIndex) => {
    if (message.role === 'system') {
      systemTexts.push(message.content);
      return;
    }
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
          const call: MessagePart = { type: 'tool-call', toolCallId: String(part.toolCallId), toolName: String(part.toolName), input: part.input };
          origins.set(call, { message: messageIndex, part: partIndex });
          parts.push(call);
          return;
        }
        case 'tool-result': {
          if (message.role !== 'tool') return;
          const { content, isError } = resultContent(part.output);
          const result: MessagePart = { type: 'tool-result', toolCallId: String(part.toolCallId), toolName: String(part.toolName), output: content, ...(isError ? { isError: true } : {}) };
          origins.set(result, { message: messageIndex, part: partIndex });
          parts.push(result);
          return;
        }
        default:
          return;
      }
    });
    // Core's rule: nothing before the latest compaction summary is pruned.
    messages.push({ role: message.role, parts, ...(message.role === 'assistant' && message.content.some(isServerCompaction) ? { compactSummary: true } : {}) });
  });
  return { systemPrompt: systemTexts.join('\n\n'), messages, origins };
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

/**
 * Writes what a hook changed back onto copies of the prompt: a tool result's output (as a
 * `text` output, valid in every major and never empty) and a tool call's input. Ids, order and
 * every other part stay, so each call keeps its result; untouched messages are the same objects.
 * Anything else a hook changed is counted and left out.
 */
export function applyToPrompt(prompt: readonly PromptMessage[], converted: ConvertedPrompt, transformed: readonly Message[], options: { toolResults?: boolean } = {}): AppliedPrompt {
  const toolResults = options.toolResults !== false;
  let outputsReplaced = 0;
  let outputsLeft = 0;
  let inputsReplaced = 0;
  let editsIgnored = 0;
  const edits = new Map<number, Map<number, PromptPart>>();
  const edit = (origin: Origin, part: PromptPart) => {
    let parts = edits.get(origin.message);
    if (!parts) edits.set(origin.message, (parts = new Map()));
    parts.set(origin.part, part);
  };
  // Parts the hook kept are the same objects; new objects are looked up by id.
  const resultsById = new Map<string, { part: MessagePart; origin: Origin }>();
  const callsById = new Map<string, { part: MessagePart; origin: Origin }>();
  for (const [part, origin] of converted.origins) {
    if (part.type === 'tool-result') resultsById.set(part.toolCallId, { part, origin });
    else if (part.type === 'tool-call') callsById.set(part.toolCallId, { part, origin });
  }
  // Only tool results and tool calls have a place to go back to; a hook that added or dropped
  // messages asked for something the prompt cannot take without breaking its pairing.
  if (transformed.length !== converted.messages.length) editsIgnored++;
  for (const message of transformed) {
    for (const part of message.parts) {
      if (converted.origins.has(part)) continue;
      if (part.type === 'tool-result') {
        const original = resultsById.get(part.toolCallId);
        if (!original || original.part.type !== 'tool-result') {
          editsIgnored++;
          continue;
        }
        const text = contentText(part.output);
        if (text === contentText(original.part.output)) continue;
        if (!toolResults) {
          outputsLeft++;
          continue;
        }
        const source = (prompt[original.origin.message]!.content as readonly PromptPart[])[original.origin.part]!;
        // Never an empty result: Anthropic rejects one.
        edit(original.origin, { ...source, output: { type: 'text', value: text === '' ? ' ' : text } } as PromptPart);
        outputsReplaced++;
      } else if (part.type === 'tool-call') {
        const original = callsById.get(part.toolCallId);
        if (!original || original.part.type !== 'tool-call') {
          editsIgnored++;
          continue;
        }
        if (stringify(part.input) === stringify(original.part.input)) continue;
        const source = (prompt[original.origin.message]!.content as readonly PromptPart[])[original.origin.part]!;
        edit(original.origin, { ...source, input: part.input } as PromptPart);
        inputsReplaced++;
      }
    }
  }
  if (edits.size === 0) return { prompt: prompt as PromptMessage[], outputsReplaced, inputsReplaced, editsIgnored, outputsLeft };
  const next = prompt.map((message, index) => {
    const parts = edits.get(index);
    if (!parts || message.role === 'system') return message;
    return { ...message, content: message.content.map((part, partIndex) => parts.get(partIndex) ?? part) };
  });
  return { prompt: next, outputsReplaced, inputsReplaced, editsIgnored, outputsLeft };
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
