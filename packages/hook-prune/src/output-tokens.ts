import type { TokenCounter } from '@hookwise/core';
import { defaultTokenCounter } from '@hookwise/core/host';
import { IMAGE_TOKEN_ESTIMATE, type ToolResultContent, type ToolResultPart } from '@hookwise/core/messages';
// Core's figures of parts, shared with a host that measures the same parts (the report).
import { partTokens, rememberPartTokens } from '@hookwise/core/counting';

/**
 * Whether `countOutput` gives core's estimate of the part (`partTokens`) whatever the counter:
 * this module counts an empty text as 0, where core's estimate asks the counter.
 */
function countsAsCore(output: ToolResultContent): boolean {
  if (typeof output === 'string') return output !== '';
  for (const item of output) if (item.type !== 'image' && item.text === '') return false;
  return true;
}

/** Tokens of an output: an empty text counts 0, an image core's fixed estimate. */
export function countOutput(output: ToolResultContent, counter: TokenCounter): number {
  if (typeof output === 'string') return output === '' ? 0 : counter.count(output);
  let total = 0;
  for (const item of output) total += item.type === 'image' ? IMAGE_TOKEN_ESTIMATE : item.text === '' ? 0 : counter.count(item.text);
  return total;
}

/** Tokens of a result's output: core's memoised figure when it is the same as this module's (almost always). */
export function outputTokens(part: ToolResultPart, counter: TokenCounter): number {
  return countsAsCore(part.output) ? partTokens(part, counter) : countOutput(part.output, counter);
}

/** Keeps `tokens` as core's figure of a pruned copy, when it is core's figure too. */
export function keepOutputTokens(part: ToolResultPart, counter: TokenCounter, tokens: number): void {
  if (countsAsCore(part.output)) rememberPartTokens(part, counter, tokens);
}

/** Tokens of a tool result's output as the pruner counts them. Exported for hosts that report sizes the same way. */
export function toolResultTokens(part: ToolResultPart, counter: TokenCounter = defaultTokenCounter): number {
  return outputTokens(part, counter);
}
