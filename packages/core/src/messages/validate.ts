import type { Message } from './message-model.js';

/**
 * Checks that tool calls and results pair up: every tool-call id is unique and has exactly one
 * tool-result in a later message, and every tool-result answers an earlier call. Problems name
 * the message index so a failing test points at the spot.
 */
export function validateToolPairing(messages: Message[]): { ok: boolean; problems: string[] } {
  const problems: string[] = [];
  // call id -> index of the message with the call, and whether a result was seen
  const calls = new Map<string, { messageIndex: number; answered: boolean }>();

  messages.forEach((message, messageIndex) => {
    for (const part of message.parts) {
      if (part.type === 'tool-call') {
        if (calls.has(part.toolCallId)) {
          problems.push(`message ${messageIndex}: tool call id ${part.toolCallId} is used more than once`);
          continue;
        }
        calls.set(part.toolCallId, { messageIndex, answered: false });
      } else if (part.type === 'tool-result') {
        const call = calls.get(part.toolCallId);
        if (!call || call.messageIndex >= messageIndex) {
          problems.push(`message ${messageIndex}: tool result ${part.toolCallId} has no earlier tool call`);
        } else if (call.answered) {
          problems.push(`message ${messageIndex}: tool call ${part.toolCallId} has more than one result`);
        } else {
          call.answered = true;
        }
      }
    }
  });

  for (const [toolCallId, call] of calls) {
    if (!call.answered) problems.push(`message ${call.messageIndex}: tool call ${toolCallId} has no result`);
  }
  return { ok: problems.length === 0, problems };
}
