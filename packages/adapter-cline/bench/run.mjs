// What the Cline plugin adds to each model request, with Cline's IPC: the `beforeModel` context
// with 500 messages (249 read_files calls with 4 kB outputs), serialised to JSON and parsed the
// way Cline sends it to its plugin sandbox, through the plugin (conversion, the engine, hook-prune,
// the edits written back), and the answer serialised and parsed back. Against the same round trip
// in a project without a hookwise config, and the JSON round trip alone. Imports the built dist;
// run `npm run build` first.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { createHookwisePlugin } from '../dist/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// Inside the package, so the config's plugin resolves from its node_modules.
const project = path.join(here, '.bench-project');
rmSync(project, { recursive: true, force: true });
mkdirSync(project, { recursive: true });
writeFileSync(path.join(project, 'hookwise.config.json'), JSON.stringify({ plugins: { '@hookwise/hook-prune': {} } }));
const bare = path.join(here, '.bench-bare');
mkdirSync(bare, { recursive: true });

async function pluginIn(rootPath) {
  const plugin = createHookwisePlugin();
  await plugin.setup({}, { session: { sessionId: 'bench-session' }, workspaceInfo: { rootPath } });
  return plugin;
}

const messages = [{ id: 'u0', role: 'user', content: [{ type: 'text', text: 'explore the project' }], createdAt: 1 }];
for (let index = 0; index < 249; index++) {
  const toolCallId = `call_${index}`;
  messages.push({
    id: `a${index}`,
    role: 'assistant',
    content: [{ type: 'tool-call', toolCallId, toolName: 'read_files', input: { files: [{ path: `src/f${index}.ts` }] } }],
    createdAt: 1,
  });
  const result = Array.from({ length: 200 }, (_, line) => `${String(line + 1).padStart(3)} | line ${index} ${'x'.repeat(8)}`).join('\n');
  messages.push({
    id: `t${index}`,
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId, toolName: 'read_files', output: [{ query: `src/f${index}.ts`, result, success: true }] }],
    createdAt: 1,
  });
}
messages.push({ id: 'u1', role: 'user', content: [{ type: 'text', text: 'go on' }], createdAt: 1 });
// The context Cline serialises: the runtime's snapshot (the whole transcript) and the request.
const context = {
  snapshot: { agentId: 'a', conversationId: 'bench-session', messages },
  request: { systemPrompt: 'You are Cline.', messages, tools: [] },
};

/** One model call through Cline's IPC: the context to the sandbox as JSON, the answer back as JSON. */
async function roundTrip(plugin) {
  const received = JSON.parse(JSON.stringify(context));
  const answer = plugin ? await plugin.hooks.beforeModel(received) : undefined;
  return answer === undefined ? undefined : JSON.parse(JSON.stringify(answer));
}

const withHookwise = await pluginIn(project);
const without = await pluginIn(bare);
// The first call of a session converts and indexes everything: measured apart, once.
let started = performance.now();
const first = await roundTrip(withHookwise);
const firstMs = performance.now() - started;
await roundTrip(without);
if (!first?.messages) throw new Error('hook-prune changed nothing: the bench would measure the wrong thing');

const bench = new Bench({ time: 3_000 });
bench
  .add('beforeModel, 500 messages, hook-prune, with the JSON round trip', () => roundTrip(withHookwise))
  .add('beforeModel, 500 messages, hookwise not configured, with the JSON round trip', () => roundTrip(without))
  .add('the JSON round trip alone (Cline IPC payload)', () => roundTrip(undefined))
  // Cline awaits a plugin's onEvent for every runtime event, each streamed text chunk included,
  // with the runtime's snapshot (the whole transcript): the price of listening for compactions.
  .add('onEvent, one streamed text chunk, 500-message snapshot, JSON round trip', async () => {
    const event = JSON.parse(JSON.stringify({ type: 'assistant-text-delta', snapshot: context.snapshot, text: 'x', accumulatedText: 'x' }));
    await withHookwise.hooks.onEvent(event);
  });
await bench.run();
console.table(bench.table());
const bytes = JSON.stringify(context).length;
console.log(`context: ${(bytes / 1e6).toFixed(2)} MB of JSON; first call of the session: ${firstMs.toFixed(1)} ms`);
for (const task of bench.tasks)
  console.log(
    `${task.name}: ${task.result.latency.mean.toFixed(2)} ms per call (${((task.result.latency.mean / 3000) * 100).toFixed(2)} % of Cline's 3 s hook limit)`,
  );
rmSync(project, { recursive: true, force: true });
rmSync(bare, { recursive: true, force: true });
