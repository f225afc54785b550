// What the pi extension adds to each model request: pi's `context` event with 200 messages
// (100 tool calls with 4 kB outputs), through hookwise with hook-prune configured, against the
// same event with hookwise not configured. Imports the built dist; run `npm run build` first.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';
import hookwise from '../dist/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
// Inside the package, so the config's plugin resolves from its node_modules.
const project = path.join(here, '.bench-project');
rmSync(project, { recursive: true, force: true });
mkdirSync(project, { recursive: true });
writeFileSync(path.join(project, 'hookwise.config.json'), JSON.stringify({ plugins: { '@hookwise/hook-prune': {} } }));
const bare = path.join(here, '.bench-bare');
mkdirSync(bare, { recursive: true });

function extensionIn(cwd) {
  const handlers = new Map();
  hookwise({ on: (event, handler) => handlers.set(event, handler), sendMessage: () => undefined });
  const context = {
    cwd,
    hasUI: false,
    ui: { notify: () => undefined },
    sessionManager: { getSessionId: () => 'bench-session', getSessionFile: () => undefined },
    model: { id: 'm' },
    getContextUsage: () => ({ tokens: 60_000, contextWindow: 200_000, percent: 30 }),
    getSystemPrompt: () => 'You are pi.',
  };
  return (event, payload) => handlers.get(event)(payload, context);
}

const messages = [{ role: 'user', content: 'explore the project', timestamp: 1 }];
for (let index = 0; index < 99; index++) {
  messages.push({
    role: 'assistant',
    content: [{ type: 'toolCall', id: `c${index}`, name: 'read', arguments: { path: `src/f${index}.ts` } }],
    stopReason: 'toolUse',
    timestamp: 1,
  });
  messages.push({
    role: 'toolResult',
    toolCallId: `c${index}`,
    toolName: 'read',
    content: [{ type: 'text', text: `line ${index}\n`.repeat(400) }],
    isError: false,
    timestamp: 1,
  });
}
messages.push({ role: 'user', content: 'go on', timestamp: 1 });

const withHookwise = extensionIn(project);
const without = extensionIn(bare);
// Load the configs (first call) before measuring.
await withHookwise('context', { messages: structuredClone(messages) });
await without('context', { messages: structuredClone(messages) });

// pi hands every context event a deep copy of the conversation: each run gets its own, made
// before the run starts (the copy is pi's work, not the extension's).
let copy;
const freshCopy = { beforeEach: () => void (copy = structuredClone(messages)) };
const bench = new Bench({ time: 2_000 });
bench
  .add(
    `context, 200 messages, hook-prune`,
    async () => {
      await withHookwise('context', { messages: copy });
      await withHookwise('context_with_system', { messages: [{ role: 'system', content: '', sections: {} }, ...copy] });
    },
    freshCopy,
  )
  .add(
    'context, 200 messages, hookwise not configured',
    async () => {
      await without('context', { messages: copy });
      await without('context_with_system', { messages: [{ role: 'system', content: '', sections: {} }, ...copy] });
    },
    freshCopy,
  );
await bench.run();
console.table(bench.table());
for (const task of bench.tasks) console.log(`${task.name}: ${(task.result.latency.mean).toFixed(3)} ms per model call`);
rmSync(project, { recursive: true, force: true });
rmSync(bare, { recursive: true, force: true });
