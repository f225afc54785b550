// Makes opencode-export.json: a real OpenCode session (the pinned opencode-ai of the workspace
// install) against a loopback stand-in speaking Anthropic's Messages API, so OpenCode records
// cache reads and writes, then the real `opencode export <id>`. See README.md beside this file.
// Run: node packages/cli/src/report/__fixtures__/opencode/make-export.mjs [out.json]
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exportOpenCodeSession, offlineEnv, opencodeBinary, runOpenCode, scratchOpenCodeFolders } from '../../../../../adapter-opencode/test/e2e/offline-opencode.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../../../../../..');
const out = path.resolve(process.argv[2] ?? path.join(here, 'opencode-export.json'));
const FILES = ['alpha', 'bravo', 'charlie', 'delta'];

const textOf = (content) => (typeof content === 'string' ? content : Array.isArray(content) ? content.map((block) => (block.type === 'text' ? block.text : '')).join('\n') : '');

/** Messages after the latest user message that carries text (tool results are user messages too). */
function sinceLastPrompt(messages) {
  let index = messages.length - 1;
  while (index >= 0 && !(messages[index].role === 'user' && textOf(messages[index].content).trim() !== '')) index--;
  return { prompt: textOf(messages[index]?.content), after: messages.slice(index + 1) };
}

/**
 * The stand-in's cache: the tokens of the longest prefix (system, tools, messages as sent) this
 * request shares with the previous request of the same kind are read from the cache, the rest
 * is written, a few tokens are plain input. A model of Anthropic's, close enough for a fixture.
 */
function cacheFigures(previous, current) {
  let common = 0;
  const limit = Math.min(previous.length, current.length);
  while (common < limit && previous.charCodeAt(common) === current.charCodeAt(common)) common++;
  const total = Math.ceil(current.length / 4);
  const read = Math.floor(common / 4);
  return { input_tokens: 4, cache_read_input_tokens: read, cache_creation_input_tokens: Math.max(0, total - read - 4) };
}

function respondTo(body, project) {
  const { prompt, after } = sinceLastPrompt(body.messages);
  const step = after.filter((message) => message.role === 'assistant').length;
  const file = (name) => path.join(project, 'src', `${name}.txt`);
  let plan = [];
  if (/explore/.test(prompt)) plan = [{ name: 'read', input: { filePath: file('alpha') } }, { name: 'read', input: { filePath: file('bravo') } }, { name: 'glob', input: { pattern: 'src/*.txt' } }];
  else if (/fix/.test(prompt))
    plan = [
      { name: 'read', input: { filePath: file('missing') } },
      { name: 'read', input: { filePath: file('charlie') } },
      { name: 'edit', input: { filePath: file('charlie'), oldString: 'charlie line 3:', newString: 'charlie line three:' } },
      { name: 'read', input: { filePath: file('delta') } },
    ];
  const call = plan[step];
  if (call) return { text: step === 0 ? 'Let me look.' : undefined, tool: call };
  return { text: /Continue/.test(prompt) ? 'Nothing left to do.' : `Done: ${plan.length} tool call(s).` };
}

function sse(response, events) {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const [event, data] of events) response.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
  response.end();
}

