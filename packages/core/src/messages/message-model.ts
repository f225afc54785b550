/**
 * Provider-neutral message model. Converters to and from the Anthropic Messages format and
 * the OpenAI Chat Completions format are lossless: anything the neutral parts cannot express
 * is carried in `providerMetadata` so a round trip gives back the same payload.
 */

export interface TextPart {
  type: 'text';
  text: string;
  providerMetadata?: Record<string, unknown>;
}

export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  /** Anthropic `signature` of a thinking block, or the data of a redacted one. */
  signature?: string;
  redacted?: boolean;
  providerMetadata?: Record<string, unknown>;
}

export interface ImagePart {
  type: 'image';
  /** base64 data, or a URL when `url` is set. */
  data?: string;
  url?: string;
  mediaType?: string;
  providerMetadata?: Record<string, unknown>;
}

export interface ToolCallPart {
  type: 'tool-call';
  toolCallId: string;
  toolName: string;
  input: unknown;
  providerMetadata?: Record<string, unknown>;
}

/** Content of a tool result: plain text, or a list of text / image parts. */
export type ToolResultContent = string | Array<TextPart | ImagePart>;

export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  /** Name of the tool that produced it, when known (Anthropic results do not carry it; converters fill it from the matching call). */
  toolName?: string;
  output: ToolResultContent;
  isError?: boolean;
  providerMetadata?: Record<string, unknown>;
}

export type MessagePart = TextPart | ReasoningPart | ImagePart | ToolCallPart | ToolResultPart;

export type MessageRole = 'system' | 'user' | 'assistant' | 'tool';

export interface Message {
  role: MessageRole;
  parts: MessagePart[];
  /** Stable id when the source has one (transcript uuid). */
  id?: string;
  /** True for the summary a compaction left behind (Claude Code `isCompactSummary`). Pruning never touches anything before the latest one. */
  compactSummary?: boolean;
  providerMetadata?: Record<string, unknown>;
}
