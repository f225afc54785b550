import type { Message } from '@hookwise/core/messages';

/** One request of a replayed session: `messages.slice(start, end)` is its history. */
export interface SessionRequest {
  start: number;
  end: number;
  contextTokens?: number;
  model?: string;
}

export function sessionRequests(file: string): Promise<{ messages: Message[]; requests: SessionRequest[] }>;
