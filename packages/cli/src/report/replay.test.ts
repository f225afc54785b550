import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookwiseConfig } from '@hookwise/core';
import { buildReport } from './analyze.js';
import { createReplayEngine } from './replay-engine.js';
import { sessionIdFor } from './replay.js';

let workDir: string;
let prunePlugin: HookwiseConfig['plugins'];

beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), 'hookwise-replay-'));
  const prune = await import('../../../hook-prune/src/index.js');
  // These figures are OpenCode's rule with chars/4 (the agentic default and the calibrated counter are hook-prune's and core's own tests).
  prunePlugin = [prune.default({ policy: 'window', protectTurns: 2, keepRecent: 0, supersede: false })];
});

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

// --- a synthetic transcript, line by line ---------------------------------------------------

const usage = (context: number) => ({
  input_tokens: 10,
  cache_read_input_tokens: context - 10,
  cache_creation_input_tokens: 0,
  output_tokens: 5,
});
const user = (content: unknown, extra: Record<string, unknown> = {}) => ({
  type: 'user',
  timestamp: '2026-02-12T10:00:00.000Z',
  message: { role: 'user', content },
  ...extra,
});
const assistant = (id: string, context: number, content: unknown[]) => ({
  type: 'assistant',
  timestamp: '2026-02-12T10:00:01.000Z',
  message: { id, role: 'assistant', model: 'claude-opus-4-6', content, usage: usage(context) },
});
const toolUse = (id: string, name = 'Read') => ({ type: 'tool_use', id, name, input: { file_path: `/src/${id}.ts` } });
const toolResult = (id: string, text: string, isError = false) =>
  user([{ type: 'tool_result', tool_use_id: id, content: text, ...(isError ? { is_error: true } : {}) }]);

/** Three prompts, big reads in the first turn, a compaction with postTokens, a slash command, bad lines. */
const SCRIPT: unknown[] = [
  { type: 'file-history-snapshot', snapshot: {} }, // 1
  user('read everything'), // 2
  assistant('m1', 20_000, [toolUse('t1')]), // 3
  toolResult('t1', 'x'.repeat(200_000)), // 4: 50,000 tokens
  assistant('m2', 70_000, [{ type: 'text', text: 'more' }]), // 5
  assistant('m2', 70_000, [toolUse('t2')]), // 6: same response, second line
  toolResult('t2', 'y'.repeat(120_000)), // 7: 30,000 tokens
  assistant('m3', 100_000, [{ type: 'text', text: 'done' }]), // 8
  'this line is not JSON', // 9
  user(
    '<command-name>/review-plan</command-name>\n<command-message>review-plan</command-message>\n<command-args>docs/plan.md</command-args>',
  ), // 10
  assistant('m4', 101_000, [toolUse('t3', 'Bash')]), // 11
  toolResult('t3', 'failed', true), // 12
  assistant('m5', 101_500, [{ type: 'text', text: 'ok' }]), // 13
  user('third prompt'), // 14
  assistant('m6', 102_000, [toolUse('t4')]), // 15: the first request of the third turn
  toolResult('t4', 'small'), // 16
  assistant('m7', 102_100, [{ type: 'text', text: 'fine' }]), // 17: same turn
  [1, 2], // 18: not an object
  { type: 'user', message: 'a string' }, // 19: malformed message
  {
    type: 'system',
    subtype: 'compact_boundary',
    timestamp: '2026-02-12T10:05:00.000Z',
    compactMetadata: { trigger: 'auto', preTokens: 102_500, postTokens: 9_000 },
  }, // 20
  user('summary of the conversation', { isCompactSummary: true }), // 21
  user('<local-command-stdout>Compacted</local-command-stdout>'), // 22: no prompt
  user('go on'), // 23
  assistant('m8', 12_000, [toolUse('t5')]), // 24
  toolResult('t5', 'z'), // 25
  { type: 'assistant', isSidechain: true, message: { id: 's1', role: 'assistant', content: [toolUse('side')], usage: usage(500_000) } }, // 26
];

