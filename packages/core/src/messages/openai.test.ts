import { describe, expect, it } from 'vitest';
import { fromAnthropicMessages, toAnthropicMessages, type AnthropicMessageParam } from './anthropic.js';
import type { Message } from './message-model.js';
import { fromOpenAIMessages, toOpenAIMessages, type OpenAIChatMessage } from './openai.js';
import { openAIToolOrderProblems } from './test-support.js';
import { validateToolPairing } from './validate.js';

const conversation: OpenAIChatMessage[] = [
  { role: 'developer', content: 'You are a coding agent.' },
  {
    role: 'system',
    content: [
      { type: 'text', text: 'Rule one.' },
      { type: 'text', text: 'Rule two.' },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in this picture, and fix the build.' },
      { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ==', detail: 'low' } },
      { type: 'image_url', image_url: { url: 'https://example.invalid/a.png' } },
    ],
    name: 'dev',
  },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"build.log"}' } },
      // Pretty-printed by the model: JSON.stringify would not give this text back.
      { id: 'call_b', type: 'function', function: { name: 'run', arguments: '{\n  "command": "npm test"\n}' } },
      // Truncated output: not JSON at all.
      { id: 'call_c', type: 'function', function: { name: 'run', arguments: '{"command": "ls' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_a', content: 'error TS2307' },
  { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '3 failing' }] },
  { role: 'tool', tool_call_id: 'call_c', content: 'bad arguments' },
  { role: 'assistant', content: 'Found it.', tool_calls: [] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Part one.' },
      { type: 'refusal', refusal: 'No.' },
    ],
    refusal: null,
  },
  { role: 'assistant', tool_calls: [{ id: 'call_d', type: 'function', function: { name: 'noop', arguments: '{}' } }] },
  { role: 'tool', tool_call_id: 'call_d', content: '' },
  { role: 'user', content: 'ok' },
];

describe('OpenAI conversion', () => {
  it('round-trips a realistic conversation exactly', () => {
    const model = fromOpenAIMessages(conversation);
    expect(toOpenAIMessages(model)).toStrictEqual(conversation);
  });

  it('maps to neutral parts', () => {
    const model = fromOpenAIMessages(conversation);
    expect(model[0]!.role).toBe('system');
    expect(model[2]!.parts[1]).toMatchObject({ type: 'image', data: '/9j/4AAQSkZJRgABAQ==', mediaType: 'image/jpeg' });
    expect(model[3]!.parts.map((part) => (part.type === 'tool-call' ? part.input : undefined))).toStrictEqual([
      { path: 'build.log' },
      { command: 'npm test' },
      '{"command": "ls',
    ]);
    expect(model[4]).toMatchObject({
      role: 'tool',
      parts: [{ type: 'tool-result', toolCallId: 'call_a', toolName: 'read_file', output: 'error TS2307' }],
    });
    expect(validateToolPairing(model).ok).toBe(true);
  });

  it('re-serialises arguments when a hook changed the input', () => {
    const model = fromOpenAIMessages(conversation);
    const call = model[3]!.parts[1]!;
    if (call.type !== 'tool-call') throw new Error('expected a tool call');
    call.input = { command: 'npm run build' };
    const assistant = toOpenAIMessages(model)[3];
    expect(assistant?.role === 'assistant' && assistant.tool_calls?.[1]?.function.arguments).toBe('{"command":"npm run build"}');
  });

  it('turns Anthropic-shaped messages into a valid Chat Completions payload', () => {
    const anthropic: AnthropicMessageParam[] = [
      { role: 'user', content: 'Fix it.' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'text', text: 'Reading both.' },
          { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'a.ts' } },
          { type: 'tool_use', id: 'toolu_2', name: 'Screenshot', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'const a = 1;' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_2',
            content: [
              { type: 'text', text: 'screen:' },
              { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
            ],
          },
          { type: 'text', text: 'Also check b.ts' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_3', name: 'Read', input: { file_path: 'b.ts' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_3', content: 'export {}', is_error: false }] },
      { role: 'assistant', content: 'Done.' },
    ];
    const model = fromAnthropicMessages(anthropic, { system: 'sys' });
    const openai = toOpenAIMessages(model);
    expect(openAIToolOrderProblems(openai)).toStrictEqual([]);
    expect(openai).toStrictEqual([
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'Fix it.' },
      {
        role: 'assistant',
        content: 'Reading both.',
        tool_calls: [
          { id: 'toolu_1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"a.ts"}' } },
          { id: 'toolu_2', type: 'function', function: { name: 'Screenshot', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'const a = 1;' },
      { role: 'tool', tool_call_id: 'toolu_2', content: [{ type: 'text', text: 'screen:' }] },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          { type: 'text', text: 'Also check b.ts' },
        ],
      },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'toolu_3', type: 'function', function: { name: 'Read', arguments: '{"file_path":"b.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_3', content: 'export {}' },
      { role: 'assistant', content: 'Done.' },
    ]);
    // And back: the tool messages merge into one user message of tool_result blocks again.
    const back = toAnthropicMessages(fromOpenAIMessages(openai));
    expect(back.system).toBe('sys');
    expect(back.messages[2]).toStrictEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'const a = 1;' },
        { type: 'tool_result', tool_use_id: 'toolu_2', content: [{ type: 'text', text: 'screen:' }] },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        { type: 'text', text: 'Also check b.ts' },
      ],
    });
    expect(validateToolPairing(fromAnthropicMessages(back.messages)).ok).toBe(true);
  });

  it('turns OpenAI-shaped messages into a valid Anthropic payload', () => {
    const back = toAnthropicMessages(fromOpenAIMessages(conversation));
    expect(back.system).toStrictEqual([
      { type: 'text', text: 'You are a coding agent.' },
      { type: 'text', text: 'Rule one.' },
      { type: 'text', text: 'Rule two.' },
    ]);
    const roles = back.messages.map((message) => message.role);
    expect(roles).toStrictEqual(['user', 'assistant', 'user', 'assistant', 'assistant', 'assistant', 'user']);
    expect(back.messages[2]!.content).toStrictEqual([
      { type: 'tool_result', tool_use_id: 'call_a', content: 'error TS2307' },
      { type: 'tool_result', tool_use_id: 'call_b', content: [{ type: 'text', text: '3 failing' }] },
      { type: 'tool_result', tool_use_id: 'call_c', content: 'bad arguments' },
    ]);
    // The refusal part has no Anthropic form and is left out.
    expect(back.messages[4]!.content).toBe('Part one.');
    const model: Message[] = fromAnthropicMessages(back.messages);
    expect(validateToolPairing(model).ok).toBe(true);
  });
});
