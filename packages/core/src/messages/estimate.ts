import type { TokenCounter } from '../token-counter.js';
import type { Message, MessagePart } from './message-model.js';

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
  for (const part of message.parts) total += estimatePartTokens(part, count);
  return total;
}

/**
 * Each part's figure by {@link estimateMessageTokens} (the part alone), kept per part object with
 * the counter it was counted with: a host that measures a history, and a plugin that counted the
 * same parts before (hook-prune counts every tool output and write-like input it looks at),
 * count each text once between them. Parts are treated as immutable, as everywhere in hookwise
 * (transformers copy on write); whoever writes into a part forgets its figure
 * ({@link forgetPartTokens}). One counter per part is kept (a process counts with one): a part
 * asked for with another counter is counted anew, and that figure kept instead.
 */
const partFigures = new WeakMap<MessagePart, { counter: TokenCounter; tokens: number }>();

/** Tokens of one part by core's estimate, with `counter`, counted once per part object. */
export function partTokens(part: MessagePart, counter: TokenCounter): number {
  const known = partFigures.get(part);
  if (known !== undefined && known.counter === counter) return known.tokens;
  const tokens = estimatePartTokens(part, (text) => counter.count(text));
  partFigures.set(part, { counter, tokens });
  return tokens;
}

/** {@link partTokens} without keeping the figure: for a part made to be counted once (a placeholder being sized). */
export function countPartTokens(part: MessagePart, counter: TokenCounter): number {
  return estimatePartTokens(part, (text) => counter.count(text));
}

/**
 * Keeps a figure counted elsewhere: it must be what {@link partTokens} would give for this part
 * and counter (e.g. the counter's count of the tool-call input's JSON, already made for another
 * reason, or of a non-empty tool output).
 */
export function rememberPartTokens(part: MessagePart, counter: TokenCounter, tokens: number): void {
  partFigures.set(part, { counter, tokens });
}

/** Drops the kept figure of a part that was written into. */
export function forgetPartTokens(part: MessagePart): void {
  partFigures.delete(part);
}

/** One part's share of {@link estimateMessageTokens}: the one rule for what a part counts as (an empty text counts 0, whatever the counter). */
function estimatePartTokens(part: MessagePart, count: (text: string) => number): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text !== '' ? count(part.text) : 0;
    case 'image':
      return IMAGE_TOKEN_ESTIMATE;
    case 'tool-call':
      return count(JSON.stringify(part.input) ?? '');
    case 'tool-result': {
      if (typeof part.output === 'string') return part.output !== '' ? count(part.output) : 0;
      let total = 0;
      for (const item of part.output) total += item.type === 'image' ? IMAGE_TOKEN_ESTIMATE : item.text !== '' ? count(item.text) : 0;
      return total;
    }
    default:
      return 0;
  }
}