async function writeTranscript(name: string, lines: unknown[]): Promise<string> {
  const file = path.join(workDir, name);
  await writeFile(file, `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`);
  return file;
}

function spyConfig(plugins: HookwiseConfig['plugins'] = []): {
  config: HookwiseConfig;
  events: Array<{ point: string; payload: Record<string, unknown> }>;
} {
  const events: Array<{ point: string; payload: Record<string, unknown> }> = [];
  const record = (point: string) => (payload: unknown) => {
    events.push({ point, payload: payload as Record<string, unknown> });
  };
  const on: HookwiseConfig['on'] = {
    'session:start': record('session:start'),
    'prompt:submit': record('prompt:submit'),
    'tool:before': record('tool:before'),
    'tool:after': record('tool:after'),
    'compact:before': record('compact:before'),
    'compact:after': record('compact:after'),
    'agent:stop': record('agent:stop'),
  };
  return { config: { plugins: plugins ?? [], on }, events };
}

describe('the events a transcript implies', () => {
  it('maps every line to the events Claude Code would have fired, in order', async () => {
    const file = await writeTranscript('script.jsonl', SCRIPT);
    const { config, events } = spyConfig();
    const report = await buildReport(file, { projectDir: workDir, config });
    const points = events.map((event) => event.point);
    expect(points).toEqual([
      'session:start',
      'prompt:submit',
      'tool:before',
      'tool:after',
      'tool:before',
      'tool:after',
      // The turn ended with a response that called no tool (line 8): Stop, before the next prompt.
      'agent:stop',
      'prompt:submit',
      'tool:before',
      'tool:after',
      'agent:stop',
      'prompt:submit',
      'tool:before',
      'tool:after',
      'agent:stop',
      'compact:before',
      // As the live binding runs SessionStart(compact): session:start, then compact:after.
      'session:start',
      'compact:after',
      'prompt:submit',
      'tool:before',
      'tool:after',
      // The file ends after a tool result: the turn did not end, no Stop.
    ]);
    expect(events[0]!.payload).toMatchObject({ source: 'startup', host: 'replay', sessionId: 'script' });
    expect(events[6]!.payload).toMatchObject({ lastMessage: 'done', stopHookActive: false, contextTokens: 100_000 });
    expect(events[7]!.payload).toMatchObject({
      prompt: '/review-plan docs/plan.md',
      command: { name: 'review-plan', args: 'docs/plan.md' },
    });
    expect(events[9]!.payload).toMatchObject({ toolName: 'Bash', ok: false, toolUseId: 't3' });
    expect(events[3]!.payload).toMatchObject({ toolName: 'Read', ok: true, contextTokens: 20_000, input: { file_path: '/src/t1.ts' } });
    expect(events[14]!.payload).toMatchObject({ lastMessage: 'fine' });
    expect(events[15]!.payload).toMatchObject({ trigger: 'auto', contextTokens: 102_500 });
    expect(events[16]!.payload).toMatchObject({ source: 'compact' });
    expect(events[17]!.payload).toMatchObject({ trigger: 'auto', tokensBefore: 102_500, tokensAfter: 9_000 });
    // After the compaction and before the next response, the size is the boundary's postTokens
    // (core's rule for the current size), never the old one.
    expect(events[18]!.payload['contextTokens']).toBe(9_000);
    expect(events.every((event) => event.payload['transcriptPath'] === undefined)).toBe(true);

    expect(report.malformedLines).toBe(3);
    expect(report.malformed.map((entry) => entry.line)).toEqual([9, 18, 19]);
    expect(report.toolCalls).toBe(5); // the side-chain call is not the session's
    expect(report.peakContextTokens).toBe(102_100);
    expect(report.prompts).toBe(4);
    expect(report.timeline.map((entry) => entry.line)).toEqual([3, 5, 8, 11, 13, 15, 17, 24]);
    expect(report.compactions).toEqual([
      expect.objectContaining({ line: 20, trigger: 'auto', preTokens: 102_500, postTokens: 9_000, postTokensSource: 'metadata' }),
    ]);
  });

  it('takes the size after a compaction from the next request when the boundary has none', async () => {
    const lines = SCRIPT.map((line) =>
      typeof line === 'object' && line !== null && (line as { subtype?: string }).subtype === 'compact_boundary'
        ? { type: 'system', subtype: 'compact_boundary', compactMetadata: { trigger: 'manual', preTokens: 102_500 } }
        : line,
    );
    const file = await writeTranscript('measured.jsonl', lines);
    const { config, events } = spyConfig();
    const report = await buildReport(file, { projectDir: workDir, config });
    expect(report.compactions[0]).toMatchObject({ postTokens: 12_000, postTokensSource: 'measured', trigger: 'manual' });
    // SessionStart(compact) still comes before the events of the lines that followed the boundary.
    const start = events.findIndex((event) => event.point === 'session:start' && event.payload['source'] === 'compact');
    expect(events[start + 1]).toMatchObject({ point: 'compact:after', payload: { tokensAfter: 12_000 } });
    expect(events[start + 2]).toMatchObject({ point: 'prompt:submit', payload: { prompt: 'go on' } });
    // Until that request, the size is unknown: the boundary does not say it.
    expect(events[start + 2]!.payload['contextTokens']).toBeUndefined();
  });
});

