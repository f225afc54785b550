import type { TokenCounter } from '@hookwise/core';
import { defaultTokenCounter } from '@hookwise/core/plugin';
import { IMAGE_TOKEN_ESTIMATE, type ToolResultContent, type ToolResultPart } from '@hookwise/core/messages';
// Core's figures of parts, shared with a host that measures the same parts (the report).
import { countPartTokens, partTokens, rememberPartTokens } from '@hookwise/core/counting';

/** Tokens of an output: core's part estimate (an empty text counts 0, an image core's fixed estimate). */
export function countOutput(output: ToolResultContent, counter: TokenCounter): number {
  return countPartTokens({ type: 'tool-result', toolCallId: '', toolName: '', output }, counter);
}

/** Tokens of a result's output: core's figure, kept per part and shared with a host that measures the same parts (the report). */
export function outputTokens(part: ToolResultPart, counter: TokenCounter): number {
  return partTokens(part, counter);
}

/** Keeps `tokens` as core's figure of a pruned copy. */
export function keepOutputTokens(part: ToolResultPart, counter: TokenCounter, tokens: number): void {
  rememberPartTokens(part, counter, tokens);
}

/** Tokens of a tool result's output as the pruner counts them. Exported for hosts that report sizes the same way. */
export function toolResultTokens(part: ToolResultPart, counter: TokenCounter = defaultTokenCounter): number {
  return outputTokens(part, counter);
}
