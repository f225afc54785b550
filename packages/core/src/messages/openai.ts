import { isForeignOpaquePart } from './anthropic.js';
import type { ImagePart, Message, MessagePart, TextPart, ToolCallPart, ToolResultPart } from './message-model.js';
import { attachProviderData, extraFields, isRecord, providerData } from './provider-metadata.js';

/*
 * OpenAI Chat Completions request message types, written here so core needs no SDK. Fields the
 * converters do not understand are still carried through at run time in `providerMetadata.openai`.
 */

export interface OpenAITextContentPart {
  type: 'text';
  text: string;
}

export interface OpenAIImageContentPart {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}

export interface OpenAIRefusalContentPart {
  type: 'refusal';
  refusal: string;
}

export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string /** JSON text, as the model produced it. */; arguments: string };
}

export interface OpenAISystemMessage {
  role: 'system' | 'developer';
  content: string | OpenAITextContentPart[];
  name?: string;
}

export interface OpenAIUserMessage {
  role: 'user';
  content: string | Array<OpenAITextContentPart | OpenAIImageContentPart>;
  name?: string;
}

export interface OpenAIAssistantMessage {
  role: 'assistant';
  content?: string | Array<OpenAITextContentPart | OpenAIRefusalContentPart> | null;
  tool_calls?: OpenAIToolCall[];
  refusal?: string | null;
  name?: string;
}

export interface OpenAIToolMessage {
  role: 'tool';
  tool_call_id: string;
  content: string | OpenAITextContentPart[];
}

export type OpenAIChatMessage = OpenAISystemMessage | OpenAIUserMessage | OpenAIAssistantMessage | OpenAIToolMessage;

/*
 * Keys of `providerMetadata.openai` that belong to the converter (camelCase; OpenAI fields are
 * snake_case, so no collision):
 *   role          message: the source role when it is not the model's own name ('developer')
 *   contentForm   message: 'string' | 'parts' | 'null' | 'absent'
 *   toolCalls     message: 'empty' when the source had `tool_calls: []`
 *   part          text part standing in for a content part the model has no part for (verbatim)
 *   detail        image part: `image_url.detail`
 *   arguments     tool-call part: the source arguments text, when JSON.stringify(input) would differ
 *   callType      tool-call part: `type` when it is not 'function'
 *   functionFields tool-call part: unknown fields of `function`
 * Every other key is a field of the original part / message / tool call, spread back on output.
 */
const OPENAI = 'openai';
type ContentForm = 'string' | 'parts' | 'null' | 'absent';

