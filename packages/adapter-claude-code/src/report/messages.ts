import type { ImagePart, Message, MessagePart, TextPart, TokenCounter, ToolResultPart } from '@hookwise/core';

/**
 * Transcript content blocks as provider-neutral parts, built one line at a time: the replay
 * needs the history as it stood before each request, so it cannot wait for a whole-file
 * conversion. Only what a request would carry matters here (text, reasoning, tool calls and
 * results, images); provider metadata is left out.
 */

type Block = Record<string, unknown>;

const isRecord = (value: unknown): value is Block => typeof value === 'object' && value !== null && !Array.isArray(value);

function resultContent(content: unknown): ToolResultPart['output'] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === undefined || content === null ? '' : JSON.stringify(content);
  const items: Array<TextPart | ImagePart> = [];
  for (const item of content) {
    if (!isRecord(item)) continue;
    if (item['type'] === 'text' && typeof item['text'] === 'string') items.push({ type: 'text', text: item['text'] });
    else if (item['type'] === 'image') items.push(imagePart(item));
    else items.push({ type: 'text', text: JSON.stringify(item) });
  }
  return items;
}

function imagePart(block: Block): ImagePart {
  const source = isRecord(block['source']) ? block['source'] : {};
  const part: ImagePart = { type: 'image' };
  if (typeof source['data'] === 'string') part.data = source['data'];
  if (typeof source['url'] === 'string') part.url = source['url'];
  if (typeof source['media_type'] === 'string') part.mediaType = source['media_type'];
  return part;
}

/** One content block as a part; `toolNames` maps tool-use ids to names so results carry their tool's name. */
export function blockToPart(block: Block, toolNames: ReadonlyMap<string, string>): MessagePart {
  switch (block['type']) {
    case 'text':
      return { type: 'text', text: typeof block['text'] === 'string' ? block['text'] : '' };
    case 'thinking':
      return { type: 'reasoning', text: typeof block['thinking'] === 'string' ? block['thinking'] : '' };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redacted: true };
    case 'image':
      return imagePart(block);
    case 'tool_use': {
      const toolCallId = typeof block['id'] === 'string' ? block['id'] : '';
      return { type: 'tool-call', toolCallId, toolName: typeof block['name'] === 'string' ? block['name'] : 'unknown', input: block['input'] ?? {} };
    }
    case 'tool_result': {
      const toolCallId = typeof block['tool_use_id'] === 'string' ? block['tool_use_id'] : '';
      const part: ToolResultPart = { type: 'tool-result', toolCallId, output: resultContent(block['content']) };
      const toolName = toolNames.get(toolCallId);
      if (toolName !== undefined) part.toolName = toolName;
      if (block['is_error'] === true) part.isError = true;
      return part;
    }
    default:
      // Server tool blocks, documents and whatever comes next still take room in the request.
      return { type: 'text', text: JSON.stringify(block) };
  }
}

/** The parts of a message's content (a string or blocks). */
export function contentToParts(content: unknown, toolNames: ReadonlyMap<string, string>): MessagePart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  const parts: MessagePart[] = [];
  for (const block of content) if (isRecord(block)) parts.push(blockToPart(block, toolNames));
  return parts;
}

// Same figure core's estimate and hook-prune use for an image.
const IMAGE_TOKENS = 1_000;

/**
 * Tokens of a tool result's output, memoised per part object (parts are never mutated here,
 * and hook-prune copies on write), counted the way hook-prune counts them.
 */
export function createResultTokenCounter(counter: TokenCounter): (part: ToolResultPart) => number {
  const memo = new WeakMap<ToolResultPart, number>();
  return (part) => {
    let tokens = memo.get(part);
    if (tokens === undefined) {
      const output = part.output;
      if (typeof output === 'string') tokens = output === '' ? 0 : counter.count(output);
      else {
        tokens = 0;
        for (const item of output) tokens += item.type === 'image' ? IMAGE_TOKENS : item.text === '' ? 0 : counter.count(item.text);
      }
      memo.set(part, tokens);
    }
    return tokens;
  };
}

/**
 * What a transformed history gave up against the original: tokens of tool outputs that were
 * replaced minus their replacements, and how many parts changed. Messages and parts the
 * transformer left alone are the same objects (copy-on-write), so unchanged ones cost a
 * reference comparison.
 */
export function diffHistories(original: readonly Message[], transformed: readonly Message[], resultTokens: (part: ToolResultPart) => number, counter: TokenCounter): { tokens: number; parts: number } {
  let tokens = 0;
  let parts = 0;
  if (original.length !== transformed.length) {
    // A transformer that drops messages: compare totals.
    const total = (messages: readonly Message[]) => messages.reduce((sum, message) => sum + messageTokens(message, resultTokens, counter), 0);
    const kept = new Set(transformed.flatMap((message) => message.parts));
    for (const message of original) for (const part of message.parts) if (!kept.has(part)) parts++;
    return { tokens: total(original) - total(transformed), parts };
  }
  for (let index = 0; index < original.length; index++) {
    const before = original[index]!;
    const after = transformed[index]!;
    if (before === after) continue;
    if (before.parts.length !== after.parts.length) {
      tokens += messageTokens(before, resultTokens, counter) - messageTokens(after, resultTokens, counter);
      parts += Math.abs(before.parts.length - after.parts.length);
      continue;
    }
    for (let partIndex = 0; partIndex < before.parts.length; partIndex++) {
      const beforePart = before.parts[partIndex]!;
      const afterPart = after.parts[partIndex]!;
      if (beforePart === afterPart) continue;
      parts++;
      tokens += partTokens(beforePart, resultTokens, counter) - partTokens(afterPart, resultTokens, counter);
    }
  }
  return { tokens, parts };
}

function partTokens(part: MessagePart, resultTokens: (part: ToolResultPart) => number, counter: TokenCounter): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text === '' ? 0 : counter.count(part.text);
    case 'image':
      return IMAGE_TOKENS;
    case 'tool-call':
      return counter.count(JSON.stringify(part.input) ?? '');
    case 'tool-result':
      return resultTokens(part);
  }
}

function messageTokens(message: Message, resultTokens: (part: ToolResultPart) => number, counter: TokenCounter): number {
  let total = 0;
  for (const part of message.parts) total += partTokens(part, resultTokens, counter);
  return total;
}
