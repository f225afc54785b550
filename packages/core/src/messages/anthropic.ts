import type {
  ImagePart,
  Message,
  MessagePart,
  ReasoningPart,
  TextPart,
  ToolCallPart,
  ToolResultContent,
  ToolResultPart,
} from './message-model.js';
import { attachProviderData, extraFields, isRecord, providerData, withoutUndefined } from './provider-metadata.js';

/*
 * Anthropic Messages API request types, written here so core needs no SDK. Only the fields the
 * converters understand are typed; any other field (citations, new block kinds) is still carried
 * through at run time in `providerMetadata.anthropic`.
 */

export interface AnthropicCacheControl {
  type: 'ephemeral';
  ttl?: '5m' | '1h';
}

export interface AnthropicTextBlock {
  type: 'text';
  text: string;
  cache_control?: AnthropicCacheControl | null;
  citations?: unknown[] | null;
}

export interface AnthropicBase64ImageSource {
  type: 'base64';
  media_type: string;
  data: string;
}

export interface AnthropicUrlImageSource {
  type: 'url';
  url: string;
}

export interface AnthropicImageBlock {
  type: 'image';
  source: AnthropicBase64ImageSource | AnthropicUrlImageSource;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicToolUseBlock {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content?: string | Array<AnthropicTextBlock | AnthropicImageBlock>;
  is_error?: boolean;
  cache_control?: AnthropicCacheControl | null;
}

export interface AnthropicThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature: string;
}

export interface AnthropicRedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

export type AnthropicContentBlock =
  | AnthropicTextBlock
  | AnthropicImageBlock
  | AnthropicToolUseBlock
  | AnthropicToolResultBlock
  | AnthropicThinkingBlock
  | AnthropicRedactedThinkingBlock;

export interface AnthropicMessageParam {
  role: 'user' | 'assistant';
  content: string | AnthropicContentBlock[];
}

export type AnthropicSystem = string | AnthropicTextBlock[];

/*
 * Keys of `providerMetadata.anthropic` that belong to the converter rather than to the payload.
 * They are camelCase and Anthropic fields are snake_case, so they cannot collide with a real field.
 *   contentForm     message: 'string' when the content was a plain string, 'blocks' for an array
 *   block           text part standing in for a block the model has no part for (kept verbatim)
 *   contentMissing  tool-result part whose block had no `content`
 * Every other key is a field of the original block / message, spread back on output.
 */
const ANTHROPIC = 'anthropic';
type ContentForm = 'string' | 'blocks';

function splitAnthropicData(holder: { providerMetadata?: Record<string, unknown> }) {
  const { contentForm, block, contentMissing, ...fields } = providerData(holder, ANTHROPIC) ?? {};
  return { contentForm, block, contentMissing: contentMissing === true, fields };
}

/** A part for a block the neutral model cannot express: empty text, so token counts and text joins ignore it. */
function opaquePart(block: unknown): TextPart {
  return { type: 'text', text: '', providerMetadata: { [ANTHROPIC]: { block } } };
}

/**
 * True when the part stands in for a block of the other provider (see `opaquePart` here and in
 * openai.ts): `provider` cannot take it, so converters to `provider` leave it out.
 */
export function isForeignOpaquePart(part: MessagePart, provider: 'anthropic' | 'openai'): boolean {
  if (part.type !== 'text') return false;
  if (provider === ANTHROPIC) return providerData(part, 'openai')?.['part'] !== undefined;
  return providerData(part, ANTHROPIC)?.['block'] !== undefined;
}

function textFromBlock(block: Record<string, unknown>): TextPart {
  return attachProviderData<TextPart>({ type: 'text', text: block['text'] as string }, ANTHROPIC, extraFields(block, ['type', 'text']));
}

function imageFromBlock(block: Record<string, unknown>): ImagePart | undefined {
  const source = block['source'];
  if (!isRecord(source)) return undefined;
  const extras = extraFields(block, ['type', 'source']);
  if (
    source['type'] === 'base64' &&
    typeof source['data'] === 'string' &&
    typeof source['media_type'] === 'string' &&
    !extraFields(source, ['type', 'data', 'media_type'])
  ) {
    return attachProviderData<ImagePart>({ type: 'image', data: source['data'], mediaType: source['media_type'] }, ANTHROPIC, extras);
  }
  if (source['type'] === 'url' && typeof source['url'] === 'string' && !extraFields(source, ['type', 'url'])) {
    return attachProviderData<ImagePart>({ type: 'image', url: source['url'] }, ANTHROPIC, extras);
  }
  return undefined;
}

