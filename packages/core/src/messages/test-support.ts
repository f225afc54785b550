import type { OpenAIChatMessage } from './openai.js';

/**
 * Test aid (not exported from the package): Chat Completions wants every tool message inside the
 * run of tool messages right after the assistant message that made the call, and every call
 * answered there.
 */
export function openAIToolOrderProblems(messages: OpenAIChatMessage[]): string[] {
  const problems: string[] = [];
  messages.forEach((message, index) => {
    if (message.role === 'tool') {
      let previous = index - 1;
      while (previous >= 0 && messages[previous]!.role === 'tool') previous -= 1;
      const assistant = messages[previous];
      if (assistant?.role !== 'assistant' || !assistant.tool_calls?.some((call) => call.id === message.tool_call_id)) {
        problems.push(`tool message ${index} (${message.tool_call_id}) does not follow an assistant with that call`);
      }
    }
    if (message.role === 'assistant') {
      const answered = new Set<string>();
      for (let next = index + 1; ; next += 1) {
        const following = messages[next];
        if (following?.role !== 'tool') break;
        answered.add(following.tool_call_id);
      }
      for (const call of message.tool_calls ?? []) {
        if (!answered.has(call.id)) problems.push(`assistant ${index}: call ${call.id} has no tool message right after it`);
      }
    }
  });
  return problems;
}
