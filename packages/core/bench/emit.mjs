// The engine's cost per emit in a replay, against the built dist. Prints figures; asserts nothing.
//   node bench/emit.mjs   (after a build of core and the plugins; unset NODE_EXTRA_CA_CERTS)
//   ROUNDS=6 by default; ONLY='no-op hooks' or ONLY='3 plugins' runs one engine (for --cpu-prof).
//
// The points `hookwise report` emits for the repo's recorded demo session (2,385 lines): one
// `session:start`, then per main-chain line `prompt:submit`, `tool:before`, `tool:after`,
// `agent:stop` at each turn's end, `llm:before` with the history before each API response; at
// the compaction `llm:before`, `compact:before`, `session:start`, `compact:after`; each with the
// context size the transcript measured. Built from the transcript with core's reader and
// converter, before timing.
//
// Two engines run the same points, each new per run, ephemeral, with in-memory state and event
// log, as the report's:
// - "3 plugins": hook-precompact, hook-prune and hook-suggest, loaded from the demo project the
//   way hosts load them (core's `loadPlugin`);
// - "no-op hooks": the same number of hooks on the same points, each an async no-op that reads
//   its session state once (what every plugin hook does first): the engine's own cost.
// Figures: median µs per emit (wall and this process's CPU) over several rounds, interleaved.
import { fileURLToPath } from 'node:url';
import { Bench } from 'tinybench';

// The entries this bench uses, as one object (each name lives in exactly one entry).
const entry = async (name) => import(new URL(`../dist/${name}.js`, import.meta.url).href);
const core = { ...(await entry('index')), ...(await entry('host')), ...(await entry('messages')), ...(await entry('claude-code')) };
const demoDir = fileURLToPath(new URL('../../../apps/demo/', import.meta.url));
const transcript = fileURLToPath(
  new URL('../../../fixtures/claude-code-transcripts/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl', import.meta.url),
);
const PLUGINS = ['@hookwise/hook-precompact', '@hookwise/hook-prune', '@hookwise/hook-suggest'];
const SESSION = 'ae4a77f8-aedd-4bc1-888f-c94edc91af04';

/** The points and payloads of the replay, and the recorded time of each. */
async function buildEvents() {
  const events = [];
  const wire = []; // the main chain as Anthropic messages, converted once at the end
  const requests = []; // [event, history start, history end] of each llm:before
  let historyStart = 0;
  const toolNames = new Map();
  let contextTokens;
  let model;
  let openResponse;
  let turnEnded = false;
  const add = (point, payload, time) =>
    events.push({
      point,
      payload: { sessionId: SESSION, ...(contextTokens !== undefined ? { contextTokens } : {}), ...(model ? { model } : {}), ...payload },
      time,
    });
  for await (const batch of core.readTranscriptEntries(transcript)) {
    for (const entry of batch) {
      if (events.length === 0) add('session:start', { source: 'startup' }, entry.timestamp);
      if (entry.type === 'usage' && !entry.isSidechain) {
        contextTokens = entry.contextTokens;
        model ??= entry.model;
      }
      if (entry.type === 'compact-boundary') {
        if (turnEnded) add('agent:stop', { stopHookActive: false }, entry.timestamp);
        turnEnded = false;
        // The request the compaction summarised, PreCompact, then SessionStart(compact), as the
        // report sends them; the history starts anew after it.
        add('llm:before', { systemPrompt: '' }, entry.timestamp);
        requests.push([events.at(-1), historyStart, wire.length]);
        add('compact:before', { trigger: entry.trigger === 'manual' ? 'manual' : 'auto' }, entry.timestamp);
        historyStart = wire.length;
        add('session:start', { source: 'compact' }, entry.timestamp);
        add(
          'compact:after',
          {
            ...(entry.preTokens !== undefined ? { tokensBefore: entry.preTokens } : {}),
            ...(entry.postTokens !== undefined ? { tokensAfter: entry.postTokens } : {}),
          },
          entry.timestamp,
        );
        continue;
      }
      if (entry.type !== 'message' || entry.isSidechain) continue;
      const blocks = typeof entry.content === 'string' ? [{ type: 'text', text: entry.content }] : entry.content;
      if (entry.role === 'assistant') {
        if (entry.messageId === undefined || entry.messageId !== openResponse) {
          add('llm:before', { systemPrompt: '' }, entry.timestamp);
          requests.push([events.at(-1), historyStart, wire.length]);
        }
        openResponse = entry.messageId;
        wire.push({ role: 'assistant', content: blocks });
        const calls = blocks.filter((block) => block.type === 'tool_use');
        for (const call of calls) {
          toolNames.set(call.id, { name: call.name, input: call.input });
          add('tool:before', { toolName: call.name, input: call.input ?? {}, toolUseId: call.id }, entry.timestamp);
        }
        turnEnded = calls.length === 0;
        continue;
      }
      wire.push({ role: 'user', content: blocks });
      const results = blocks.filter((block) => block.type === 'tool_result');
      for (const result of results) {
        const call = toolNames.get(result.tool_use_id) ?? { name: 'unknown', input: {} };
        add(
          'tool:after',
          { toolName: call.name, input: call.input, output: result.content, ok: result.is_error !== true, toolUseId: result.tool_use_id },
          entry.timestamp,
        );
      }
      if (results.length > 0) continue;
      const [message] = core.fromAnthropicMessages([{ role: 'user', content: blocks }]);
      const prompt = core.isUserPrompt(message);
      // The user is back (a prompt, or the meta line before a local command): the turn ended.
      if (turnEnded && (prompt || entry.isMeta === true)) add('agent:stop', { stopHookActive: false }, entry.timestamp);
      turnEnded = false;
      if (!prompt) continue;
      const text = message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
      const command = text.includes('<command-name>') ? core.parseSlashCommand(text) : undefined;
      add('prompt:submit', command ? { prompt: `/${command.name} ${command.args}`.trim(), command } : { prompt: text }, entry.timestamp);
    }
  }
  const history = core.fromAnthropicMessages(wire);
  for (const [event, start, end] of requests) event.payload.messages = history.slice(start, end);
  return events.filter((event) => event.point !== 'llm:before' || event.payload.messages?.length > 0);
}

