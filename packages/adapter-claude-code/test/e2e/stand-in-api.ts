import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A stand-in for the Anthropic Messages API on 127.0.0.1, for running the real Claude Code
 * offline. It records every request body and answers `POST /v1/messages` with server-sent
 * events built from what the test's `respond` returns.
 */
export type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

export interface MessagesRequest {
  model?: string;
  system?: unknown;
  messages: Array<{ role: string; content: unknown }>;
  tools?: Array<{ name: string }>;
  stream?: boolean;
  [key: string]: unknown;
}

export interface RecordedRequest {
  path: string;
  body: MessagesRequest;
  /** The whole body as sent, for text searches. */
  text: string;
  kind: RequestKind;
}

/** `compaction`: Claude Code asking for a summary; `main`: a turn of the session (tools offered); `side`: anything else (titles, …). */
export type RequestKind = 'compaction' | 'main' | 'side';

export interface Reply {
  content: Block[];
  /** Reported `input_tokens` (the context size Claude Code and hookwise see). */
  inputTokens?: number;
}

export type Responder = (request: MessagesRequest, context: { kind: RequestKind; index: number; all: RecordedRequest[] }) => Reply;

export interface StandInApi {
  url: string;
  requests: RecordedRequest[];
  /** Replaces the responder (between claude runs of one test). */
  setResponder(responder: Responder): void;
  close(): Promise<void>;
}

const COMPACTION_MARKERS = [
  /create a detailed summary of the conversation/i,
  /your task is to create a detailed summary/i,
  /summar(y|ize) (of )?the conversation so far/i,
];

/**
 * Claude Code 2.1.330 appends the compaction prompt to the user turn that holds the last tool
 * results (one turn: tool_result blocks, then the prompt as text), and still offers tools. So the
 * whole last user turn is searched, not only a separate summary turn: answered as a normal turn,
 * the compaction fails and Claude Code retries it.
 */
export function classify(body: MessagesRequest, text: string): RequestKind {
  const lastUser = [...body.messages].reverse().find((message) => message.role === 'user');
  const lastText = JSON.stringify(lastUser?.content ?? '');
  if (
    COMPACTION_MARKERS.some((marker) => marker.test(lastText)) ||
    (COMPACTION_MARKERS.some((marker) => marker.test(text)) && !body.tools?.length)
  )
    return 'compaction';
  return body.tools && body.tools.length > 0 ? 'main' : 'side';
}

/** The last message that is not a `system` entry (2.1.330 puts hook context into `messages` with role `system`). */
export function lastTurn(body: MessagesRequest): { role: string; content: unknown } | undefined {
  return [...body.messages].reverse().find((message) => message.role !== 'system');
}

export function isToolResultTurn(body: MessagesRequest): boolean {
  const turn = lastTurn(body);
  return (
    turn?.role === 'user' && Array.isArray(turn.content) && turn.content.some((part) => (part as { type?: string })?.type === 'tool_result')
  );
}

export async function startStandInApi(initial: Responder): Promise<StandInApi> {
  let responder = initial;
  const requests: RecordedRequest[] = [];
  let messageCounter = 0;

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        if (request.method === 'HEAD' || request.method === 'GET') {
          response.writeHead(200, { 'content-type': 'application/json' }).end(request.method === 'GET' ? '{}' : undefined);
          return;
        }
        const text = Buffer.concat(chunks).toString('utf8');
        const url = request.url ?? '/';
        if (url.startsWith('/v1/messages/count_tokens')) {
          response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: Math.ceil(text.length / 4) }));
          return;
        }
        if (!url.startsWith('/v1/messages')) {
          response
            .writeHead(404, { 'content-type': 'application/json' })
            .end(JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: url } }));
          return;
        }
        const body = JSON.parse(text) as MessagesRequest;
        const kind = classify(body, text);
        requests.push({ path: url, body, text, kind });
        const reply = responder(body, { kind, index: requests.length - 1, all: requests });
        const id = `msg_standin_${++messageCounter}`;
        const usage = {
          input_tokens: reply.inputTokens ?? 1_000,
          output_tokens: 20,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: 0,
        };
        const stopReason = reply.content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
        if (body.stream === false || body.stream === undefined) {
          response.writeHead(200, { 'content-type': 'application/json' }).end(
            JSON.stringify({
              id,
              type: 'message',
              role: 'assistant',
              model: body.model ?? 'claude-standin',
              content: reply.content,
              stop_reason: stopReason,
              stop_sequence: null,
              usage,
            }),
          );
          return;
        }
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        const send = (event: string, data: unknown) => response.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
        send('message_start', {
          type: 'message_start',
          message: {
            id,
            type: 'message',
            role: 'assistant',
            model: body.model ?? 'claude-standin',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { ...usage, output_tokens: 1 },
          },
        });
        reply.content.forEach((block, index) => {
          if (block.type === 'text') {
            send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
            send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
          } else {
            send('content_block_start', {
              type: 'content_block_start',
              index,
              content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} },
            });
            send('content_block_delta', {
              type: 'content_block_delta',
              index,
              delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) },
            });
          }
          send('content_block_stop', { type: 'content_block_stop', index });
        });
        send('message_delta', {
          type: 'message_delta',
          delta: { stop_reason: stopReason, stop_sequence: null },
          usage: { output_tokens: usage.output_tokens },
        });
        send('message_stop', { type: 'message_stop' });
        response.end();
      } catch (error) {
        response
          .writeHead(500, { 'content-type': 'application/json' })
          .end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: (error as Error).message } }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setResponder(next) {
      responder = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