/** Content inside a tool_result: text and images become parts, anything else is kept opaque. */
function toolResultContentFromBlocks(content: unknown[]): Array<TextPart | ImagePart> {
  return content.map((block) => {
    if (isRecord(block) && block['type'] === 'text' && typeof block['text'] === 'string') return textFromBlock(block);
    if (isRecord(block) && block['type'] === 'image') return imageFromBlock(block) ?? opaquePart(block);
    return opaquePart(block);
  });
}

function partFromBlock(block: unknown, toolNames: Map<string, string>): MessagePart {
  if (!isRecord(block)) return opaquePart(block);
  switch (block['type']) {
    case 'text':
      if (typeof block['text'] === 'string') return textFromBlock(block);
      break;
    case 'image':
      return imageFromBlock(block) ?? opaquePart(block);
    case 'tool_use': {
      const id = block['id'];
      const name = block['name'];
      if (typeof id !== 'string' || typeof name !== 'string' || !('input' in block)) break;
      toolNames.set(id, name);
      const part: ToolCallPart = { type: 'tool-call', toolCallId: id, toolName: name, input: block['input'] };
      return attachProviderData(part, ANTHROPIC, extraFields(block, ['type', 'id', 'name', 'input']));
    }
    case 'tool_result': {
      const id = block['tool_use_id'];
      const content = block['content'];
      if (typeof id !== 'string' || !(content === undefined || typeof content === 'string' || Array.isArray(content))) break;
      const hasBooleanError = typeof block['is_error'] === 'boolean';
      const part: ToolResultPart = {
        type: 'tool-result',
        toolCallId: id,
        output: Array.isArray(content) ? toolResultContentFromBlocks(content) : (content ?? ''),
      };
      const toolName = toolNames.get(id);
      if (toolName !== undefined) part.toolName = toolName;
      if (hasBooleanError) part.isError = block['is_error'] as boolean;
      const known = ['type', 'tool_use_id', 'content', ...(hasBooleanError ? ['is_error'] : [])];
      const data = { ...extraFields(block, known), ...(content === undefined ? { contentMissing: true } : {}) };
      return attachProviderData(part, ANTHROPIC, data);
    }
    case 'thinking': {
      const signature = block['signature'];
      if (typeof block['thinking'] !== 'string' || !(signature === undefined || typeof signature === 'string')) break;
      const part: ReasoningPart = { type: 'reasoning', text: block['thinking'] };
      if (signature !== undefined) part.signature = signature;
      return attachProviderData(part, ANTHROPIC, extraFields(block, ['type', 'thinking', 'signature']));
    }
    case 'redacted_thinking':
      if (typeof block['data'] !== 'string') break;
      return attachProviderData<ReasoningPart>(
        { type: 'reasoning', text: '', signature: block['data'], redacted: true },
        ANTHROPIC,
        extraFields(block, ['type', 'data']),
      );
  }
  return opaquePart(block);
}

/**
 * Converts Anthropic content (string or blocks) to parts. `toolNames` maps tool_use ids seen so
 * far to tool names; it is filled from tool_use blocks and read for tool_result blocks.
 */
function partsFromAnthropicContent(content: unknown, toolNames: Map<string, string>): { parts: MessagePart[]; contentForm: ContentForm } {
  if (typeof content === 'string') return { parts: [{ type: 'text', text: content }], contentForm: 'string' };
  if (!Array.isArray(content)) return { parts: [], contentForm: 'blocks' };
  return { parts: content.map((block) => partFromBlock(block, toolNames)), contentForm: 'blocks' };
}

export function fromAnthropicMessages(messages: AnthropicMessageParam[], options: { system?: AnthropicSystem } = {}): Message[] {
  const result: Message[] = [];
  const toolNames = new Map<string, string>();
  if (options.system !== undefined) {
    const { parts, contentForm } = partsFromAnthropicContent(options.system, toolNames);
    result.push({ role: 'system', parts, providerMetadata: { [ANTHROPIC]: { contentForm } } });
  }
  for (const message of messages) {
    const { parts, contentForm } = partsFromAnthropicContent(message.content, toolNames);
    const extras = extraFields(message as unknown as Record<string, unknown>, ['role', 'content']);
    result.push({ role: message.role, parts, providerMetadata: { [ANTHROPIC]: { ...extras, contentForm } } });
  }
  return result;
}

function textToBlock(part: TextPart): unknown {
  const { block, fields } = splitAnthropicData(part);
  if (block !== undefined) return block;
  return { type: 'text', text: part.text, ...fields };
}

