/** A request the stand-in received: `stream` (the agent), `generate` (the compression) or `other`. */
export interface GeminiRequest {
  kind: 'stream' | 'generate' | 'other';
  model: string | undefined;
  url: string | undefined;
  body: any;
  /** The body as JSON text. */
  text: string;
}

export interface GeminiAnswer {
  parts: unknown[];
  promptTokens?: number;
  cachedTokens?: number;
}

export interface GeminiStandIn {
  port: number;
  socketPath: string | undefined;
  requests: GeminiRequest[];
  close(): Promise<unknown>;
}

export declare function shellCall(
  id: string,
  command: string,
): { functionCall: { id: string; name: string; args: { command: string; description: string } } };

export declare function startGeminiStandIn(options?: {
  answer?: (request: GeminiRequest & { index: number }) => GeminiAnswer | undefined;
  socketPath?: string;
}): Promise<GeminiStandIn>;
