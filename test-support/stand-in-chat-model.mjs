// A loopback stand-in for an OpenAI-compatible model API (POST /v1/chat/completions, SSE), so
// real hosts (OpenCode, pi) run whole sessions offline. A responder decides each reply from the
// request body; every request is kept, so tests and the demo can look at exactly what was sent.
// Plain ESM with a .d.mts beside it: the hosts' e2e suites and `npm run demo` all use it.
import http from 'node:http';

/** The messages of a request after its last user message. */
export function sinceLastUser(body) {
  const messages = body.messages ?? [];
  let index = messages.length - 1;
  while (index >= 0 && messages[index].role !== 'user') index--;
  return messages.slice(index + 1);
}

/** Text of a chat message's content (string or parts). */
export function contentText(message) {
  const content = message?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  return '';
}

/** The system prompt of a request. */
export function systemText(body) {
  return (body.messages ?? [])
    .filter((message) => message.role === 'system')
    .map(contentText)
    .join('\n');
}

/**
 * Where a scripted session stands: `prompt` (the latest user message), `step` (assistant
 * messages since it), and of `plan` (tool calls by prompt keyword) the calls of the first keyword
 * the prompt contains and the one for this step, if any.
 */
export function planStep(plan, body) {
  const prompt = contentText((body.messages ?? []).filter((message) => message.role === 'user').at(-1));
  const step = sinceLastUser(body).filter((message) => message.role === 'assistant').length;
  const calls = Object.entries(plan).find(([keyword]) => prompt.includes(keyword))?.[1] ?? [];
  return { prompt, step, calls, call: calls[step] };
}

/**
 * Usage figures for a responder to report, from a model of Anthropic's prompt cache: the longest
 * prefix a request's body shares with the previous body is read from the cache, the rest written,
 * a few tokens are plain input. One per session: it keeps the previous body.
 */
export function prefixCacheUsage() {
  let previous = '';
  return (body) => {
    const raw = JSON.stringify(body);
    let common = 0;
    while (common < Math.min(previous.length, raw.length) && previous.charCodeAt(common) === raw.charCodeAt(common)) common++;
    previous = raw;
    const promptTokens = Math.ceil(raw.length / 4);
    const cachedTokens = Math.floor(common / 4);
    return { promptTokens, cachedTokens, cacheWriteTokens: Math.max(0, promptTokens - cachedTokens - 4) };
  };
}

/** What kind of request the host made: a title, a compaction, or a turn of the conversation. */
export function requestKind(body) {
  const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
  if (hasTools) return 'turn';
  return /context summarization|Summarize the provided coding session/.test(systemText(body)) ? 'compaction' : 'title';
}

/**
 * Starts the stand-in on 127.0.0.1. `respond(body, kind)` returns `{ text?, toolCalls?: [{ name,
 * arguments }], promptTokens? }`; titles and compactions get a short default answer unless the
 * responder handles them.
 */
export async function startStandInModel(respond, { socketPath } = {}) {
  const requests = [];
  let responder = respond;
  let counter = 0;
  const server = http.createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      if (request.method !== 'POST') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.end('{}');
        return;
      }
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        response.writeHead(400);
        response.end('not JSON');
        return;
      }
      const kind = requestKind(body);
      requests.push({ index: requests.length, kind, body });
      let reply;
      try {
        reply = responder(body, kind) ?? undefined;
      } catch (error) {
        reply = { text: `stand-in responder failed: ${error.message}` };
      }
      if (!reply)
        reply =
          kind === 'compaction'
            ? { text: 'Summary: the user asked for work; tools ran.' }
            : kind === 'title'
              ? { text: 'A session' }
              : { text: 'Done.' };
      const id = `chatcmpl-${++counter}`;
      const base = { id, object: 'chat.completion.chunk', created: 1, model: body.model ?? 'm' };
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      const send = (chunk) => response.write(`data: ${JSON.stringify({ ...base, ...chunk })}\n\n`);
      let finish = 'stop';
      if (reply.toolCalls?.length) {
        send({
          choices: [
            {
              index: 0,
              delta: {
                role: 'assistant',
                tool_calls: reply.toolCalls.map((call, index) => ({
                  index,
                  id: `call_${counter}_${index}`,
                  type: 'function',
                  function: { name: call.name, arguments: JSON.stringify(call.arguments ?? {}) },
                })),
              },
              finish_reason: null,
            },
          ],
        });
        finish = 'tool_calls';
      } else {
        send({ choices: [{ index: 0, delta: { role: 'assistant', content: reply.text ?? 'Done.' }, finish_reason: null }] });
      }
      const promptTokens = reply.promptTokens ?? Math.ceil(raw.length / 4);
      send({
        choices: [{ index: 0, delta: {}, finish_reason: finish }],
        usage: {
          prompt_tokens: promptTokens,
          completion_tokens: 10,
          total_tokens: promptTokens + 10,
          ...(reply.cachedTokens || reply.cacheWriteTokens
            ? {
                prompt_tokens_details: {
                  cached_tokens: reply.cachedTokens ?? 0,
                  ...(reply.cacheWriteTokens ? { cache_write_tokens: reply.cacheWriteTokens } : {}),
                },
              }
            : {}),
        },
      });
      response.end('data: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  // The same server on a Unix socket too: a process in another network namespace reaches it
  // through a bridge (test-support/netns-bridge.mjs).
  let socketServer;
  if (socketPath) {
    socketServer = http.createServer(server.listeners('request')[0]);
    await new Promise((resolve) => socketServer.listen(socketPath, resolve));
  }
  return {
    port,
    socketPath,
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    setResponder(next) {
      responder = next;
    },
    close: () =>
      Promise.all([
        new Promise((resolve) => server.close(() => resolve())),
        socketServer ? new Promise((resolve) => socketServer.close(() => resolve())) : undefined,
      ]).then(() => undefined),
  };
}
