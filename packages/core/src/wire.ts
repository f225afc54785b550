/**
 * `@hookwise/core/wire`: the Anthropic Messages and OpenAI Chat Completions wire types the
 * converters (`fromAnthropicMessages`, `toOpenAIMessages`, …) read and write. Types only; kept
 * off the main entry so its API stays what plugin authors need.
 */
export type {
  AnthropicMessageParam,
  AnthropicContentBlock,
  AnthropicSystem,
  AnthropicTextBlock,
  AnthropicImageBlock,
  AnthropicBase64ImageSource,
  AnthropicUrlImageSource,
  AnthropicToolUseBlock,
  AnthropicToolResultBlock,
  AnthropicThinkingBlock,
  AnthropicRedactedThinkingBlock,
  AnthropicCacheControl,
} from './messages/anthropic.js';
export type {
  OpenAIChatMessage,
  OpenAISystemMessage,
  OpenAIUserMessage,
  OpenAIAssistantMessage,
  OpenAIToolMessage,
  OpenAIToolCall,
  OpenAITextContentPart,
  OpenAIImageContentPart,
  OpenAIRefusalContentPart,
} from './messages/openai.js';
