import {
  applyPartEdits,
  createReusingConverter,
  stringify,
  type AppliedPartMemo,
  type Message,
  type MessagePart,
  type PartOrigin,
  type PartOriginTable,
  type PartWriter,
  type ToolResultContent,
} from '@hookwise/core/messages';

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

/** The prompt as core messages, and the way back. */
export interface ConvertedPrompt {
  /** The system texts of the prompt, joined: `llm:before`'s `systemPrompt`. */
  systemPrompt: string;
  messages: Message[];
  /** The origin of each tool result and tool call, by core part. */
  origins: Pick<PartOriginTable, 'get'>;
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

/**
 * One prompt message as a core message (undefined for a system message). User text and files,
 * assistant text, reasoning and tool calls, and `role: 'tool'` results become core parts.
 * Provider-executed calls and results (server tools, with provider-specific shapes) are left out:
 * hookwise never edits them, and leaving both out keeps the pairing core sees whole.
 */
export function convertMessage(message: PromptMessage, messageIndex: number, origins: PartOriginTable): Message | undefined {
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
  const origins = new Map<MessagePart, PartOrigin>();
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
 * A conversion that remembers the last prompt of a conversation (core's reusing converter): the
 * SDK builds every call's prompt afresh, but each call repeats the last one and adds to it.
 */
export function createPromptConverter(): (prompt: readonly PromptMessage[]) => ConvertedPrompt {
  const origins = new WeakMap<MessagePart, PartOrigin>();
  const convert = createReusingConverter((message: PromptMessage, index) => convertMessage(message, index, origins), sameMessage, {
    prefix: true,
  });
  return (prompt) => ({ systemPrompt: systemPromptOf(prompt), messages: convert(prompt), origins });
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

/** Remembers each applied message by the core message it replaced (the conversation's memo). */
export type AppliedMemo = AppliedPartMemo<PromptMessage>;

const PROMPT_WRITER: PartWriter<PromptMessage, PromptPart> = {
  parts: (message) => (message.role === 'system' ? undefined : message.content),
  withParts: (message, content) => ({ ...message, content }) as PromptMessage,
  // A `text` output, valid in every major; never an empty result: Anthropic rejects one.
  output: (part, text) => ({ ...part, output: { type: 'text', value: text === '' ? ' ' : text } }) as PromptPart,
  input: (part, input) => ({ ...part, input }) as PromptPart,
};

/**
 * Writes what a hook changed back onto copies of the prompt (core's `applyPartEdits`): a tool
 * result's output as a `text` output and a tool call's input; untouched messages are the same
 * objects, and with a `memo` a message changed the same way as last call is the one applied then.
 */
export function applyToPrompt(
  prompt: readonly PromptMessage[],
  converted: ConvertedPrompt,
  transformed: readonly Message[],
  options: { toolResults?: boolean; memo?: AppliedMemo } = {},
): AppliedPrompt {
  const { messages, ...counts } = applyPartEdits(prompt, converted, transformed, PROMPT_WRITER, options);
  return { ...counts, prompt: messages };
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