function imageToBlock(part: ImagePart): AnthropicImageBlock {
  const { fields } = splitAnthropicData(part);
  const source: AnthropicImageBlock['source'] =
    part.url !== undefined
      ? { type: 'url', url: part.url }
      : { type: 'base64', media_type: part.mediaType ?? 'image/png', data: part.data ?? '' };
  return { type: 'image', source, ...fields };
}

function toolResultContentToAnthropic(output: ToolResultContent): AnthropicToolResultBlock['content'] {
  if (typeof output === 'string') return output;
  const blocks: unknown[] = [];
  for (const part of output) {
    if (isForeignOpaquePart(part, 'anthropic')) continue;
    blocks.push(part.type === 'text' ? textToBlock(part) : imageToBlock(part));
  }
  return blocks as Array<AnthropicTextBlock | AnthropicImageBlock>;
}

/** Returns undefined for parts Anthropic cannot take (another provider's opaque parts). */
function partToBlock(part: MessagePart): AnthropicContentBlock | undefined {
  if (isForeignOpaquePart(part, 'anthropic')) return undefined;
  const { contentMissing, fields } = splitAnthropicData(part);
  switch (part.type) {
    case 'text':
      return textToBlock(part) as AnthropicContentBlock;
    case 'image':
      return imageToBlock(part);
    case 'reasoning':
      if (part.redacted) return { type: 'redacted_thinking', data: part.signature ?? '', ...fields };
      return withoutUndefined({
        type: 'thinking',
        thinking: part.text,
        signature: part.signature,
        ...fields,
      }) as unknown as AnthropicThinkingBlock;
    case 'tool-call':
      return { type: 'tool_use', id: part.toolCallId, name: part.toolName, input: part.input, ...fields };
    case 'tool-result': {
      const block: AnthropicToolResultBlock = { type: 'tool_result', tool_use_id: part.toolCallId, ...fields };
      // A result without content in the source stays without it; an added one always gets it.
      if (!(contentMissing && part.output === '')) block.content = toolResultContentToAnthropic(part.output);
      if (part.isError !== undefined) block.is_error = part.isError;
      return block;
    }
  }
}

function isPlainTextBlock(block: unknown): block is AnthropicTextBlock {
  return isRecord(block) && block['type'] === 'text' && Object.keys(block).length === 2 && typeof block['text'] === 'string';
}

/**
 * String content when the source had it, or when nothing is recorded and the content is one
 * plain text block (the common, compact form); blocks otherwise.
 */
function anthropicContent(message: Message): string | AnthropicContentBlock[] {
  const blocks = message.parts.map(partToBlock).filter((block): block is AnthropicContentBlock => block !== undefined);
  const { contentForm } = splitAnthropicData(message);
  const only = blocks[0];
  if (blocks.length === 1 && isPlainTextBlock(only) && contentForm !== 'blocks') return only.text;
  return blocks;
}

function asBlocks(content: string | AnthropicContentBlock[]): AnthropicContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/**
 * Converts to an Anthropic request: system messages (wherever they are) become `system`, and
 * `tool` messages (OpenAI shape) become user messages of tool_result blocks — consecutive ones
 * merged, and a user message right after them joined in, because Anthropic wants every result of
 * one assistant turn in the single user message that follows it, results first.
 */
export function toAnthropicMessages(messages: Message[]): { system?: AnthropicSystem; messages: AnthropicMessageParam[] } {
  const systemContents: Array<string | AnthropicContentBlock[]> = [];
  const result: AnthropicMessageParam[] = [];
  let openToolResults: AnthropicContentBlock[] | undefined;

  for (const message of messages) {
    if (message.role === 'system') {
      systemContents.push(anthropicContent(message));
      continue;
    }
    const extras = splitAnthropicData(message).fields;
    if (message.role === 'tool') {
      const blocks = asBlocks(anthropicContent(message));
      if (openToolResults) {
        openToolResults.push(...blocks);
      } else {
        openToolResults = blocks;
        result.push({ role: 'user', content: openToolResults });
      }
      continue;
    }
    if (message.role === 'user' && openToolResults) {
      openToolResults.push(...asBlocks(anthropicContent(message)));
      openToolResults = undefined;
      continue;
    }
    openToolResults = undefined;
    result.push({ ...extras, role: message.role, content: anthropicContent(message) });
  }

  const output: { system?: AnthropicSystem; messages: AnthropicMessageParam[] } = { messages: result };
  const [firstSystem] = systemContents;
  if (systemContents.length === 1 && firstSystem !== undefined) {
    output.system = firstSystem as AnthropicSystem;
  } else if (systemContents.length > 1) {
    output.system = systemContents.flatMap(asBlocks) as AnthropicTextBlock[];
  }
  return output;
}
