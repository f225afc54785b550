import type { Message, ToolResultPart } from '@hookwise/core/messages';

/** Builders for synthetic histories in the Anthropic shape (results in user messages). With core's chars/4 counter, `tokens(n)` is exactly n tokens. */

export const tokens = (count: number, fill = 'x') => fill.repeat(count * 4);

export const prompt = (text: string): Message => ({ role: 'user', parts: [{ type: 'text', text }] });

let nextId = 0;
export const newId = (prefix = 'call') => `${prefix}_${++nextId}`;

export interface ToolTurnOptions {
  toolName?: string;
  input?: unknown;
  isError?: boolean;
  id?: string;
}

/** An assistant message with one tool call, and the user message carrying its result. */
export function toolTurn(output: ToolResultPart['output'], options: ToolTurnOptions = {}): [Message, Message] {
  const id = options.id ?? newId();
  const toolName = options.toolName ?? 'Read';
  const result: ToolResultPart = { type: 'tool-result', toolCallId: id, toolName, output };
  if (options.isError !== undefined) result.isError = options.isError;
  return [
    { role: 'assistant', parts: [{ type: 'text', text: 'Looking.' }, { type: 'tool-call', toolCallId: id, toolName, input: options.input ?? { file_path: `/repo/${id}.ts` } }] },
    { role: 'user', parts: [result] },
  ];
}

/**
 * `[u1, tool turns oldest first…, u2, u3]` from sizes given newest first, the way the pruner
 * scans them: every tool output has two prompts after it, so all are eligible.
 */
export function eligibleHistory(sizesNewestFirst: number[]): Message[] {
  const turns = [...sizesNewestFirst].reverse().flatMap((size) => toolTurn(tokens(size)));
  return [prompt('first task'), ...turns, prompt('previous turn'), prompt('current turn')];
}

export function toolResults(messages: Message[]): ToolResultPart[] {
  return messages.flatMap((message) => message.parts.filter((part): part is ToolResultPart => part.type === 'tool-result'));
}

/** Outputs oldest first, shortened to their size for readable assertions. */
export function outputSizes(messages: Message[]): Array<number | string> {
  return toolResults(messages).map((part) => (typeof part.output === 'string' && part.output.startsWith('[') ? part.output : typeof part.output === 'string' ? part.output.length / 4 : 'array'));
}