describe('hook-prune through the engine', () => {
  const placeholderTokens = Math.ceil('[Old tool result content cleared]'.length / 4);

  it('reports what it would take out of each request, from the third turn on', async () => {
    const file = await writeTranscript('prune.jsonl', SCRIPT);
    const report = await buildReport(file, { projectDir: workDir, config: { plugins: prunePlugin!, tokenCounter: 'chars' } });
    const byLine = new Map(report.timeline.map((entry) => [entry.line, entry]));
    for (const line of [3, 5, 8, 11, 13]) expect(byLine.get(line)).toMatchObject({ pruneReclaimedTokens: 0, prunedParts: 0 });
    // Third turn: t1 and t2 are two prompts old; newest first, t2 (30k) fits the 40k window and
    // t1 (50k) crosses it, so t1 (50k > the 20k minimum) is cleared.
    for (const line of [15, 17])
      expect(byLine.get(line)).toMatchObject({ pruneReclaimedTokens: 50_000 - placeholderTokens, prunedParts: 1 });
    expect(byLine.get(24)).toMatchObject({ pruneReclaimedTokens: 0 });
    expect(report.compactions[0]!.prune).toMatchObject({ reclaimedTokens: 50_000 - placeholderTokens, parts: 1 });
    expect(report.compactions[0]!.prune!.historyTokens).toBeGreaterThan(80_000);
    expect(report.prune).toMatchObject({
      method: 'every-request',
      requests: 8,
      requestsPruned: 2,
      maxReclaimedTokens: 50_000 - placeholderTokens,
      maxReclaimedLine: 15,
      totalReclaimedTokens: 2 * (50_000 - placeholderTokens),
      maxParts: 1,
    });
  });

  it("with OpenCode's rule, gives the same figures per turn as before every request, with fewer runs", async () => {
    const file = await writeTranscript('prune-every.jsonl', SCRIPT);
    const byTurn = await buildReport(file, {
      projectDir: workDir,
      config: { plugins: prunePlugin!, tokenCounter: 'chars' },
      pruneSampling: 'turn',
    });
    const everyRequest = await buildReport(file, { projectDir: workDir, config: { plugins: prunePlugin!, tokenCounter: 'chars' } });
    expect(everyRequest.prune.method).toBe('every-request');
    // Costs are priced only before every request: the rest of each entry is the same.
    const withoutCost = (timeline: typeof byTurn.timeline) => timeline.map(({ costWithout, costWithPrune, cacheTokens, ...rest }) => rest);
    expect(byTurn.timeline.every((entry) => entry.costWithout === null)).toBe(true);
    expect(withoutCost(byTurn.timeline)).toEqual(withoutCost(everyRequest.timeline));
    expect(byTurn.prune.runs).toBeLessThan(everyRequest.prune.runs);
  });
});

