// A loopback stand-in for two model APIs, so real AI SDK apps run offline through real provider
// packages: the OpenAI chat completions API (`@ai-sdk/openai-compatible`, POST …/chat/completions)
// and the Anthropic Messages API (`@ai-sdk/anthropic`, POST …/messages), each as JSON or as
// server-sent events when the request streams. Every request body is kept, so tests and
// `npm run demo` look at exactly what went over the wire. Plain ESM: both use it.
import http from 'node:http';

/** The tool the scripted agent calls: `read` with `{ path }`. */
export const READ_TOOL = 'read';

/** Which API a logged request went to. */
export const apiOf = (url) => (url.endsWith('/messages') ? 'anthropic' : 'openai');

/** Tool results in a request, in order: `{ id, text }`. */
export function toolResults(api, body) {
  const results = [];
  for (const message of body.messages ?? []) {
    if (api === 'openai' && message.role === 'tool') results.push({ id: message.tool_call_id, text: textOf(message.content) });
    if (api === 'anthropic' && Array.isArray(message.content))
      for (const block of message.content)
        if (block.type === 'tool_result') results.push({ id: block.tool_use_id, text: textOf(block.content) });
  }
  return results;
}

/** Tool calls in a request, in order, each with the id of the result that follows it (or undefined). */
export function toolPairs(api, body) {
  const messages = body.messages ?? [];
  const pairs = [];
  messages.forEach((message, index) => {
    const after = messages[index + 1];
    if (api === 'openai' && message.role === 'assistant') {
      const following = [];
      for (let next = index + 1; next < messages.length && messages[next].role === 'tool'; next++) following.push(messages[next]);
      for (const call of message.tool_calls ?? [])
        pairs.push({ call: call.id, result: following.find((answer) => answer.tool_call_id === call.id)?.tool_call_id });
    }
    if (api === 'anthropic' && message.role === 'assistant' && Array.isArray(message.content)) {
      const answers = Array.isArray(after?.content) ? after.content.filter((block) => block.type === 'tool_result') : [];
      for (const block of message.content)
        if (block.type === 'tool_use')
          pairs.push({ call: block.id, result: answers.find((answer) => answer.tool_use_id === block.id)?.tool_use_id });
    }
  });
  return pairs;
}

/** The system text of a request, one entry per system message or block. */
export function systemTexts(api, body) {
  if (api === 'anthropic') return typeof body.system === 'string' ? [body.system] : (body.system ?? []).map((block) => block.text);
  return (body.messages ?? []).filter((message) => message.role === 'system').map((message) => textOf(message.content));
}

/** User prompts (not tool results) in a request. */
export function userPrompts(api, body) {
  return (body.messages ?? []).filter(
    (message) =>
      message.role === 'user' &&
      (api === 'openai' || typeof message.content === 'string' || message.content.some((block) => block.type === 'text')),
  ).length;
}

function textOf(content) {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  return '';
}

/** Input tokens the stand-in reports for a request: its messages and system at ~4 characters a token. */
export const inputTokensOf = (body) =>
  Math.ceil(JSON.stringify({ system: body.system, messages: body.messages, tools: body.tools }).length / 4);

/**
 * The scripted agent: it reads `readsPerPrompt` files for each user prompt, one call at a time
 * (`file-1`, `file-2`, …, numbered over the whole conversation), then answers.
 */
function decide(api, body, readsPerPrompt, callFor) {
  const done = toolResults(api, body).length;
  if (done < userPrompts(api, body) * readsPerPrompt) return { toolCall: { id: `call_${done + 1}`, ...callFor(done + 1) } };
  return { text: `Read ${done} files.` };
}

const sse = (response, events) => {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events)
    response.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  response.end();
};

function answerOpenAI(response, body, reply, inputTokens) {
  const usage = { prompt_tokens: inputTokens, completion_tokens: 12, total_tokens: inputTokens + 12 };
  const finish = reply.toolCall ? 'tool_calls' : 'stop';
  const toolCalls = reply.toolCall
    ? [
        {
          id: reply.toolCall.id,
          type: 'function',
          function: { name: reply.toolCall.name, arguments: JSON.stringify(reply.toolCall.input) },
        },
      ]
    : undefined;
  if (!body.stream) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 0,
        model: body.model,
        choices: [
          {
            index: 0,
            message: { role: 'assistant', content: reply.text ?? null, ...(toolCalls ? { tool_calls: toolCalls } : {}) },
            finish_reason: finish,
          },
        ],
        usage,
      }),
    );
    return;
  }
  const chunk = (delta, finishReason = null, extra = {}) => [
    '',
    {
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 0,
      model: body.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
      ...extra,
    },
  ];
  sse(response, [
    chunk({ role: 'assistant', content: reply.text ?? '' }),
    ...(toolCalls ? [chunk({ tool_calls: toolCalls.map((call, index) => ({ index, ...call })) })] : []),
    chunk({}, finish, { usage }),
    ['', '[DONE]'],
  ]);
}

function answerAnthropic(response, body, reply, inputTokens) {
  const usage = { input_tokens: inputTokens, output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const stop = reply.toolCall ? 'tool_use' : 'end_turn';
  const content = reply.toolCall
    ? [{ type: 'tool_use', id: reply.toolCall.id.replace('call_', 'toolu_'), name: reply.toolCall.name, input: reply.toolCall.input }]
    : [{ type: 'text', text: reply.text }];
  const message = { id: 'msg_1', type: 'message', role: 'assistant', model: body.model, stop_sequence: null };
  if (!body.stream) {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ ...message, content, stop_reason: stop, usage }));
    return;
  }
  const block = content[0];
  sse(response, [
    [
      'message_start',
      { type: 'message_start', message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } },
    ],
    [
      'content_block_start',
      {
        type: 'content_block_start',
        index: 0,
        content_block: block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} },
      },
    ],
    [
      'content_block_delta',
      {
        type: 'content_block_delta',
        index: 0,
        delta:
          block.type === 'text'
            ? { type: 'text_delta', text: block.text }
            : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
      },
    ],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 12 } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
}

/**
 * Starts the stand-in on 127.0.0.1. Each request is logged as `{ api, url, body, inputTokens }`.
 * `readsPerPrompt` (default 4) sets how many files the scripted agent reads per user prompt;
 * `callFor(n)` the n-th call's tool and input (default: `read` of `src/file-<n>.ts`).
 */
export async function startStandInModel({
  readsPerPrompt = 4,
  callFor = (n) => ({ name: READ_TOOL, input: { path: `src/file-${n}.ts` } }),
} = {}) {
  const requests = [];
  const server = http.createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        response.writeHead(400, { 'content-type': 'application/json' });
        response.end('{"error":"not JSON"}');
        return;
      }
      const api = apiOf(request.url ?? '');
      const inputTokens = inputTokensOf(body);
      requests.push({ api, url: request.url, body, inputTokens });
      const reply = decide(api, body, readsPerPrompt, callFor);
      if (api === 'anthropic') answerAnthropic(response, body, reply, inputTokens);
      else answerOpenAI(response, body, reply, inputTokens);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    /** Forgets the logged requests (between scenarios). */
    reset: () => requests.splice(0),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}
