// A loopback stand-in for the OpenAI Responses API (POST /v1/responses, SSE), so the real Codex
// CLI runs whole sessions offline. A responder decides each reply from the request body; every
// request is kept, so tests and the demo can look at exactly what was sent.
// Plain ESM with a .d.mts beside it: adapter-codex's e2e suite and `npm run demo` use it.
import http from 'node:http';

/** Text of a Responses API input item (a message's content parts, or a tool output). */
export function itemText(item) {
  if (typeof item?.output === 'string') return item.output;
  const content = item?.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('\n');
  return '';
}

/** Codex's compaction request ends with this user message (Codex 0.169.0). */
export const isCompactionRequest = (body) =>
  (body.input ?? []).some((item) => item.role === 'user' && itemText(item).includes('CONTEXT CHECKPOINT COMPACTION'));

/** The input items after the last real user message (hook context is a developer message). */
export function sinceLastUser(body) {
  const input = body.input ?? [];
  let index = input.length - 1;
  while (index >= 0 && !(input[index].type === 'message' && input[index].role === 'user')) index--;
  return input.slice(index + 1);
}

/**
 * Starts the stand-in on 127.0.0.1 (and on `socketPath` when given, for a host in another
 * network namespace). `respond(body, kind)` (kind `turn` or `compaction`) returns `{ text?,
 * toolCalls?: [{ name, arguments }], inputTokens?, cachedTokens? }`; a compaction gets a short
 * summary unless the responder answers it.
 */
export async function startStandInResponses(respond, { socketPath } = {}) {
  const requests = [];
  let responder = respond;
  let counter = 0;
  const handle = (request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || !request.url.endsWith('/responses')) {
        response.writeHead(404, { 'content-type': 'application/json' });
        response.end('{"error":"not served by the stand-in"}');
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
      const kind = isCompactionRequest(body) ? 'compaction' : 'turn';
      requests.push({ index: requests.length, kind, body });
      let reply;
      try {
        reply = responder(body, kind) ?? undefined;
      } catch (error) {
        reply = { text: `stand-in responder failed: ${error.message}` };
      }
      reply ??= kind === 'compaction' ? { text: 'Summary: the user asked for work; tools ran.' } : { text: 'Done.' };
      const id = `resp_${++counter}`;
      response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      let sequence = 0;
      const send = (type, fields) =>
        response.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...fields })}\n\n`);
      const created = { id, object: 'response', created_at: 1, status: 'in_progress', model: body.model ?? 'm', output: [] };
      send('response.created', { response: created });
      const items = reply.toolCalls?.length
        ? reply.toolCalls.map((call, index) => ({
            type: 'function_call',
            id: `fc_${counter}_${index}`,
            call_id: `call_${counter}_${index}`,
            name: call.name,
            arguments: JSON.stringify(call.arguments ?? {}),
            status: 'completed',
          }))
        : [
            {
              type: 'message',
              id: `msg_${counter}`,
              role: 'assistant',
              status: 'completed',
              content: [{ type: 'output_text', text: reply.text ?? 'Done.', annotations: [] }],
            },
          ];
      items.forEach((item, index) => {
        send('response.output_item.added', { output_index: index, item });
        send('response.output_item.done', { output_index: index, item });
      });
      const inputTokens = reply.inputTokens ?? Math.ceil(raw.length / 4);
      const cached = reply.cachedTokens ?? 0;
      send('response.completed', {
        response: {
          ...created,
          status: 'completed',
          output: items,
          usage: {
            input_tokens: inputTokens,
            input_tokens_details: { cached_tokens: cached },
            output_tokens: 10,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: inputTokens + 10,
          },
        },
      });
      response.end();
    });
  };
  const server = http.createServer(handle);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  let socketServer;
  if (socketPath) {
    socketServer = http.createServer(handle);
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
