import { describe, expect, it } from 'vitest';
import { classify, type MessagesRequest } from './stand-in-api.js';

const COMPACTION_PROMPT =
  'CRITICAL: Respond with TEXT ONLY. Do NOT call any tools.\n\nYour task is to create a detailed summary of the conversation so far, paying close attention to the user’s explicit requests.';
const tools = [{ name: 'Bash' }];
const kindOf = (body: MessagesRequest) => classify(body, JSON.stringify(body));

describe('the stand-in tells compaction requests from turns', () => {
  it('Claude Code 2.1.330: the compaction prompt appended to the tool-result turn, tools still offered', () => {
    const body: MessagesRequest = {
      tools,
      messages: [
        { role: 'user', content: 'Run three commands' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: '1' },
            { type: 'text', text: COMPACTION_PROMPT },
          ],
        },
      ],
    };
    expect(kindOf(body)).toBe('compaction');
  });

  it('a separate summary turn', () => {
    expect(
      kindOf({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'hello' },
          { role: 'user', content: COMPACTION_PROMPT },
        ],
      }),
    ).toBe('compaction');
  });

  it('a tool-result turn without the prompt is a main turn; a request without tools is a side request', () => {
    expect(kindOf({ tools, messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '1' }] }] })).toBe(
      'main',
    );
    expect(kindOf({ messages: [{ role: 'user', content: 'Write a title for this session' }] })).toBe('side');
  });
});