/** The replay's clock: the latest recorded time so far (it never steps back). */
function replayClock() {
  let current;
  return {
    now: () => current ?? Date.now(),
    set(text) {
      const time = text === undefined ? Number.NaN : Date.parse(text);
      if (Number.isFinite(time) && (current === undefined || time > current)) current = time;
    },
  };
}

const events = await buildEvents();
const plugins = await Promise.all(PLUGINS.map((name) => core.loadPlugin(name, { from: demoDir })));

function engineWith(config) {
  const clock = replayClock();
  const engine = core.createEngine({
    config: { ...config, logLevel: 'warn' },
    projectDir: demoDir,
    host: 'replay',
    ephemeral: true,
    stateStore: core.createMemoryStateStore(),
    eventLog: core.createMemoryEventLog(),
    logger: core.createLogger({ level: 'warn', write: () => {} }),
    clock,
  });
  return { engine, clock };
}

// The no-op twin: one async hook per plugin hook, on the same points.
const pluginEngine = engineWith({ plugins }).engine;
const twins = {};
for (const point of Object.keys(core.points)) {
  for (const hook of pluginEngine.hooksFor(point)) {
    (twins[point] ??= []).push({
      handler: async (_payload, context) => void (await context.state.read()),
      name: `${hook.pluginName}-${hook.hookName}-${point}`,
    });
  }
}
const noopPlugin = core.definePlugin({ meta: { name: 'noop', version: '0.0.0' }, on: twins });

async function replay(config) {
  const { engine, clock } = engineWith(config);
  for (const event of events) {
    clock.set(event.time);
    const outcome = await engine.emit(event.point, event.payload);
    if (outcome.errors.length > 0) throw new Error(`${event.point}: ${outcome.errors[0].message}`);
  }
  await engine.dispose();
}

const configs = { '3 plugins': { plugins }, 'no-op hooks': { plugins: [noopPlugin()] } };
// ONLY='no-op hooks' (or '3 plugins') runs one of them, e.g. under --cpu-prof.
if (process.env.ONLY) for (const name of Object.keys(configs)) if (name !== process.env.ONLY) delete configs[name];
const counts = events.reduce((all, event) => ({ ...all, [event.point]: (all[event.point] ?? 0) + 1 }), {});
console.log(
  `${events.length} emits per replay: ${Object.entries(counts)
    .map(([point, count]) => `${count} ${point}`)
    .join(', ')}; ${twins.length} hooks; Node ${process.version}`,
);

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const ROUNDS = Number(process.env.ROUNDS ?? 6);
const results = Object.fromEntries(Object.keys(configs).map((name) => [name, { wall: [], cpu: [] }]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, config] of Object.entries(configs)) {
    const cpu = [];
    let start;
    const bench = new Bench({ time: 300, warmupTime: round === 0 ? 300 : 50 });
    bench.add(name, () => replay(config), {
      beforeEach: () => void (start = process.cpuUsage()),
      afterEach: (mode) => {
        const used = process.cpuUsage(start);
        if (mode === 'run') cpu.push(used.user + used.system);
      },
    });
    await bench.run();
    const task = bench.tasks[0];
    results[name].wall.push((task.result.latency.p50 * 1000) / events.length);
    results[name].cpu.push(median(cpu) / events.length);
  }
}
for (const [name, { wall, cpu }] of Object.entries(results)) {
  console.log(
    `${name.padEnd(12)} wall median ${median(wall).toFixed(2)} µs/emit, CPU median ${median(cpu).toFixed(2)} µs/emit (${ROUNDS} rounds)`,
  );
}
