import { readdir } from 'node:fs/promises';
import type { AnthropicMessageLike, TaskBinding } from '@hookwise/adapter-vscode';

/*
 * A Roo Code style task loop, cut down to what shows the wiring: the history is kept in
 * Anthropic format, the system prompt is built fresh for every request, and every request goes
 * through `attemptApiRequest()` → `binding.beforeModelRequest()` → `api.createMessage()`.
 * Tool use, condensing and the task's start and end report to the binding as well.
 */

type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean };

export interface MessageParam {
  role: 'user' | 'assistant';
  content: string | ContentBlock[];
}

export type ApiStreamChunk =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'usage'; inputTokens: number; outputTokens: number };

/** Roo's `ApiHandler`, reduced to what the loop calls. */
export interface ApiHandler {
  createMessage(systemPrompt: string, messages: readonly AnthropicMessageLike[]): AsyncIterable<ApiStreamChunk>;
  getModel(): { id: string; contextWindow: number };
}

/** What the model received in one request, as sent (a copy, so later changes to the history do not show). */
export interface ReceivedRequest {
  systemPrompt: string;
  messages: AnthropicMessageLike[];
}

/**
 * A scripted model, so the example runs without a network: after each user prompt it lists the
 * workspace three times, then answers. It keeps what it was sent, which is how the example
 * shows what hookwise changed.
 */
export function createScriptedApiHandler(): ApiHandler & { received: ReceivedRequest[] } {
  const received: ReceivedRequest[] = [];
  return {
    received,
    getModel: () => ({ id: 'scripted-model', contextWindow: 200_000 }),
    async *createMessage(systemPrompt, messages) {
      received.push({ systemPrompt, messages: structuredClone([...messages]) });
      const inputTokens = Math.ceil((systemPrompt.length + JSON.stringify(messages).length) / 4);
      // Tool calls since the user's latest prompt (a user message with text, not tool results).
      const lastPrompt = messages.findLastIndex((message) => message.role === 'user' && typeof message.content === 'string');
      const sincePrompt = messages.slice(lastPrompt + 1).filter((message) => message.role === 'assistant').length;
      const answered = messages.filter((message) => message.role === 'assistant').length;
      if (sincePrompt < 3) {
        // Ids unique in the task, as a real model's are.
        yield { type: 'tool_use', id: `toolu_${answered + 1}`, name: 'list_files', input: { path: '.' } };
      } else {
        yield { type: 'text', text: `Listed the workspace ${sincePrompt} times.` };
      }
      yield { type: 'usage', inputTokens, outputTokens: 20 };
    },
  };
}

export class ExampleTask {
  /** Set by an intent-selection tool in the Roo fork; hooks receive it as `intentId`. */
  activeIntentId: string | undefined;
  readonly apiConversationHistory: MessageParam[] = [];
  private contextTokens = 0;
  private started = false;

  constructor(
    readonly taskId: string,
    readonly cwd: string,
    private readonly api: ApiHandler,
    private readonly binding: TaskBinding,
  ) {}

  private async getSystemPrompt(): Promise<string> {
    return `You are an example agent working in ${this.cwd}. Use list_files to look around.`;
  }

  /** One model request: hookwise runs right before `createMessage`, every time. */
  async *attemptApiRequest(): AsyncGenerator<ApiStreamChunk> {
    const systemPrompt = await this.getSystemPrompt();
    const model = this.api.getModel();
    const prepared = await this.binding.beforeModelRequest({
      taskId: this.taskId,
      intentId: this.activeIntentId,
      systemPrompt,
      messages: this.apiConversationHistory,
      model: model.id,
      cwd: this.cwd,
      contextTokens: this.contextTokens,
      contextWindow: model.contextWindow,
    });
    // `prepared.originalSystemPrompt` is what the task's own context accounting keeps counting.
    yield* this.api.createMessage(prepared.systemPrompt, prepared.messages);
  }

  /** Runs one user prompt to the model's answer; call it again for a follow-up in the same task. */
  async run(prompt: string): Promise<string> {
    const model = this.api.getModel();
    if (!this.started) {
      this.started = true;
      await this.binding.taskStarted({ taskId: this.taskId, cwd: this.cwd, model: model.id });
    }
    const submitted = await this.binding.userMessage({ taskId: this.taskId, prompt });
    if (submitted.block) return `blocked: ${submitted.block.reason}`;
    this.apiConversationHistory.push({ role: 'user', content: prompt });

    let answer = '';
    for (let turn = 0; turn < 10; turn++) {
      const toolUses: Array<Extract<ApiStreamChunk, { type: 'tool_use' }>> = [];
      let text = '';
      for await (const chunk of this.attemptApiRequest()) {
        if (chunk.type === 'text') text += chunk.text;
        else if (chunk.type === 'tool_use') toolUses.push(chunk);
        else this.contextTokens = chunk.inputTokens + chunk.outputTokens;
      }
      this.apiConversationHistory.push({ role: 'assistant', content: [...(text ? [{ type: 'text' as const, text }] : []), ...toolUses] });
      if (toolUses.length === 0) {
        answer = text;
        break;
      }
      const results: ContentBlock[] = [];
      for (const toolUse of toolUses) results.push(await this.executeTool(toolUse));
      this.apiConversationHistory.push({ role: 'user', content: results });
    }
    await this.binding.turnEnded({ taskId: this.taskId, lastMessage: answer });
    return answer;
  }

  private async executeTool(toolUse: { id: string; name: string; input: Record<string, unknown> }): Promise<ContentBlock> {
    const common = { taskId: this.taskId, toolName: toolUse.name, input: toolUse.input, toolUseId: toolUse.id, cwd: this.cwd };
    const before = await this.binding.beforeToolUse(common);
    if (before.block) return { type: 'tool_result', tool_use_id: toolUse.id, content: `Denied: ${before.block.reason}`, is_error: true };
    const started = Date.now();
    let output: string;
    let ok = true;
    try {
      output = (await readdir(this.cwd)).sort().join('\n');
    } catch (error) {
      output = (error as Error).message;
      ok = false;
    }
    await this.binding.afterToolUse({
      ...common,
      output,
      ok,
      durationMs: Date.now() - started,
      contextTokens: this.contextTokens,
      contextWindow: this.api.getModel().contextWindow,
    });
    return { type: 'tool_result', tool_use_id: toolUse.id, content: output, ...(ok ? {} : { is_error: true }) };
  }

  /** Roo's condense, cut down: the first message stays, the rest becomes a summary, with hooks around it. */
  async condense(trigger: 'manual' | 'auto'): Promise<void> {
    const tokensBefore = this.contextTokens;
    const start = await this.binding.beforeCondense({ taskId: this.taskId, trigger, contextTokens: tokensBefore });
    if (start.block) return;
    // A real agent asks the model for the summary, with `start.context` added to its instructions.
    const summary = [`Summary of ${this.apiConversationHistory.length - 1} earlier messages.`, start.context].filter(Boolean).join('\n\n');
    const first = this.apiConversationHistory[0];
    this.apiConversationHistory.splice(0, this.apiConversationHistory.length, ...(first ? [first] : []), {
      role: 'assistant',
      content: summary,
    });
    this.contextTokens = Math.ceil(JSON.stringify(this.apiConversationHistory).length / 4);
    const end = await this.binding.afterCondense({ taskId: this.taskId, trigger, tokensBefore, tokensAfter: this.contextTokens, summary });
    if (end.context) this.apiConversationHistory.push({ role: 'user', content: end.context });
  }

  async dispose(): Promise<void> {
    await this.binding.taskEnded({ taskId: this.taskId, reason: 'task finished' });
  }
}
