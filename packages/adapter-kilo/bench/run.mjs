// What the Kilo plugin adds to each model request: Kilo's `experimental.chat.messages.transform`
// and `experimental.chat.system.transform` with 200 messages (99 `read` calls with 4 kB outputs),
// through hookwise with hook-prune configured, against the same hooks with hookwise not
// configured. Imports the built dist; run `npm run build` first.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import { HookwiseKiloPlugin } from '../dist/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// Inside the package, so the config's plugin resolves from its node_modules.
const project = path.join(here, '.bench-project');
rmSync(project, { recursive: true, force: true });
mkdirSync(project, { recursive: true });
writeFileSync(path.join(project, 'hookwise.config.json'), JSON.stringify({ plugins: { '@hookwise/hook-prune': {} } }));
const bare = path.join(here, '.bench-bare');
mkdirSync(bare, { recursive: true });

const client = { app: { log: async () => undefined }, tui: { showToast: async () => undefined } };
const hooksIn = (directory) => HookwiseKiloPlugin({ client, directory });

const sessionID = 'ses_bench';
const user = (id, text) => ({
  info: { id, sessionID, role: 'user', time: { created: 1 }, agent: 'code', model: { providerID: 'p', modelID: 'm' } },
  parts: [{ id: `${id}-t`, sessionID, messageID: id, type: 'text', text }],
});
const messages = [user('u0', 'explore the project')];
for (let index = 0; index < 99; index++) {
  const id = `a${index}`;
  messages.push({
    info: {
      id,
      sessionID,
      role: 'assistant',
      time: { created: 1, completed: 2 },
      parentID: 'u0',
      modelID: 'm',
      providerID: 'p',
      mode: 'code',
      path: { cwd: '/', root: '/' },
      cost: 0,
      tokens: { input: 1_000 + index * 1_000, output: 10, reasoning: 0, cache: { read: 0, write: 0 } },
    },
    parts: [
      { id: `${id}-s`, sessionID, messageID: id, type: 'step-start' },
      {
        id: `${id}-tool`,
        sessionID,
        messageID: id,
        type: 'tool',
        callID: `c${index}`,
        tool: 'read',
        state: {
          status: 'completed',
          input: { filePath: `/project/src/f${index}.ts` },
          output: `line ${index}\n`.repeat(400),
          title: `f${index}.ts`,
          metadata: {},
          time: { start: 1, end: 2 },
        },
      },
      {
        id: `${id}-f`,
        sessionID,
        messageID: id,
        type: 'step-finish',
        reason: 'tool-calls',
        cost: 0,
        tokens: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      },
    ],
  });
}
messages.push(user('u1', 'go on'));

const model = { id: 'm', providerID: 'p', limit: { context: 200_000, output: 8_192 } };
async function modelCall(hooks, copy) {
  await hooks['experimental.chat.messages.transform']({}, { messages: copy });
  await hooks['experimental.chat.system.transform']({ sessionID, model }, { system: ['You are Kilo.'] });
}

const withHookwise = await hooksIn(project);
const without = await hooksIn(bare);
// Load the configs (first call) before measuring.
await modelCall(withHookwise, structuredClone(messages));
await modelCall(without, structuredClone(messages));

// Kilo reads the session's messages afresh for every request: each run gets its own copy, made
// before the run starts (the copy is Kilo's work, not the plugin's).
let copy;
const freshCopy = { beforeEach: () => void (copy = structuredClone(messages)) };
const bench = new Bench({ time: 2_000 });
bench
  .add('transform, 200 messages, hook-prune', () => modelCall(withHookwise, copy), freshCopy)
  .add('transform, 200 messages, hookwise not configured', () => modelCall(without, copy), freshCopy);
await bench.run();
console.table(bench.table());
for (const task of bench.tasks) console.log(`${task.name}: ${task.result.latency.mean.toFixed(3)} ms per model call`);
rmSync(project, { recursive: true, force: true });
rmSync(bare, { recursive: true, force: true });