async function main() {
  const root = mkdtempSync(path.join(tmpdir(), 'hookwise-ocexport-'));
  const { project, home, tmp } = scratchOpenCodeFolders(root);
  for (const name of FILES) writeFileSync(path.join(project, 'src', `${name}.txt`), Array.from({ length: Number(process.env.FILE_LINES ?? 80) }, (_, line) => `${name} line ${line + 1}: ${'lorem ipsum '.repeat(5)}`).join('\n'));

  const previous = new Map();
  let counter = 0;
  const server = http.createServer((request, response) => {
    let raw = '';
    request.setEncoding('utf8').on('data', (chunk) => (raw += chunk));
    request.on('end', () => {
      const body = JSON.parse(raw);
      if (process.env.DUMP_REQUESTS) writeFileSync(`${process.env.DUMP_REQUESTS}-${counter + 1}.json`, raw);
      const system = Array.isArray(body.system) ? body.system.map((block) => block.text).join('\n') : String(body.system ?? '');
      const kind = Array.isArray(body.tools) && body.tools.length > 0 ? 'turn' : /context summarization agent/.test(system) ? 'compaction' : 'title';
      const sent = JSON.stringify([body.system, body.tools, body.messages]);
      const usage = cacheFigures(previous.get(kind) ?? '', sent);
      previous.set(kind, sent);
      const reply = kind === 'turn' ? respondTo(body, project) : { text: kind === 'compaction' ? 'Summary: the user had four files explored and charlie fixed.' : 'Files and fixes' };
      const events = [['message_start', { message: { id: `msg_${++counter}`, type: 'message', role: 'assistant', model: 'claude-standin-1', content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }]];
      let index = 0;
      if (reply.text) {
        events.push(['content_block_start', { index, content_block: { type: 'text', text: '' } }], ['content_block_delta', { index, delta: { type: 'text_delta', text: reply.text } }], ['content_block_stop', { index }]);
        index++;
      }
      if (reply.tool) {
        events.push(
          ['content_block_start', { index, content_block: { type: 'tool_use', id: `toolu_${counter}`, name: reply.tool.name, input: {} } }],
          ['content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(reply.tool.input) } }],
          ['content_block_stop', { index }],
        );
      }
      events.push(['message_delta', { delta: { stop_reason: reply.tool ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 12 } }], ['message_stop', {}]);
      sse(response, events);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${server.address().port}/v1`;
  // A small window, so the second prompt overflows it and OpenCode compacts by itself.
  const config = {
    autoupdate: false,
    share: 'disabled',
    provider: { standin: { npm: '@ai-sdk/anthropic', name: 'Loopback stand-in', options: { baseURL, apiKey: 'x' }, models: { m: { name: 'Stand-in', tool_call: true, limit: { context: Number(process.env.CONTEXT_LIMIT ?? 17_000), output: 4_096 } } } } },
    model: 'standin/m',
    small_model: 'standin/m',
    permission: { read: 'allow', edit: 'allow', glob: 'allow', external_directory: 'allow' },
  };
  writeFileSync(path.join(project, 'opencode.json'), JSON.stringify(config, null, 2));
  const env = { PATH: process.env.PATH, ...offlineEnv({ home, tmp }) };
  const binary = opencodeBinary(path.join(repo, 'apps', 'demo'));
  try {
    const first = await runOpenCode(binary, ['run', '--format', 'json', 'explore', 'the', 'files'], { cwd: project, env });
    const { sessionId } = first;
    if (first.code !== 0 || !sessionId) throw new Error(`opencode run failed (${first.code}): ${first.stderr.slice(-800)}`);
    const second = await runOpenCode(binary, ['run', '--format', 'json', '--session', sessionId, 'fix', 'charlie'], { cwd: project, env });
    if (second.code !== 0) throw new Error(`opencode run --session failed (${second.code}): ${second.stderr.slice(-800)}`);
    const raw = path.join(root, 'export.json');
    const exported = exportOpenCodeSession(binary, sessionId, raw, { cwd: project, env });
    if (exported.status !== 0) throw new Error(`opencode export failed (${exported.status}): ${exported.stderr.slice(-800)}`);
    // The export as is; the scratch folder (absolute, and relative to / in `path` fields) is
    // renamed so the fixture does not name this machine.
    const json = JSON.parse(readFileSync(raw, 'utf8'));
    writeFileSync(out, `${JSON.stringify(json, null, 2).replaceAll(project, '/project').replaceAll(project.slice(1), 'project')}\n`);
    console.log(`${out}: session ${sessionId}, ${json.messages.length} messages`);
  } finally {
    server.close();
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
