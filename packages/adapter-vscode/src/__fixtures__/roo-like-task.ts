import type { AnthropicMessageLike, TaskBinding } from '../task-binding.js';

/*
 * A small stand-in for Roo Code's `Task` (src/core/task/Task.ts): it keeps the API history in
 * Anthropic format, builds the system prompt fresh for every request, and `attemptApiRequest()`
 * streams from `api.createMessage(systemPrompt, messages)`. The hookwise wiring sits where the
 * Roo fork (tedoaba/Roo-Code f2e2458c) called `hookEngine.preLLMRequest(activeIntentId)`.
 */

export type ApiStreamChunk = { type: 'text'; text: string } | { type: 'usage'; inputTokens: number; outputTokens: number };

export interface ApiHandler {
  createMessage(systemPrompt: string, messages: readonly AnthropicMessageLike[]): AsyncGenerator<ApiStreamChunk>;
  getModel(): { id: string; contextWindow: number };
}

export interface RecordedRequest {
  systemPrompt: string;
  messages: readonly AnthropicMessageLike[];
}

/** An API handler that records what it is sent and answers with a short text. */
export function createRecordingApi(events: string[] = []): ApiHandler & { requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  return {
    requests,
    getModel: () => ({ id: 'claude-sonnet-4-5', contextWindow: 200_000 }),
    async *createMessage(systemPrompt, messages) {
      events.push('createMessage');
      requests.push({ systemPrompt, messages });
      yield { type: 'text', text: 'ok' };
      yield { type: 'usage', inputTokens: 100, outputTokens: 2 };
    },
  };
}

export class RooLikeTask {
  activeIntentId: string | undefined;
  apiConversationHistory: AnthropicMessageLike[] = [];
  /** The system prompt the task's own context-window accounting counts (Roo: `getSystemPrompt()`). */
  accountedSystemPrompts: string[] = [];

  constructor(
    readonly taskId: string,
    private readonly api: ApiHandler,
    private readonly binding: TaskBinding | undefined,
    private readonly systemPrompt = 'You are Roo, a highly skilled software engineer.',
  ) {}

  async getSystemPrompt(): Promise<string> {
    return this.systemPrompt;
  }

  async *attemptApiRequest(): AsyncGenerator<ApiStreamChunk> {
    const systemPrompt = await this.getSystemPrompt();
    let effectiveSystemPrompt = systemPrompt;
    let messages: readonly AnthropicMessageLike[] = this.apiConversationHistory;
    if (this.binding) {
      const prepared = await this.binding.beforeModelRequest({
        taskId: this.taskId,
        intentId: this.activeIntentId,
        systemPrompt,
        messages,
        model: this.api.getModel().id,
        contextWindow: this.api.getModel().contextWindow,
      });
      effectiveSystemPrompt = prepared.systemPrompt;
      messages = prepared.messages;
      this.accountedSystemPrompts.push(prepared.originalSystemPrompt);
    } else {
      this.accountedSystemPrompts.push(systemPrompt);
    }
    yield* this.api.createMessage(effectiveSystemPrompt, messages);
  }

  /** Runs one request to its end and returns the streamed text. */
  async request(): Promise<string> {
    let text = '';
    for await (const chunk of this.attemptApiRequest()) if (chunk.type === 'text') text += chunk.text;
    return text;
  }
}
