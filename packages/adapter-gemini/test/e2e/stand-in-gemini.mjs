// A loopback stand-in for the Gemini API as Gemini CLI 0.61.0 calls it: `streamGenerateContent?alt=sse`
// for the agent (one SSE event per answer) and `generateContent` for the compression's two calls.
// Every request is recorded; `answer(request)` decides the agent's reply. Used by the e2e suite
// and the demo.
import http from 'node:http';

/** A functionCall part for `run_shell_command`. */
export const shellCall = (id, command) => ({ functionCall: { id, name: 'run_shell_command', args: { command, description: command } } });

/**
 * Starts the stand-in on 127.0.0.1 (a free port) and, with `socketPath`, on that Unix socket
 * too (a network namespace reaches it through a bridge). `answer({ index, body, model })` returns
 * `{ parts, promptTokens? }` for the agent's requests.
 */
export async function startGeminiStandIn({ answer, socketPath } = {}) {
  const requests = [];
  const handler = (request, response) => {
    let raw = '';
    request.setEncoding('utf8');
    request.on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      let body = {};
      try {
        body = raw ? JSON.parse(raw) : {};
      } catch {}
      const match = /models\/([^:/?]+):(streamGenerateContent|generateContent)/.exec(request.url ?? '');
      const kind = match?.[2] === 'streamGenerateContent' ? 'stream' : match ? 'generate' : 'other';
      const entry = { kind, model: match?.[1], url: request.url, body, text: JSON.stringify(body) };
      requests.push(entry);
      if (kind === 'other') {
        response.writeHead(404).end('{}');
        return;
      }
      const agentIndex = requests.filter((item) => item.kind === 'stream').length - 1;
      const reply =
        kind === 'stream'
          ? (answer?.({ index: agentIndex, ...entry }) ?? { parts: [{ text: 'done' }] })
          : { parts: [{ text: '<state_snapshot>\n<overall_goal>stand-in summary</overall_goal>\n</state_snapshot>' }], promptTokens: 1200 };
      const tokens = reply.promptTokens ?? Math.ceil(entry.text.length / 4);
      const payload = {
        candidates: [{ content: { role: 'model', parts: reply.parts }, finishReason: 'STOP', index: 0 }],
        usageMetadata: {
          promptTokenCount: tokens,
          candidatesTokenCount: 20,
          totalTokenCount: tokens + 20,
          ...(reply.cachedTokens ? { cachedContentTokenCount: reply.cachedTokens } : {}),
        },
      };
      if (kind === 'stream') {
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.end(`data: ${JSON.stringify(payload)}\n\n`);
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      }
    });
  };
  const tcp = http.createServer(handler);
  await new Promise((resolve) => tcp.listen(0, '127.0.0.1', resolve));
  const servers = [tcp];
  if (socketPath) {
    const unix = http.createServer(handler);
    await new Promise((resolve) => unix.listen(socketPath, resolve));
    servers.push(unix);
  }
  return {
    port: tcp.address().port,
    socketPath,
    requests,
    close: () => Promise.all(servers.map((server) => new Promise((resolve) => server.close(() => resolve())))),
  };
}
