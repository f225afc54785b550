import { toAnthropicMessages, toOpenAIMessages, type Message } from '@hookwise/core/messages';

/**
 * What the providers enforce on a request, checked on the converted payload: Anthropic wants
 * every tool_result in the user message right after the assistant message with its tool_use,
 * and every tool_use answered there; OpenAI wants each tool message to answer a call of the
 * assistant message the tool messages follow, and every call answered.
 */
export function anthropicProblems(messages: Message[]): string[] {
  const problems: string[] = [];
  const payload = toAnthropicMessages(messages).messages;
  payload.forEach((message, index) => {
    const blocks = typeof message.content === 'string' ? [] : (message.content as Array<{ type: string; id?: string; tool_use_id?: string }>);
    const previous = payload[index - 1];
    const previousBlocks = previous && typeof previous.content !== 'string' ? (previous.content as Array<{ type: string; id?: string }>) : [];
    const callIds = new Set(previous?.role === 'assistant' ? previousBlocks.filter((block) => block.type === 'tool_use').map((block) => block.id) : []);
    for (const block of blocks) {
      if (block.type === 'tool_result' && !callIds.has(block.tool_use_id)) problems.push(`anthropic message ${index}: tool_result ${block.tool_use_id} does not follow its tool_use`);
    }
    if (message.role === 'assistant') {
      const next = payload[index + 1];
      const nextBlocks = next && typeof next.content !== 'string' ? (next.content as Array<{ type: string; tool_use_id?: string }>) : [];
      const answered = new Set(nextBlocks.filter((block) => block.type === 'tool_result').map((block) => block.tool_use_id));
      for (const block of blocks) if (block.type === 'tool_use' && !answered.has(block.id)) problems.push(`anthropic message ${index}: tool_use ${block.id} has no tool_result right after it`);
    }
  });
  return problems;
}

export function openAIProblems(messages: Message[]): string[] {
  const problems: string[] = [];
  let open = new Set<string>();
  toOpenAIMessages(messages).forEach((message, index) => {
    if (message.role === 'tool') {
      if (!open.delete(message.tool_call_id)) problems.push(`openai message ${index}: tool_call_id ${message.tool_call_id} references no open call`);
      return;
    }
    for (const id of open) problems.push(`openai message ${index}: call ${id} was never answered`);
    open = new Set(message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : []);
  });
  for (const id of open) problems.push(`openai: call ${id} was never answered`);
  return problems;
}
