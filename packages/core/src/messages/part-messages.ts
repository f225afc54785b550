// Messages made of typed parts — the AI SDK's `ModelMessage` shape, which agent runtimes built on
// it hand their hooks too: `{ role, content: [{ type: 'text' | 'reasoning' | 'image' | 'file' |
// 'tool-call' | 'tool-result', … }] }`. Converted to core messages remembering where each tool part
// came from, so a hook's edits go back onto copies of the host's parts (`applyPartEdits`).
import type { Message, MessagePart, ToolResultContent } from './message-model.js';
import {
  createPartConversion,
  sameJson,
  stringify,
  type ConvertedParts,
  type PartConversion,
  type PartOrigin,
  type PartOriginTable,
  type PartWriter,
} from './part-edits.js';

/** A part as far as the conversion reads it; any other field is kept as it is. */
export interface TypedPart {
  type: string;
  text?: unknown;
  toolCallId?: unknown;
  toolName?: unknown;
  input?: unknown;
  output?: unknown;
  isError?: unknown;
  mediaType?: unknown;
  providerExecuted?: unknown;
}

export interface TypedPartMessage {
  id?: string;
  role: string;
  content: readonly TypedPart[];
}

/** Whether a message is the summary a compaction left (nothing before it is pruned). */
export type IsCompactSummary<M> = (message: M) => boolean;

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** How a host's typed parts differ from the plain shape. */
export interface TypedPartOptions<M> {
  isCompactSummary?: IsCompactSummary<M>;
  /** A tool result's output as core content (default: a string as it is, anything else as its JSON; `isError` from the part). */
  result?: (output: unknown, part: TypedPart) => { content: ToolResultContent; isError: boolean };
}

const plainResult = (output: unknown, part: TypedPart) => ({ content: stringify(output ?? ''), isError: part.isError === true });

/**
 * One message as a core message (undefined for a role other than user, assistant, tool): texts,
 * reasoning, images and files (as an image), an assistant's tool calls and a tool message's
 * results, whose output is the text a provider is sent. A provider-executed call is left out:
 * hookwise never edits it, and the pairing stays whole.
 */
export function fromTypedPartMessage<M extends TypedPartMessage>(
  message: M,
  messageIndex: number,
  origins: PartOriginTable,
  options: TypedPartOptions<M> = {},
): Message | undefined {
  if (message.role !== 'user' && message.role !== 'assistant' && message.role !== 'tool') return undefined;
  const parts: MessagePart[] = [];
  (Array.isArray(message.content) ? message.content : []).forEach((part: TypedPart, partIndex) => {
    let tool: MessagePart;
    if (part.type === 'text' || part.type === 'reasoning') return void parts.push({ type: part.type, text: text(part.text) });
    if (part.type === 'image' || part.type === 'file')
      return void parts.push({ type: 'image', ...(typeof part.mediaType === 'string' ? { mediaType: part.mediaType } : {}) });
    if (part.type === 'tool-call' && message.role === 'assistant' && part.providerExecuted !== true)
      tool = { type: 'tool-call', toolCallId: text(part.toolCallId), toolName: text(part.toolName), input: part.input ?? {} };
    else if (part.type === 'tool-result' && message.role === 'tool') {
      const { content, isError } = (options.result ?? plainResult)(part.output, part);
      tool = {
        type: 'tool-result',
        toolCallId: text(part.toolCallId),
        toolName: text(part.toolName),
        output: content,
        ...(isError ? { isError: true } : {}),
      };
    } else return;
    origins.set(tool, { message: messageIndex, part: partIndex });
    parts.push(tool);
  });
  return {
    role: message.role,
    ...(message.id !== undefined ? { id: message.id } : {}),
    parts,
    ...(options.isCompactSummary?.(message) ? { compactSummary: true } : {}),
  };
}

/** The messages as core messages, with the origin of each tool part: the spec of {@link typedPartConversion}. */
export function fromTypedPartMessages<M extends TypedPartMessage>(
  messages: readonly M[],
  isCompactSummary?: IsCompactSummary<M>,
): ConvertedParts {
  const origins = new Map<MessagePart, PartOrigin>();
  const converted: Message[] = [];
  messages.forEach((message, index) => {
    const one = fromTypedPartMessage(message, index, origins, { isCompactSummary });
    if (one) converted.push(one);
  });
  return { messages: converted, origins };
}

const WRITER: PartWriter<TypedPartMessage, TypedPart> = {
  parts: (message) => (Array.isArray(message.content) ? message.content : undefined),
  withParts: (message, content) => ({ ...message, content }),
  output: (part, output) => ({ ...part, output }),
  input: (part, input) => ({ ...part, input }),
};

/**
 * The conversion for one conversation's requests (core's `createPartConversion`): a host that
 * hands every request a fresh copy keeps the core messages of the unchanged prefix, so plugins
 * that keep work per message pay only for what is new; a hook's edits go back onto copies (a new
 * output as its text). It converts as {@link fromTypedPartMessages} does.
 */
export function typedPartConversion<M extends TypedPartMessage>(isCompactSummary?: IsCompactSummary<M>): PartConversion<M> {
  return createPartConversion<M, TypedPart>({
    ...(WRITER as unknown as PartWriter<M, TypedPart>),
    convert: (message, index, origins) => fromTypedPartMessage(message, index, origins, { isCompactSummary }),
    same: (a, b) => a.id === b.id && a.role === b.role && sameJson(a.content, b.content),
  });
}