describe('tool outputs replaced as they arrive (what Claude Code applies)', () => {
  it('counts what the tool:after hooks replaced: a long Bash output, never a Read', async () => {
    const prune = await import('../../../hook-prune/src/index.js');
    const file = await writeTranscript('arrival.jsonl', [
      user('go'),
      assistant('m1', 20_000, [toolUse('b1', 'Bash')]),
      toolResult('b1', 'log line\n'.repeat(1_500)),
      assistant('m2', 25_000, [toolUse('r1', 'Read')]),
      toolResult('r1', 'source line\n'.repeat(1_500)),
      assistant('m3', 30_000, [{ type: 'text', text: 'done' }]),
    ]);
    const report = await buildReport(file, { projectDir: workDir, config: { plugins: [prune.default()], tokenCounter: 'chars' } });
    expect(report.outputTransforms).toMatchObject({ outputs: 1, charsBefore: 13_500, byTool: { Bash: 1 }, lines: [3] });
    expect(report.outputTransforms.charsAfter).toBeLessThan(10_000);
  });
});

describe('rules the report used to have its own version of', () => {
  it('measures context like core: synthetic and API-error responses measure nothing', async () => {
    const file = await writeTranscript('usage-rule.jsonl', [
      user('go'),
      assistant('m1', 30_000, [toolUse('u1')]),
      toolResult('u1', 'ok'),
      // Non-zero usage, but not a request the model answered: core's rule skips both.
      {
        type: 'assistant',
        isApiErrorMessage: true,
        message: {
          id: 'e1',
          role: 'assistant',
          model: 'claude-opus-4-6',
          content: [{ type: 'text', text: 'API Error' }],
          usage: usage(90_000),
        },
      },
      {
        type: 'assistant',
        message: {
          id: 'e2',
          role: 'assistant',
          model: '<synthetic>',
          content: [{ type: 'text', text: 'No response requested.' }],
          usage: usage(80_000),
        },
      },
      user('next'),
    ]);
    const { config, events } = spyConfig();
    const report = await buildReport(file, { projectDir: workDir, config });
    expect(report.timeline.map((entry) => [entry.line, entry.contextTokens])).toEqual([[2, 30_000]]);
    expect(report.peakContextTokens).toBe(30_000);
    expect(report.model).toBe('claude-opus-4-6');
    expect(events.find((event) => event.point === 'prompt:submit' && event.payload['prompt'] === 'next')!.payload['contextTokens']).toBe(
      30_000,
    );
  });

  it('takes the window from core: 1M when a request measured more than 200k', async () => {
    const file = await writeTranscript('window.jsonl', [user('go'), assistant('m1', 250_000, [{ type: 'text', text: 'big' }])]);
    const { config, events } = spyConfig();
    const report = await buildReport(file, { projectDir: workDir, config });
    expect(report.contextWindow).toBe(1_000_000);
    // Claude Code sends no window; plugins take it from the model, as live.
    expect(events.every((event) => event.payload['contextWindow'] === undefined)).toBe(true);
  });

  it('sends failed tools as PostToolUseFailure: ok false, the error text as error and output', async () => {
    const file = await writeTranscript('failure.jsonl', [
      user('go'),
      assistant('m1', 1_000, [toolUse('f1', 'Bash')]),
      user([{ type: 'tool_result', tool_use_id: 'f1', content: [{ type: 'text', text: 'exit 1' }], is_error: true }]),
    ]);
    const { config, events } = spyConfig();
    await buildReport(file, { projectDir: workDir, config });
    expect(events.find((event) => event.point === 'tool:after')!.payload).toMatchObject({
      toolName: 'Bash',
      ok: false,
      error: 'exit 1',
      output: 'exit 1',
      toolUseId: 'f1',
      input: { file_path: '/src/f1.ts' },
    });
  });

  it('counts a line with content blocks that are not objects as malformed, like core, and keeps the rest', async () => {
    const file = await writeTranscript('blocks.jsonl', [
      user(['not a block', { type: 'text', text: 'still a prompt' }]),
      assistant('m1', 7_000, [42, toolUse('b1')]),
    ]);
    const { config, events } = spyConfig();
    const report = await buildReport(file, { projectDir: workDir, config });
    expect(report.malformed).toEqual([
      { line: 1, reason: 'user line: 1 content block(s) are not objects' },
      { line: 2, reason: 'assistant line: 1 content block(s) are not objects' },
    ]);
    expect(events.filter((event) => event.point === 'prompt:submit').map((event) => event.payload['prompt'])).toEqual(['still a prompt']);
    // The response still counts: its usage and its tool call.
    expect(report.timeline.map((entry) => [entry.line, entry.contextTokens])).toEqual([[2, 7_000]]);
    expect(report.toolCalls).toBe(1);
  });

  it('sends Stop where a turn ended, as live: not for a turn the user interrupted, and at the end of the file', async () => {
    const file = await writeTranscript('stop.jsonl', [
      user('one'),
      assistant('a1', 1_000, [{ type: 'text', text: 'partial' }]),
      user('[Request interrupted by user]'),
      user('two'),
      assistant('a2', 2_000, [
        { type: 'thinking', thinking: 'hmm', signature: 's' },
        { type: 'text', text: 'the' },
        { type: 'text', text: '' },
      ]),
      assistant('a2', 2_000, [{ type: 'text', text: '' }]),
      assistant('a2', 2_000, [
        { type: 'text', text: 'answer' },
        { type: 'text', text: 'given' },
      ]),
    ]);
    const { config, events } = spyConfig();
    await buildReport(file, { projectDir: workDir, config });
    expect(events.map((event) => event.point)).toEqual(['session:start', 'prompt:submit', 'prompt:submit', 'agent:stop']);
    // The text blocks of the response's lines, empty ones left out, a line apart.
    expect(events[3]!.payload).toMatchObject({ lastMessage: 'the\nanswer\ngiven', stopHookActive: false, contextTokens: 2_000 });
  });

  it('classifies suggestions by the notice structure (the compact action and what it is about), never by wording', async () => {
    const file = await writeTranscript('notices.jsonl', [user('go'), assistant('m1', 5_000, [toolUse('n1')]), toolResult('n1', 'ok')]);
    const report = await buildReport(file, {
      projectDir: workDir,
      config: {
        on: {
          'tool:after': () => ({
            notice: {
              text: 'Wording no rule knows.',
              about: ['capacity'],
              actions: [{ label: 'Compact now', hostAction: 'compact' as const }],
            },
          }),
          'prompt:submit': () => ({ notice: '50 tool calls since the last compaction. Context at 71% (141,369 / 200,000 tokens).' }),
        },
      },
    });
    // A capacity suggestion points at the response that measured the size (line 2).
    expect(report.suggestions).toEqual([
      {
        line: 2,
        eventLine: 3,
        point: 'tool:after',
        kind: 'capacity',
        reason: 'Wording no rule knows. Consider compacting the context now.',
        contextTokens: 5_000,
        contextWindow: null,
        contextWindowAssumed: false,
        toolCalls: 1,
      },
    ]);
    // A plain notice stays a notice, whatever it says.
    expect(report.notices).toEqual([
      { line: 1, point: 'prompt:submit', text: '50 tool calls since the last compaction. Context at 71% (141,369 / 200,000 tokens).' },
    ]);
  });
});

