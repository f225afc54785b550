import { describe, expect, it } from 'vitest';
import { fromAnthropicMessages, toAnthropicMessages, type AnthropicMessageParam, type AnthropicSystem } from './anthropic.js';
import { validateToolPairing } from './validate.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

/** A realistic agent exchange: thinking, parallel tool calls, an error result, images, cache breakpoints. */
const system: AnthropicSystem = [
  { type: 'text', text: 'You are a coding agent.' },
  { type: 'text', text: 'Project rules: never edit generated files.', cache_control: { type: 'ephemeral' } },
];

const conversation: AnthropicMessageParam[] = [
  { role: 'user', content: 'Why does the build fail?' },
  {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'I should look at the build log first.', signature: 'EqQBCkgIARABGAIiQL' },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' },
      { type: 'text', text: 'Let me read the log and the config.' },
      { type: 'tool_use', id: 'toolu_01A', name: 'Read', input: { file_path: '/repo/build.log' } },
      { type: 'tool_use', id: 'toolu_01B', name: 'Bash', input: { command: 'cat tsconfig.json', timeout: 5000 } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'toolu_01A', content: 'error TS2307: Cannot find module "./x"' },
      { type: 'tool_result', tool_use_id: 'toolu_01B', content: [{ type: 'text', text: 'permission denied' }], is_error: true },
      { type: 'text', text: 'Also here is a screenshot:' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Checking the import.' },
      { type: 'tool_use', id: 'toolu_01C', name: 'Grep', input: { pattern: './x', path: 'src' }, cache_control: { type: 'ephemeral' } },
    ],
  },
  {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_01C',
        content: [
          { type: 'text', text: 'src/index.ts:3' },
          { type: 'image', source: { type: 'url', url: 'https://example.invalid/diagram.png' } },
        ],
        is_error: false,
      },
    ],
  },
  { role: 'assistant', content: [{ type: 'text', text: 'The file src/x.ts is missing.' }] },
  { role: 'user', content: [{ type: 'text', text: 'Thanks.', cache_control: { type: 'ephemeral', ttl: '1h' } }] },
];

describe('Anthropic conversion', () => {
  it('round-trips a realistic conversation exactly', () => {
    const model = fromAnthropicMessages(conversation, { system });
    expect(toAnthropicMessages(model)).toStrictEqual({ system, messages: conversation });
  });

  it('maps blocks to neutral parts and fills tool names of results', () => {
    const model = fromAnthropicMessages(conversation, { system });
    expect(model.map((message) => message.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);
    const results = model[3]!.parts;
    expect(results[0]).toMatchObject({ type: 'tool-result', toolCallId: 'toolu_01A', toolName: 'Read' });
    expect(results[1]).toMatchObject({
      type: 'tool-result',
      toolName: 'Bash',
      isError: true,
      output: [{ type: 'text', text: 'permission denied' }],
    });
    expect(model[2]!.parts[0]).toMatchObject({
      type: 'reasoning',
      text: 'I should look at the build log first.',
      signature: 'EqQBCkgIARABGAIiQL',
    });
    expect(model[2]!.parts[1]).toMatchObject({ type: 'reasoning', redacted: true, signature: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT' });
    expect(model[1]!.parts[0]).toStrictEqual({ type: 'text', text: 'Why does the build fail?' });
    expect(model[4]!.parts[1]!.providerMetadata).toStrictEqual({ anthropic: { cache_control: { type: 'ephemeral' } } });
    expect(validateToolPairing(model)).toStrictEqual({ ok: true, problems: [] });
  });

  it('keeps string content and an array of one text block apart', () => {
    const messages: AnthropicMessageParam[] = [
      { role: 'user', content: 'plain' },
      { role: 'assistant', content: [{ type: 'text', text: 'plain' }] },
      { role: 'user', content: '' },
      { role: 'assistant', content: [] },
    ];
    expect(toAnthropicMessages(fromAnthropicMessages(messages)).messages).toStrictEqual(messages);
    expect(toAnthropicMessages(fromAnthropicMessages([], { system: 'be brief' }))).toStrictEqual({ system: 'be brief', messages: [] });
  });

  it('carries unknown blocks and fields through losslessly', () => {
    const messages = [
      { role: 'user', content: [{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' }, title: 'spec' }] },
      {
        role: 'assistant',
        content: [
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] },
          { type: 'text', text: 'Found it.', citations: [{ type: 'web_search_result_location', url: 'https://example.invalid' }] },
          { type: 'tool_use', id: 'toolu_9', name: 'Read', input: {}, caller: { type: 'direct' } },
        ],
        some_future_field: 1,
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_9' },
          { type: 'image', source: { type: 'file', file_id: 'file_1' } },
        ],
      },
    ] as unknown as AnthropicMessageParam[];
    const model = fromAnthropicMessages(messages);
    expect(toAnthropicMessages(model).messages).toStrictEqual(messages);
    // Opaque blocks are empty text so they add nothing to token estimates or joined text.
    expect(model[1]!.parts[0]).toMatchObject({ type: 'text', text: '' });
  });

  it('merges OpenAI-shaped tool messages into one user message of tool_result blocks', () => {
    const converted = toAnthropicMessages([
      { role: 'system', parts: [{ type: 'text', text: 'sys' }] },
      { role: 'user', parts: [{ type: 'text', text: 'go' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'a', input: {} },
          { type: 'tool-call', toolCallId: 'call_2', toolName: 'b', input: { x: 1 } },
        ],
      },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'a', output: 'one' }] },
      { role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'call_2', toolName: 'b', output: 'two' }] },
      { role: 'user', parts: [{ type: 'text', text: 'and now?' }] },
    ]);
    expect(converted).toStrictEqual({
      system: 'sys',
      messages: [
        { role: 'user', content: 'go' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'call_1', name: 'a', input: {} },
            { type: 'tool_use', id: 'call_2', name: 'b', input: { x: 1 } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'call_1', content: 'one' },
            { type: 'tool_result', tool_use_id: 'call_2', content: 'two' },
            { type: 'text', text: 'and now?' },
          ],
        },
      ],
    });
  });
});
