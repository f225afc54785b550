export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content?: string | Array<{ type: string; text?: string }> | null;
  tool_calls?: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
}
export interface ChatRequestBody {
  model?: string;
  messages: ChatMessage[];
  tools?: unknown[];
  [key: string]: unknown;
}
export type RequestKind = 'turn' | 'title' | 'compaction';
export interface Reply {
  text?: string;
  toolCalls?: Array<{ name: string; arguments?: Record<string, unknown> }>;
  /** Reported as usage.prompt_tokens; default: request bytes / 4. */
  promptTokens?: number;
  /** Reported as usage.prompt_tokens_details.cached_tokens (pi's cacheRead). */
  cachedTokens?: number;
  /** Reported as usage.prompt_tokens_details.cache_write_tokens (pi's cacheWrite). */
  cacheWriteTokens?: number;
}
export type Responder = (body: ChatRequestBody, kind: RequestKind) => Reply | undefined;
export interface RecordedRequest {
  index: number;
  kind: RequestKind;
  body: ChatRequestBody;
}
export interface StandInModel {
  port: number;
  socketPath?: string;
  baseURL: string;
  requests: RecordedRequest[];
  setResponder(responder: Responder): void;
  close(): Promise<void>;
}
export function startStandInModel(respond: Responder, options?: { socketPath?: string }): Promise<StandInModel>;
export function sinceLastUser(body: ChatRequestBody): ChatMessage[];
export function contentText(message: ChatMessage | undefined): string;
export function systemText(body: ChatRequestBody): string;
export function requestKind(body: ChatRequestBody): RequestKind;
export function planStep<Call>(
  plan: Record<string, Call[]>,
  body: ChatRequestBody,
): { prompt: string; step: number; calls: Call[]; call: Call | undefined };
export function prefixCacheUsage(): (body: ChatRequestBody) => Required<Pick<Reply, 'promptTokens' | 'cachedTokens' | 'cacheWriteTokens'>>;