describe('prompts', () => {
  it('sends what the user typed; a recorded slash command as `/name args` with its expansion; a plain `/x` Claude Code did not run carries no command', async () => {
    const file = await writeTranscript('prompts.jsonl', [
      user('<command-name>/compact</command-name>\n<command-message>compact</command-message>\n<command-args></command-args>'),
      user('/babysit  fix the tests '),
      user([
        { type: 'text', text: 'hello' },
        { type: 'text', text: 'there' },
      ]),
      user('<local-command-stdout>ok</local-command-stdout>'),
      user('[Request interrupted by user for tool use]'),
      user('the expanded body of a command', { isMeta: true }),
      user('a summary', { isCompactSummary: true }),
      user('   '),
      { type: 'user', message: { role: 'user', content: 42 } },
    ]);
    const { config, events } = spyConfig();
    const report = await buildReport(file, { projectDir: workDir, config });
    const prompts = events
      .filter((event) => event.point === 'prompt:submit')
      .map((event) => ({ prompt: event.payload['prompt'], command: event.payload['command'] }));
    expect(prompts).toEqual([
      { prompt: '/compact', command: { name: 'compact', args: '' } },
      { prompt: '/babysit  fix the tests ', command: undefined },
      { prompt: 'hello\nthere', command: undefined },
    ]);
    expect(report.prompts).toBe(3);
    expect(report.malformedLines).toBe(1);
  });

  it('names the session after a safe file name only', () => {
    expect(sessionIdFor('/x/ae4a77f8-aedd.jsonl')).toBe('ae4a77f8-aedd');
    expect(sessionIdFor('/x/my session (copy).jsonl')).toBe('replay');
  });
});

