// Child process for the multi-process state tests. argv: <transpiled build folder> <task JSON>.
// Plain .mjs because Node 20 cannot load the TypeScript sources directly.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [buildDirectory, taskJson] = process.argv.slice(2);
const task = JSON.parse(taskJson);
const load = (relative) => import(pathToFileURL(path.join(buildDirectory, relative)).href);

if (task.mode === 'increment') {
  // Each child increments one counter `times` times and prints the values its updates returned,
  // so the parent can check both the final count and that no two updates saw the same value.
  const { createFileStateStore } = await load('state/file-state-store.js');
  const store = createFileStateStore({ directory: task.directory, lockStaleMs: task.lockStaleMs });
  const seen = [];
  for (let index = 0; index < task.times; index++) {
    const next = await store.update(task.sessionId, task.namespace, (current) => ({ count: (current?.count ?? 0) + 1 }));
    seen.push(next.count);
  }
  process.stdout.write(`${JSON.stringify(seen)}\n`);
} else if (task.mode === 'write-forever') {
  // Writes big documents until killed; "tick" lines tell the parent it is making progress.
  const { createFileStateStore } = await load('state/file-state-store.js');
  const store = createFileStateStore({ directory: task.directory, lockStaleMs: task.lockStaleMs });
  const payload = 'x'.repeat(task.payloadBytes);
  for (;;) {
    const next = await store.update(task.sessionId, task.namespace, (current) => ({
      counter: (current?.counter ?? 0) + 1,
      payload,
      tail: 'end',
    }));
    process.stdout.write(`tick ${next.counter}\n`);
  }
} else if (task.mode === 'append-events') {
  const { createEventLog } = await load('state/event-log.js');
  const log = createEventLog({ path: task.path, maxBytes: task.maxBytes, maxFiles: task.maxFiles });
  const padding = 'p'.repeat(task.paddingBytes ?? 0);
  for (let sequence = 0; sequence < task.lines; sequence++) {
    await log.append({ type: 'test:line', writer: task.writer, sequence, padding });
  }
} else {
  throw new Error(`unknown mode ${task.mode}`);
}
