import type { PluginInstance } from '@hookwise/core';
import { createEngine, createMemoryEventLog, createMemoryStateStore, silentLogger } from '@hookwise/core/host';
import type { Message, ToolResultContent } from '@hookwise/core/messages';
import { fromPrompt, type PromptMessage } from '../../src/prompt.js';

/** What one model call looked like to hookwise's llm:before: the app's prompt and the payload fields. */
export interface ObservedCall {
  prompt: readonly PromptMessage[];
  contextTokens?: number;
  model?: string;
}

const text = (content: ToolResultContent): string =>
  typeof content === 'string' ? content : content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');

/**
 * The tool outputs hook-prune wants in each call, by tool call id: the plugin itself, in an
 * engine of its own, run on the same prompts in the same order. Tests compare the wire to this,
 * so they hold whatever hook-prune's policy is.
 */
export async function expectedToolOutputs(
  plugin: PluginInstance<any>,
  calls: readonly ObservedCall[],
  sessionId = 'expected',
): Promise<Array<Map<string, string>>> {
  const engine = createEngine({
    config: { plugins: [plugin] },
    projectDir: process.cwd(),
    host: 'expectation',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
    ephemeral: true,
  });
  const result: Array<Map<string, string>> = [];
  for (const call of calls) {
    const converted = fromPrompt(call.prompt);
    const outcome = await engine.emit('llm:before', {
      sessionId,
      systemPrompt: converted.systemPrompt,
      messages: converted.messages,
      ...(call.contextTokens !== undefined ? { contextTokens: call.contextTokens } : {}),
      ...(call.model !== undefined ? { model: call.model } : {}),
    });
    const messages: Message[] = (outcome.value as Message[] | undefined) ?? converted.messages;
    const outputs = new Map<string, string>();
    for (const message of messages)
      for (const part of message.parts) if (part.type === 'tool-result') outputs.set(part.toolCallId, text(part.output));
    result.push(outputs);
  }
  await engine.dispose();
  return result;
}