describe('plugins when the project has no config', () => {
  it('loads every installed plugin (package.json marker), the project copy first, and names the ones that do not load', async () => {
    const project = path.join(workDir, 'project');
    const pluginDir = path.join(project, 'node_modules', '@hookwise', 'hook-suggest');
    await mkdir(pluginDir, { recursive: true });
    await writeFile(
      path.join(pluginDir, 'package.json'),
      JSON.stringify({
        name: '@hookwise/hook-suggest',
        version: '9.9.9',
        keywords: ['hookwise-plugin'],
        type: 'module',
        exports: './index.js',
      }),
    );
    // Marked as a plugin but with no module to load: named as not loaded, the rest still replays.
    const broken = path.join(project, 'node_modules', 'hook-broken');
    await mkdir(broken, { recursive: true });
    await writeFile(
      path.join(broken, 'package.json'),
      JSON.stringify({ name: 'hook-broken', keywords: ['hookwise-plugin'], type: 'module', exports: './missing.js' }),
    );
    // A stand-in plugin: the marker core recognises, one hook, no import of core.
    await writeFile(
      path.join(pluginDir, 'index.js'),
      `const definition = { meta: { name: '@hookwise/hook-suggest', version: '9.9.9' }, on: { 'tool:after': () => ({ notice: 'fake notice' }) } };
       export default () => ({ [Symbol.for('hookwise.Plugin')]: true, specificationVersion: 'v1', meta: definition.meta, definition, rawOptions: undefined, resolveOptions: () => ({}) });`,
    );
    const { engine, configSource, missingPlugins } = await createReplayEngine({ projectDir: project });
    try {
      expect(configSource).toBe('default');
      // The project's stand-in wins over any copy installed beside the adapter.
      expect(engine.plugins.find((plugin) => plugin.name === '@hookwise/hook-suggest')).toEqual({
        name: '@hookwise/hook-suggest',
        version: '9.9.9',
      });
      // The workspace's plugins come from beside the adapter; the broken one is named.
      expect(engine.plugins.map((plugin) => plugin.name)).toEqual([
        '@hookwise/hook-precompact',
        '@hookwise/hook-prune',
        '@hookwise/hook-suggest',
      ]);
      expect(missingPlugins).toEqual(['hook-broken']);
    } finally {
      await engine.dispose();
    }
    const file = await writeTranscript('default.jsonl', SCRIPT);
    const report = await buildReport(file, { projectDir: project });
    expect(report.config).toBe('default');
    expect(report.notices).toContainEqual({ line: 4, point: 'tool:after', text: 'fake notice' });
  });

  it('uses the config file when the project has one', async () => {
    const project = path.join(workDir, 'configured');
    await mkdir(project, { recursive: true });
    await writeFile(path.join(project, 'hookwise.config.json'), JSON.stringify({ plugins: {} }));
    const { engine, configSource, missingPlugins } = await createReplayEngine({ projectDir: project });
    await engine.dispose();
    expect(configSource).toBe(path.join(project, 'hookwise.config.json'));
    expect(missingPlugins).toEqual([]);
  });
});