function splitOpenAIData(holder: { providerMetadata?: Record<string, unknown> }) {
  const {
    role,
    contentForm,
    toolCalls,
    part,
    detail,
    arguments: argumentsText,
    callType,
    functionFields,
    ...fields
  } = providerData(holder, OPENAI) ?? {};
  return { role, contentForm, toolCalls, part, detail, argumentsText, callType, functionFields, fields };
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function opaquePart(part: unknown): TextPart {
  return { type: 'text', text: '', providerMetadata: { [OPENAI]: { part } } };
}

function partFromContentPart(contentPart: unknown): TextPart | ImagePart {
  if (!isRecord(contentPart)) return opaquePart(contentPart);
  if (contentPart['type'] === 'text' && typeof contentPart['text'] === 'string') {
    return attachProviderData<TextPart>({ type: 'text', text: contentPart['text'] }, OPENAI, extraFields(contentPart, ['type', 'text']));
  }
  const imageUrl = contentPart['image_url'];
  if (
    contentPart['type'] === 'image_url' &&
    isRecord(imageUrl) &&
    typeof imageUrl['url'] === 'string' &&
    !extraFields(imageUrl, ['url', 'detail'])
  ) {
    const data: Record<string, unknown> = { ...extraFields(contentPart, ['type', 'image_url']) };
    if (imageUrl['detail'] !== undefined) data['detail'] = imageUrl['detail'];
    const match = DATA_URL.exec(imageUrl['url']);
    const image: ImagePart =
      match?.[1] !== undefined && match[2] !== undefined
        ? { type: 'image', data: match[2], mediaType: match[1] }
        : { type: 'image', url: imageUrl['url'] };
    return attachProviderData(image, OPENAI, data);
  }
  return opaquePart(contentPart);
}

function contentFromOpenAI(content: unknown): { parts: Array<TextPart | ImagePart>; contentForm: ContentForm } {
  if (typeof content === 'string') return { parts: [{ type: 'text', text: content }], contentForm: 'string' };
  if (Array.isArray(content)) return { parts: content.map(partFromContentPart), contentForm: 'parts' };
  return { parts: [], contentForm: content === null ? 'null' : 'absent' };
}

function toolCallFromOpenAI(call: OpenAIToolCall): ToolCallPart {
  const functionData: Record<string, unknown> = isRecord(call.function) ? call.function : {};
  const argumentsText = typeof functionData['arguments'] === 'string' ? functionData['arguments'] : '';
  const data: Record<string, unknown> = { ...extraFields(call as unknown as Record<string, unknown>, ['id', 'type', 'function']) };
  let input: unknown = argumentsText;
  try {
    input = JSON.parse(argumentsText);
    // Pretty-printed or oddly spaced arguments would come back different; keep the text then.
    if (JSON.stringify(input) !== argumentsText) data['arguments'] = argumentsText;
  } catch {
    data['arguments'] = argumentsText;
  }
  if (call.type !== 'function') data['callType'] = call.type;
  const functionExtras = extraFields(functionData, ['name', 'arguments']);
  if (functionExtras) data['functionFields'] = functionExtras;
  const part: ToolCallPart = { type: 'tool-call', toolCallId: call.id, toolName: String(functionData['name'] ?? ''), input };
  return attachProviderData(part, OPENAI, data);
}

export function fromOpenAIMessages(messages: OpenAIChatMessage[]): Message[] {
  const toolNames = new Map<string, string>();
  return messages.map((message): Message => {
    const source = message as unknown as Record<string, unknown>;
    switch (message.role) {
      case 'tool': {
        const { parts } = contentFromOpenAI(message.content);
        const part: ToolResultPart = {
          type: 'tool-result',
          toolCallId: message.tool_call_id,
          output: typeof message.content === 'string' ? message.content : parts,
        };
        const toolName = toolNames.get(message.tool_call_id);
        if (toolName !== undefined) part.toolName = toolName;
        // Tool-message fields go on the part: one result part is one tool message on the way back.
        attachProviderData(part, OPENAI, extraFields(source, ['role', 'tool_call_id', 'content']));
        return { role: 'tool', parts: [part] };
      }
      case 'assistant': {
        const { parts, contentForm } = contentFromOpenAI(message.content);
        const calls = Array.isArray(message.tool_calls) ? message.tool_calls.map(toolCallFromOpenAI) : [];
        for (const call of calls) toolNames.set(call.toolCallId, call.toolName);
        const data = { ...extraFields(source, ['role', 'content', 'tool_calls']), contentForm };
        if (Array.isArray(message.tool_calls) && message.tool_calls.length === 0) Object.assign(data, { toolCalls: 'empty' });
        return { role: 'assistant', parts: [...parts, ...calls], providerMetadata: { [OPENAI]: data } };
      }
      default: {
        const { parts, contentForm } = contentFromOpenAI(message.content);
        const role = message.role === 'user' ? 'user' : 'system';
        const data: Record<string, unknown> = { ...extraFields(source, ['role', 'content']), contentForm };
        if (message.role !== role) data['role'] = message.role;
        return { role, parts, providerMetadata: { [OPENAI]: data } };
      }
    }
  });
}

type OpenAIContentPart = OpenAITextContentPart | OpenAIImageContentPart | OpenAIRefusalContentPart;

/** Returns undefined for parts OpenAI messages cannot carry (another provider's opaque blocks). */
function contentPartToOpenAI(part: TextPart | ImagePart): OpenAIContentPart | undefined {
  if (isForeignOpaquePart(part, 'openai')) return undefined;
  const { part: opaque, detail, fields } = splitOpenAIData(part);
  if (opaque !== undefined) return opaque as OpenAIContentPart;
  if (part.type === 'text') return { type: 'text', text: part.text, ...fields };
  const url = part.url ?? `data:${part.mediaType ?? 'image/png'};base64,${part.data ?? ''}`;
  const imageUrl: OpenAIImageContentPart['image_url'] = { url };
  if (detail !== undefined) imageUrl.detail = detail as 'auto' | 'low' | 'high';
  return { type: 'image_url', image_url: imageUrl, ...fields };
}

function isPlainTextPart(part: OpenAIContentPart | undefined): part is OpenAITextContentPart {
  return part !== undefined && part.type === 'text' && Object.keys(part).length === 2;
}

/** String when the source had it, or when nothing is recorded and there is one plain text part. */
function contentToOpenAI(parts: Array<TextPart | ImagePart>, contentForm: unknown): string | OpenAIContentPart[] {
  const converted = parts.map(contentPartToOpenAI).filter((part): part is OpenAIContentPart => part !== undefined);
  const only = converted[0];
  if (converted.length === 1 && isPlainTextPart(only) && (contentForm === undefined || contentForm === 'string')) return only.text;
  return converted;
}

function toolCallToOpenAI(part: ToolCallPart): OpenAIToolCall {
  const { argumentsText, callType, functionFields, fields } = splitOpenAIData(part);
  let argumentsOut = JSON.stringify(part.input ?? {});
  if (typeof argumentsText === 'string') {
    // The recorded text wins only while it still says what `input` says (a hook may have edited input).
    let recorded: unknown = argumentsText;
    try {
      recorded = JSON.parse(argumentsText);
    } catch {
      // unparseable text was kept as the input itself
    }
    if (JSON.stringify(recorded) === JSON.stringify(part.input)) argumentsOut = argumentsText;
  }
  return {
    ...fields,
    id: part.toolCallId,
    type: (callType ?? 'function') as 'function',
    function: { ...(isRecord(functionFields) ? functionFields : {}), name: part.toolName, arguments: argumentsOut },
  };
}

function toolMessage(part: ToolResultPart): { message: OpenAIToolMessage; images: ImagePart[] } {
  const { fields } = splitOpenAIData(part);
  if (typeof part.output === 'string') {
    return { message: { ...fields, role: 'tool', tool_call_id: part.toolCallId, content: part.output }, images: [] };
  }
  // Tool messages take text only; images of a result travel in the user message that follows.
  const images = part.output.filter((item): item is ImagePart => item.type === 'image');
  const texts = part.output
    .filter((item): item is TextPart => item.type === 'text')
    .map(contentPartToOpenAI)
    .filter((item): item is OpenAITextContentPart => item !== undefined);
  return { message: { ...fields, role: 'tool', tool_call_id: part.toolCallId, content: texts.length > 0 ? texts : '' }, images };
}

function isContentPart(part: MessagePart): part is TextPart | ImagePart {
  return part.type === 'text' || part.type === 'image';
}

/**
 * Converts to Chat Completions messages. Tool results inside a user message (Anthropic shape)
 * become one `tool` message each, placed before the rest of that user message so they directly
 * follow the assistant message with the calls; reasoning parts are dropped (Chat Completions
 * has no field for them).
 */
export function toOpenAIMessages(messages: Message[]): OpenAIChatMessage[] {
  const result: OpenAIChatMessage[] = [];
  for (const message of messages) {
    const { role, contentForm, toolCalls, fields } = splitOpenAIData(message);
    switch (message.role) {
      case 'system':
        result.push({
          ...fields,
          role: (typeof role === 'string' ? role : 'system') as OpenAISystemMessage['role'],
          content: contentToOpenAI(message.parts.filter(isContentPart), contentForm) as OpenAISystemMessage['content'],
        });
        break;
      case 'assistant': {
        const content = contentToOpenAI(message.parts.filter(isContentPart), contentForm);
        const calls = message.parts.filter((part): part is ToolCallPart => part.type === 'tool-call').map(toolCallToOpenAI);
        const assistant: OpenAIAssistantMessage = { ...fields, role: 'assistant' };
        if (content.length > 0 || contentForm === 'parts') {
          assistant.content = content as OpenAIAssistantMessage['content'];
        } else if (contentForm === 'null' || (contentForm === undefined && calls.length > 0)) {
          // null is what the API itself returns for a turn that only calls tools
          assistant.content = null;
        } else if (contentForm !== 'absent') {
          assistant.content = '';
        }
        if (calls.length > 0 || toolCalls === 'empty') assistant.tool_calls = calls;
        result.push(assistant);
        break;
      }
      case 'user':
      case 'tool': {
        const rest: Array<TextPart | ImagePart> = [];
        let resultCount = 0;
        for (const part of message.parts) {
          if (part.type === 'tool-result') {
            const { message: tool, images } = toolMessage(part);
            result.push(tool);
            rest.push(...images);
            resultCount += 1;
          } else if (isContentPart(part)) {
            rest.push(part);
          }
        }
        const content = contentToOpenAI(rest, contentForm);
        if (message.role === 'user' && (resultCount === 0 || content.length > 0)) {
          result.push({ ...fields, role: 'user', content } as OpenAIUserMessage);
        } else if (message.role === 'tool' && content.length > 0) {
          result.push({ role: 'user', content } as OpenAIUserMessage);
        }
        break;
      }
    }
  }
  return result;
}
