export interface ResponsesItem {
  type?: string;
  role?: 'system' | 'developer' | 'user' | 'assistant';
  content?: string | Array<{ type: string; text?: string }>;
  name?: string;
  call_id?: string;
  arguments?: string;
  output?: string;
  [key: string]: unknown;
}
export interface ResponsesBody {
  model?: string;
  input: ResponsesItem[];
  tools?: unknown[];
  [key: string]: unknown;
}
export type RequestKind = 'turn' | 'compaction';
export interface Reply {
  text?: string;
  toolCalls?: Array<{ name: string; arguments?: Record<string, unknown> }>;
  /** Reported as usage.input_tokens; default: request bytes / 4. Codex compacts when it passes its limit. */
  inputTokens?: number;
  /** Reported as usage.input_tokens_details.cached_tokens. */
  cachedTokens?: number;
}
export type Responder = (body: ResponsesBody, kind: RequestKind) => Reply | undefined;
export interface RecordedRequest {
  index: number;
  kind: RequestKind;
  body: ResponsesBody;
}
export interface StandInResponses {
  port: number;
  socketPath: string | undefined;
  baseURL: string;
  requests: RecordedRequest[];
  setResponder(next: Responder): void;
  close(): Promise<void>;
}
export declare function itemText(item: ResponsesItem | undefined): string;
export declare function isCompactionRequest(body: ResponsesBody): boolean;
export declare function sinceLastUser(body: ResponsesBody): ResponsesItem[];
export declare function startStandInResponses(respond: Responder, options?: { socketPath?: string }): Promise<StandInResponses>;
