import {
  applyPartEdits,
  createReusingConverter,
  sameJson,
  type ImagePart,
  type Message,
  type MessagePart,
  type PartOrigin,
  type PartWriter,
  type TextPart,
  type ToolResultContent,
} from '@hookwise/core/messages';
import type { PiMessage } from './pi-types.js';

/**
 * pi hands its `context` event its own messages (`AgentMessage`), one core message each. Hook
 * edits come back through core's `applyPartEdits`: each tool call and result remembers its pi
 * message and block. pi's own roles (`compactionSummary`, `branchSummary`, `bashExecution`,
 * `custom`) and unknown ones reach hooks as text and always come back untouched.
 */

type Block = Record<string, unknown>;
const isRecord = (value: unknown): value is Block => typeof value === 'object' && value !== null;
const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/** User or tool-result content (a string, or text and image blocks) as core parts. */
function contentParts(content: unknown): Array<TextPart | ImagePart> {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: Array<TextPart | ImagePart> = [];
  for (const block of Array.isArray(content) ? content : []) {
    if (!isRecord(block)) continue;
    if (block['type'] === 'text') parts.push({ type: 'text', text: text(block['text']) });
    else if (block['type'] === 'image')
      parts.push({
        type: 'image',
        ...(typeof block['data'] === 'string' ? { data: block['data'] } : {}),
        ...(typeof block['mimeType'] === 'string' ? { mediaType: block['mimeType'] } : {}),
      });
  }
  return parts;
}

/** The text blocks of pi content, joined (a tool result's output as `tool:after` sees it). */
export const contentText = (content: unknown): string =>
  contentParts(content)
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join('\n');

/** A tool result's output: its text when it is all text (the usual case), else its blocks. */
function resultOutput(content: unknown): ToolResultContent {
  const parts = contentParts(content);
  return parts.every((part) => part.type === 'text') ? contentText(content) : (parts as Exclude<ToolResultContent, string>);
}

/** The text a hook sees for one of pi's own roles (or an unknown one). */
function passthroughText(message: Block): string {
  if (message['role'] === 'compactionSummary' || message['role'] === 'branchSummary') return text(message['summary']);
  if (message['role'] === 'bashExecution') return `$ ${text(message['command'])}\n${text(message['output'])}`;
  return contentText(message['content']);
}

/** One pi message as a core message (undefined for what is not one); tool parts' origins go to `origins`. */
function fromPiMessage(message: unknown, index: number, origins?: WeakMap<MessagePart, PartOrigin>): Message | undefined {
  if (!isRecord(message)) return undefined;
  const content = message['content'];
  switch (message['role']) {
    case 'user':
      return { role: 'user', parts: contentParts(content) as MessagePart[] };
    case 'assistant': {
      const parts: MessagePart[] = [];
      (Array.isArray(content) ? content : []).forEach((block: unknown, part) => {
        if (!isRecord(block)) return;
        if (block['type'] === 'text') parts.push({ type: 'text', text: text(block['text']) });
        else if (block['type'] === 'thinking') parts.push({ type: 'reasoning', text: text(block['thinking']) });
        else if (block['type'] === 'toolCall') {
          const call = {
            type: 'tool-call' as const,
            toolCallId: text(block['id']),
            toolName: text(block['name']),
            input: block['arguments'] ?? {},
          };
          origins?.set(call, { message: index, part });
          parts.push(call);
        }
      });
      return { role: 'assistant', parts };
    }
    case 'toolResult': {
      const result: MessagePart = {
        type: 'tool-result',
        toolCallId: text(message['toolCallId']),
        toolName: text(message['toolName']),
        output: resultOutput(content),
        ...(message['isError'] === true ? { isError: true } : {}),
      };
      origins?.set(result, { message: index, part: 0 });
      return { role: 'tool', parts: [result] };
    }
    default:
      // compactionSummary marks where the history was cut: pruning never reaches before it.
      return {
        role: 'user',
        parts: [{ type: 'text', text: passthroughText(message) }],
        ...(message['role'] === 'compactionSummary' ? { compactSummary: true } : {}),
      };
  }
}

/** pi's messages as core messages, in the order the model sees them (the plain conversion). */
export function fromPiMessages(messages: readonly PiMessage[]): Message[] {
  return messages.flatMap((message, index) => fromPiMessage(message, index) ?? []);
}

/** Only tool results (their own only part) and assistant messages (their content blocks) hold parts with an origin. */
const WRITER: PartWriter<PiMessage, Block> = {
  parts: (message) => (message.role === 'toolResult' ? [message] : (message.content as Block[])),
  withParts: (message, parts) => (message.role === 'toolResult' ? (parts[0] as PiMessage) : { ...message, content: parts }),
  output: (part, output) => ({ ...part, content: [{ type: 'text', text: output }] }),
  input: (part, input) => ({ ...part, arguments: input }),
};

/**
 * One session's conversion. pi hands every `context` event a deep copy; core's reusing converter
 * gives back the same core messages for what a request shares with the last one, so hook-prune and
 * token counting keep what they learnt per message. It always equals `fromPiMessages` (a test holds them equal).
 */
export class PiConversion {
  private readonly origins = new WeakMap<MessagePart, PartOrigin>();
  readonly convert = createReusingConverter<PiMessage>((message, index) => fromPiMessage(message, index, this.origins), sameJson);

  /** A hook's edits of `converted` (tool outputs and inputs) on copies of pi's messages; the originals stay. */
  apply(original: readonly PiMessage[], converted: Message[], transformed: readonly Message[]) {
    return applyPartEdits(original, { messages: converted, origins: this.origins }, transformed, WRITER);
  }
}

/** Appends `addition` to the newest compaction summary (for this request), unless it already holds it. */
export function extendCompactionSummary(messages: readonly PiMessage[], addition: string): PiMessage[] | undefined {
  const index = messages.findLastIndex((message) => message.role === 'compactionSummary');
  const summary = index === -1 ? '' : text(messages[index]!['summary']);
  if (index === -1 || summary.includes(addition)) return undefined;
  return messages.with(index, { ...messages[index]!, summary: `${summary}\n\n${addition}` });
}
