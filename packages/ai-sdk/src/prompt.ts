import { createPartConversion, type PartConversion, type PartConversionSpec } from '@hookwise/core/host';
import {
  fromTypedPartMessage,
  sameJson,
  stringify,
  type Message,
  type PartOriginTable,
  type ToolResultContent,
  type TypedPartMessage,
  type TypedPartOptions,
} from '@hookwise/core/messages';

/**
 * The AI SDK's language model prompt (`LanguageModelV2/V3/V4Prompt` in ai 5/6/7: one shape), typed
 * structurally for every major. Only what hookwise reads is named; the rest passes through.
 */
export type PromptMessage =
  | { role: 'system'; content: string; providerOptions?: unknown }
  | { role: 'user' | 'assistant' | 'tool'; content: readonly PromptPart[]; providerOptions?: unknown };

/** A part of a prompt message, as far as hookwise reads it (the SDK's parts are interfaces: no index signature). */
export type PromptPart = { readonly type: string } & {
  readonly [K in 'text' | 'toolCallId' | 'toolName' | 'input' | 'output' | 'providerExecuted' | 'mediaType' | 'providerOptions']?: unknown;
};

/**
 * Anthropic's server-side `compaction` block, which `@ai-sdk/anthropic` gives back as a text part
 * marked `providerOptions.anthropic.type = 'compaction'`. The API ignores what comes before it.
 */
const isServerCompaction = (part: PromptPart): boolean =>
  part.type === 'text' && (part.providerOptions as { anthropic?: { type?: unknown } } | undefined)?.anthropic?.type === 'compaction';

/** A tool result's `output` as core content: `json` as the JSON text the provider sends, `execution-denied` (ai 6, 7) as its reason. */
function resultContent(output: unknown): { content: ToolResultContent; isError: boolean } {
  const value = output as { type?: unknown; value?: unknown; reason?: unknown } | undefined;
  switch (value?.type) {
    case 'text':
    case 'error-text':
      return { content: stringify(value.value ?? ''), isError: value.type === 'error-text' };
    case 'json':
    case 'error-json':
      return { content: stringify(value.value), isError: value.type === 'error-json' };
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

/** The AI SDK's typed parts (core's), its typed tool outputs, and Anthropic's server-side compaction as the summary. */
const TYPED_PARTS: TypedPartOptions<PromptMessage & TypedPartMessage> = {
  result: resultContent,
  // Core's rule: nothing before the latest compaction summary is pruned.
  isCompactSummary: (message) => message.role === 'assistant' && message.content.some(isServerCompaction),
};

/** One prompt message as a core message (none for a system message). */
const convertMessage = (message: PromptMessage, messageIndex: number, origins: PartOriginTable): Message | undefined =>
  message.role === 'system' ? undefined : fromTypedPartMessage(message, messageIndex, origins, TYPED_PARTS);

/** Whether two prompt parts say the same to the model (strings compare by pointer first; other parts never match). */
function samePart(a: PromptPart, b: PromptPart): boolean {
  if (a === b) return true;
  if (a.type !== b.type || a.providerExecuted !== b.providerExecuted || a.toolCallId !== b.toolCallId || a.toolName !== b.toolName)
    return false;
  if (a.type === 'text' || a.type === 'reasoning') return a.text === b.text && isServerCompaction(a) === isServerCompaction(b);
  return a.type === 'tool-call' || (a.type === 'tool-result' && sameJson(a.output, b.output));
}

const sameMessage = (a: PromptMessage, b: PromptMessage): boolean =>
  a === b ||
  (a.role === 'system' || b.role === 'system'
    ? a.content === b.content
    : a.role === b.role && a.content.length === b.content.length && a.content.every((part, index) => samePart(part, b.content[index]!)));

const PROMPT: PartConversionSpec<PromptMessage, PromptPart> = {
  convert: convertMessage,
  same: sameMessage,
  parts: (message) => (message.role === 'system' ? undefined : message.content),
  withParts: (message, content) => ({ ...message, content }) as PromptMessage,
  // A `text` output, valid in every major; never an empty result: Anthropic rejects one.
  output: (part, text) => ({ ...part, output: { type: 'text', value: text === '' ? ' ' : text } }) as PromptPart,
  input: (part, input) => ({ ...part, input }) as PromptPart,
};

/** A conversation's prompt conversion (core's): each call's prompt repeats the last one and adds to it. */
export const promptConversion = (): PartConversion<PromptMessage> => createPartConversion(PROMPT);

/** `llm:before`'s `systemPrompt`: the prompt's system texts, joined. */
export const systemPromptOf = (prompt: readonly PromptMessage[]): string =>
  prompt.flatMap((message) => (message.role === 'system' ? [message.content] : [])).join('\n\n');

/** The prompt as core messages, converted anew: the spec of {@link promptConversion}. */
export const fromPrompt = (prompt: readonly PromptMessage[]) => ({
  systemPrompt: systemPromptOf(prompt),
  ...promptConversion().convert(prompt),
});

/**
 * The prompt with hookwise's system text as a system message of its own after the app's: the
 * app's stays first, and the prefix before the conversation stays the provider's cache hit.
 */
export function withSystemText(prompt: readonly PromptMessage[], text: string): PromptMessage[] {
  const index = prompt.findIndex((message) => message.role !== 'system');
  const at = index === -1 ? prompt.length : index;
  return [...prompt.slice(0, at), { role: 'system', content: text }, ...prompt.slice(at)];
}

/** The text of the prompt's last message when it is the user's: a new turn of the conversation. */
export function lastUserText(prompt: readonly PromptMessage[]): string | undefined {
  const last = prompt.at(-1);
  if (last?.role !== 'user') return undefined;
  return last.content.flatMap((part) => (part.type === 'text' ? [typeof part.text === 'string' ? part.text : ''] : [])).join('\n');
}
