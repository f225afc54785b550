/**
 * `@hookwise/core/messages`: the provider-neutral message model `llm:before` carries, its
 * Anthropic and OpenAI conversions (wire types under `@hookwise/core/wire`), and what plugins
 * and hosts read from messages: tool-call pairing, real user prompts, slash commands, token estimates.
 */
export type {
  Message,
  MessagePart,
  MessageRole,
  TextPart,
  ReasoningPart,
  ImagePart,
  ToolCallPart,
  ToolResultPart,
  ToolResultContent,
} from './messages/message-model.js';
export { fromAnthropicMessages, toAnthropicMessages } from './messages/anthropic.js';
export { fromOpenAIMessages, toOpenAIMessages } from './messages/openai.js';
export { validateToolPairing } from './messages/validate.js';
export { isUserPrompt } from './messages/user-prompt.js';
export { expandedCommandOf, parseSlashCommand } from './slash-command.js';
export type { SlashCommand, TemplateSyntax } from './slash-command.js';
export { estimateMessageTokens, IMAGE_TOKEN_ESTIMATE } from './messages/estimate.js';
export { fromTypedPartMessage, fromTypedPartMessages, typedPartConversion } from './messages/part-messages.js';
export type { IsCompactSummary, TypedPart, TypedPartMessage, TypedPartOptions } from './messages/part-messages.js';
export { applyPartEdits, createReusingConverter, describeEdits, sameJson, stringify, toolResultText } from './messages/part-edits.js';
export type {
  AppliedMessageEdits,
  AppliedPartMemo,
  AppliedPartMessage,
  ConvertedParts,
  PartEditCounts,
  PartOrigin,
  PartOriginTable,
  PartWriter,
} from './messages/part-edits.js';
