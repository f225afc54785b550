import type { Message } from './message-model.js';

/**
 * Tokens an image is counted as. Providers bill images by pixel size (Anthropic: about
 * width × height / 750, capped near 1,600 for a full-size image), which needs the decoded
 * image; a fixed middle value keeps estimation cheap and dependency-free, and images are rare
 * enough in agent context that the error stays small next to text.
 */
export const IMAGE_TOKEN_ESTIMATE = 1_000;

/**
 * Estimated tokens of one message with the given text counter: text, reasoning, tool-call input
 * (as JSON) and tool-result output. Redacted reasoning is encrypted data the provider counts in
 * its own way, so only readable text is counted.
 */
export function estimateMessageTokens(message: Message, count: (text: string) => number): number {
  let total = 0;
  for (const part of message.parts) {
    switch (part.type) {
      case 'text':
      case 'reasoning':
        if (part.text !== '') total += count(part.text);
        break;
      case 'image':
        total += IMAGE_TOKEN_ESTIMATE;
        break;
      case 'tool-call':
        total += count(JSON.stringify(part.input) ?? '');
        break;
      case 'tool-result':
        if (typeof part.output === 'string') {
          total += count(part.output);
        } else {
          for (const item of part.output) total += item.type === 'image' ? IMAGE_TOKEN_ESTIMATE : count(item.text);
        }
        break;
    }
  }
  return total;
}
