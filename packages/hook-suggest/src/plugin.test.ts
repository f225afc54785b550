import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { HookMap, StateStore } from '@hookwise/core';
import {
  createEngine,
  createFileStateStore,
  createMemoryEventLog,
  createMemoryLogger,
  createMemoryStateStore,
  silentLogger,
} from '@hookwise/core/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { suggest, type SuggestOptionsInput, type SuggestPluginState } from './index.js';
import { emitAsClaudeCode } from './__fixtures__/replay.js';

const NAMESPACE = '@hookwise/hook-suggest';
let projectDir: string;
beforeEach(async () => {
  projectDir = await mkdtemp(path.join(tmpdir(), 'hw-suggest-plugin-'));
});
afterEach(async () => {
  await rm(projectDir, { recursive: true, force: true });
});

function setup(
  options: {
    plugin?: SuggestOptionsInput;
    host?: string;
    on?: HookMap;
    stateStore?: StateStore;
    now?: () => number;
    ephemeral?: boolean;
  } = {},
) {
  let now = Date.parse('2026-02-12T14:48:36.000Z');
  const clock = { now: options.now ?? (() => now) };
  const eventLog = createMemoryEventLog({ clock: () => new Date(clock.now()) });
  const logger = createMemoryLogger();
  const stateStore = options.stateStore ?? createMemoryStateStore();
  const engine = createEngine({
    config: { plugins: [suggest(options.plugin)], ...(options.on ? { on: options.on } : {}) },
    projectDir,
    host: options.host ?? 'vscode',
    stateStore,
    eventLog,
    logger,
    clock,
    ...(options.ephemeral ? { ephemeral: true } : {}),
  });
  return { engine, eventLog, logger, stateStore, advance: (ms: number) => (now += ms) };
}

const toolAfter = (extra: Record<string, unknown> = {}) => ({
  sessionId: 's1',
  toolName: 'Read',
  input: { file_path: 'a.ts' },
  output: 'text',
  ok: true,
  ...extra,
});
const state = (stateStore: StateStore, sessionId = 's1') => stateStore.read<SuggestPluginState>(sessionId, NAMESPACE);

async function logLines(relative: string): Promise<Array<Record<string, unknown>>> {
  const text = await readFile(path.join(projectDir, relative), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

async function writeTranscript(lines: unknown[]): Promise<string> {
  const file = path.join(projectDir, 'transcript.jsonl');
  await writeFile(file, lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
  return file;
}
const assistantLine = (tokens: number, uuid = 'a1') => ({
  type: 'assistant',
  uuid,
  isSidechain: false,
  message: {
    id: `msg_${uuid}`,
    model: 'claude-opus-4-6',
    content: [{ type: 'tool_use', id: `toolu_${uuid}`, name: 'Bash', input: {} }],
    usage: { input_tokens: 10, cache_read_input_tokens: tokens - 110, cache_creation_input_tokens: 100 },
  },
});
const boundaryLine = (metadata: Record<string, unknown>, uuid = 'b1') => ({
  type: 'system',
  subtype: 'compact_boundary',
  uuid,
  content: 'Conversation compacted',
  compactMetadata: metadata,
});

describe('counting tool calls', () => {
  it('counts every tool call exactly under concurrent hooks on a file state store, and suggests once', async () => {
    const stateStore = createFileStateStore({ directory: path.join(projectDir, '.hookwise'), logger: silentLogger });
    const { engine } = setup({ plugin: { toolCalls: 10 }, stateStore });
    const tools = ['Read', 'Edit', 'Write', 'Bash', 'Grep', 'mcp__github__search'];
    const outcomes = await Promise.all(
      Array.from({ length: 24 }, (_, index) => engine.emit('tool:after', toolAfter({ toolName: tools[index % tools.length] }))),
    );
    expect(outcomes.flatMap((outcome) => outcome.errors)).toEqual([]);
    expect((await state(stateStore))?.policy).toMatchObject({ toolCalls: 24, toolCallsSinceCompaction: 24, nextToolCallSuggestion: 35 });
    const notices = outcomes.map((outcome) => outcome.notice).filter(Boolean);
    expect(notices).toEqual([
      '10 tool calls since the last compaction. Consider compacting the context now. (hookwise suggest dismiss: quiet until 70%)',
    ]);
  });

  it('keeps counting when the transcript cannot be read', async () => {
    const { engine, stateStore } = setup({ host: 'claude-code' });
    const outcome = await emitAsClaudeCode(engine, 'tool:after', toolAfter({ transcriptPath: path.join(projectDir, 'not-there.jsonl') }));
    expect(outcome).toMatchObject({ errors: [], hooksRun: 1 });
    expect(outcome.notice).toBeUndefined();
    expect((await state(stateStore))?.policy.toolCalls).toBe(1);
  });

  it('starts afresh from a state document it does not recognise', async () => {
    const { engine, stateStore } = setup();
    await stateStore.update(`s1`, NAMESPACE, () => ({ policy: 'garbage', model: 42 }));
    await engine.emit('tool:after', toolAfter());
    expect((await state(stateStore))?.policy).toMatchObject({ toolCalls: 1, nextToolCallSuggestion: 50 });
  });
});

describe('what a suggestion says in structure', () => {
  it('says what it is about in the notice and the event record, and offers its own dismiss command', async () => {
    const { engine, eventLog } = setup({ plugin: { toolCalls: 2 } });
    await engine.emit('tool:after', toolAfter());
    const byCount = await engine.emit('tool:after', toolAfter());
    expect(byCount.notices).toEqual([
      expect.objectContaining({
        about: ['tool-calls'],
        statement: '2 tool calls since the last compaction.',
        pluginName: '@hookwise/hook-suggest',
        actions: [
          { label: 'Compact now', hostAction: 'compact' },
          { label: 'Dismiss', command: 'suggest dismiss', note: 'quiet until 70%' },
        ],
      }),
    ]);
    const byCapacity = await engine.emit('tool:after', toolAfter({ contextTokens: 150_000 }));
    expect(byCapacity.notices.map((notice) => notice.about)).toEqual([['capacity']]);
    expect((await eventLog.readAll()).filter((record) => record.type === 'suggest:compact').map((record) => record['kind'])).toEqual([
      'tool-calls',
      'capacity',
    ]);
    // The action's command is one the host can run as it is.
    const dismiss = byCount.notices[0]!.actions.find((action) => 'command' in action);
    expect(dismiss && 'command' in dismiss && engine.commands().some((command) => command.name === dismiss.command)).toBe(true);
  });

  it('names both causes when both fire at once', async () => {
    const { engine } = setup({ plugin: { toolCalls: 1 } });
    expect((await engine.emit('tool:after', toolAfter({ contextTokens: 150_000 }))).notices.map((notice) => notice.about)).toEqual([
      ['capacity', 'tool-calls'],
    ]);
  });
});

describe('capacity suggestions from the host figure', () => {
  it('notify at each band, never block, and record each suggestion in the event log', async () => {
    const { engine, eventLog } = setup();
    const seen: Array<string | undefined> = [];
    for (const [point, contextTokens] of [
      ['tool:after', 130_000],
      ['tool:after', 141_000],
      ['prompt:submit', 150_000],
      ['agent:stop', 161_000],
      ['tool:after', 170_000],
    ] as const) {
      const payload =
        point === 'tool:after'
          ? toolAfter({ contextTokens })
          : point === 'prompt:submit'
            ? { sessionId: 's1', prompt: 'go on', contextTokens }
            : { sessionId: 's1', contextTokens };
      const outcome = await engine.emit(point, payload as never);
      expect(outcome.block).toBeUndefined();
      expect(outcome.errors).toEqual([]);
      seen.push(outcome.notice);
    }
    expect(seen).toEqual([
      undefined,
      'Context at 141,000 tokens. Consider compacting the context now. (hookwise suggest dismiss: quiet until 80%)',
      undefined,
      'Context at 161,000 tokens. Consider compacting the context now. (hookwise suggest dismiss: quiet until 90%)',
      undefined,
    ]);
    const records = (await eventLog.readAll()).filter((record) => record.type === 'suggest:compact');
    expect(records.map((record) => [record.point, (record.capacity as { band: number }).band])).toEqual([
      ['tool:after', 70],
      ['agent:stop', 80],
    ]);
  });

  it('uses the window the host reports, the model from session:start, and the option over both', async () => {
    const fromHost = setup();
    expect((await fromHost.engine.emit('tool:after', toolAfter({ contextTokens: 90_000, contextWindow: 128_000 }))).notice).toContain(
      'Context at 70% (90,000 / 128,000 tokens)',
    );

    const fromModel = setup();
    await fromModel.engine.emit('session:start', { sessionId: 's1', source: 'startup', model: 'claude-sonnet-4-5[1m]' });
    expect((await fromModel.engine.emit('tool:after', toolAfter({ contextTokens: 600_000 }))).notice).toBeUndefined();
    expect((await fromModel.engine.emit('tool:after', toolAfter({ contextTokens: 700_000 }))).notice).toContain(
      '(700,000 / 1,000,000 tokens)',
    );

    const fromOption = setup({ plugin: { contextWindow: 100_000, capacityPercent: 50 } });
    expect((await fromOption.engine.emit('tool:after', toolAfter({ contextTokens: 50_000, contextWindow: 1_000_000 }))).notice).toContain(
      'Context at 50% (50,000 / 100,000 tokens)',
    );
  });

  it('states no window nobody confirmed: a default window gives the size in tokens, and the outcome names the window used', async () => {
    const { engine } = setup();
    const outcome = await engine.emit('tool:after', toolAfter({ contextTokens: 145_000 }));
    expect(outcome.notices.map((notice) => notice.statement)).toEqual(['Context at 145,000 tokens.']);
    expect(outcome.measurements).toEqual({ contextWindow: 200_000, contextWindowAssumed: 1 });
    // A model id without `[1m]` confirms nothing: transcripts name 1M sessions' models that way too.
    const named = setup();
    await named.engine.emit('session:start', { sessionId: 's1', source: 'startup', model: 'claude-opus-4-6' });
    expect((await named.engine.emit('tool:after', toolAfter({ contextTokens: 145_000 }))).notices[0]!.statement).toBe(
      'Context at 145,000 tokens.',
    );
  });

  it('remembers a window confirmed by a context above 200k, through a compaction', async () => {
    const { engine, stateStore } = setup();
    await engine.emit('tool:after', toolAfter({ contextTokens: 250_000 }));
    expect((await state(stateStore))?.confirmedWindow).toBe(1_000_000);
    await engine.emit('compact:before', { sessionId: 's1', trigger: 'manual', contextTokens: 300_000 });
    await engine.emit('compact:after', { sessionId: 's1', trigger: 'manual', tokensAfter: 30_000 });
    // 145k after the compaction is 14.5 % of the session's 1M window: no capacity band reached.
    expect((await engine.emit('tool:after', toolAfter({ contextTokens: 145_000 }))).notice).toBeUndefined();
    const high = await engine.emit('tool:after', toolAfter({ contextTokens: 710_000 }));
    expect(high.notices.map((notice) => notice.statement)).toEqual(['Context at 71% (710,000 / 1,000,000 tokens).']);
    expect(high.measurements).toEqual({ contextWindow: 1_000_000, contextWindowAssumed: 0 });
  });

  it('reads the size from the transcript under Claude Code, wording the suggestion as on every host', async () => {
    const { engine } = setup({ host: 'claude-code' });
    const transcriptPath = await writeTranscript([assistantLine(145_000)]);
    const outcome = await emitAsClaudeCode(engine, 'tool:after', toolAfter({ transcriptPath }));
    expect(outcome.notice).toBe(
      'Context at 145,000 tokens. Consider compacting the context now. (hookwise suggest dismiss: quiet until 80%)',
    );
    expect(outcome.notices.map((notice) => notice.statement)).toEqual(['Context at 145,000 tokens.']);
  });
});

describe('commands', () => {
  it('suggest dismiss silences suggestions until the next band', async () => {
    const { engine } = setup({ plugin: { toolCalls: 3, toolCallStep: 2 } });
    await engine.emit('session:start', { sessionId: 's1', source: 'startup' });
    expect((await engine.emit('tool:after', toolAfter({ contextTokens: 145_000 }))).notice).toContain('Context at 145,000 tokens');
    expect(await engine.runCommand('suggest dismiss', [])).toBe(
      'Compaction suggestions dismissed until the context reaches 80% (or the next compaction).',
    );
    const quiet = [];
    for (const contextTokens of [146_000, 150_000, 155_000, 158_000])
      quiet.push((await engine.emit('tool:after', toolAfter({ contextTokens }))).notice);
    expect(quiet).toEqual([undefined, undefined, undefined, undefined]); // passes 3 and 5 tool calls, stays under 80 %
    expect((await engine.emit('tool:after', toolAfter({ contextTokens: 160_000 }))).notice).toBe(
      'Context at 160,000 tokens. 6 tool calls since the last compaction. Consider compacting the context now. (hookwise suggest dismiss: quiet until 90%)',
    );
  });

  it('suggest dismiss without a measured size waits for more tool calls, and names the session it applies to', async () => {
    const { engine } = setup();
    await engine.emit('session:start', { sessionId: 'first', source: 'startup' });
    await engine.emit('session:start', { sessionId: 's1', source: 'startup' });
    expect(await engine.runCommand('suggest dismiss', [], { sessionId: 'first' })).toBe(
      'Compaction suggestions dismissed for 25 tool calls (context size not known yet), or until the next compaction.',
    );
    const status = await engine.runCommand('suggest status', []);
    expect(status.split('\n')).toEqual([
      'Session s1',
      'Tool calls: 0 in the session, 0 since the last compaction (next suggestion at 50).',
      'Context: size not measured since the last compaction.',
      'Capacity bands: 70, 80, 90%; suggested so far: none.',
      'Compactions: 0; log: .hookwise/logs/compaction.jsonl.',
    ]);
    expect(await engine.runCommand('suggest status', [], { sessionId: 'first' })).toContain('Dismissed until 25 tool calls.');
    expect(engine.commands().map((command) => command.name)).toEqual(['suggest dismiss', 'suggest status']);
  });
});

describe('compaction events', () => {
  it('record sizes, give later hooks the sizes as measurements, log one line and tell the user what was kept', async () => {
    const seenByUser: Array<Record<string, unknown>> = [];
    const userHooks: HookMap = {
      'compact:before': (payload, context) => {
        seenByUser.push({ point: 'before', contextTokens: context.measurements['contextTokens'], payload: payload.contextTokens });
        return { preserved: ['/babysit', 'intent REQ-WEATHER-API-001'] };
      },
      'compact:after': (payload, context) => {
        const { tokensBefore, tokensAfter } = context.measurements;
        seenByUser.push({
          point: 'after',
          tokensBefore,
          tokensAfter,
          payload: [payload.tokensBefore, payload.tokensAfter],
          preserved: payload.preserved,
        });
      },
    };
    const { engine, advance, stateStore } = setup({ on: userHooks });
    for (let index = 0; index < 12; index++) await engine.emit('tool:after', toolAfter({ contextTokens: 150_000 }));
    const before = await engine.emit('compact:before', { sessionId: 's1', trigger: 'auto', contextTokens: 150_000 });
    expect(before).toMatchObject({ errors: [], preserved: ['/babysit', 'intent REQ-WEATHER-API-001'] });
    expect(before.block).toBeUndefined();
    expect(before.context).toBeUndefined(); // PreCompact stdout would become summary instructions
    advance(42_000);
    const after = await engine.emit('compact:after', { sessionId: 's1', trigger: 'auto', tokensAfter: 40_000 });
    expect(after.notice).toBe(
      'Context compacted (auto) at 2026-02-12 14:49:18 UTC: 150,000 → 40,000 tokens (−73.3%). hookwise preserved: /babysit, intent REQ-WEATHER-API-001.',
    );
    expect(seenByUser).toEqual([
      { point: 'before', contextTokens: 150_000, payload: 150_000 },
      // The payload stays as the host sent it: the size before comes from compact:before.
      {
        point: 'after',
        tokensBefore: 150_000,
        tokensAfter: 40_000,
        payload: [undefined, 40_000],
        preserved: ['/babysit', 'intent REQ-WEATHER-API-001'],
      },
    ]);
    const lines = await logLines('.hookwise/logs/compaction.jsonl');
    expect(lines).toEqual([
      {
        time: '2026-02-12T14:49:18.000Z',
        type: 'compaction',
        sessionId: 's1',
        host: 'vscode',
        compaction: 1,
        trigger: 'auto',
        startedAt: '2026-02-12T14:48:36.000Z',
        completedAt: '2026-02-12T14:49:18.000Z',
        tokensBefore: 150_000,
        tokensBeforeSource: 'host',
        tokensAfter: 40_000,
        tokensAfterSource: 'host',
        reductionPercent: 73.3,
        contextWindow: 200_000,
        toolCallsSinceLastCompaction: 12,
        toolCallsTotal: 12,
        preserved: ['/babysit', 'intent REQ-WEATHER-API-001'],
      },
    ]);
    // Everything re-armed: the 70 % band and the 50-call count start over.
    expect((await state(stateStore))?.policy).toMatchObject({
      toolCalls: 12,
      toolCallsSinceCompaction: 0,
      capacityBandHandled: null,
      compactions: 1,
    });
    expect((await engine.emit('tool:after', toolAfter({ contextTokens: 141_000 }))).notice).toContain('Context at 141,000 tokens');
  });

  it('under Claude Code takes preTokens from the compact boundary and the size after from the next turn', async () => {
    const sizes: unknown[] = [];
    const userHooks: HookMap = {
      'compact:before': (_payload, context) => void sizes.push(context.measurements['contextTokens']),
      'compact:after': (_payload, context) => void sizes.push([context.measurements['tokensBefore'], context.measurements['tokensAfter']]),
    };
    const { engine } = setup({ host: 'claude-code', on: userHooks });
    const first = assistantLine(141_787, 'a1');
    const transcriptPath = await writeTranscript([first]);
    await emitAsClaudeCode(engine, 'compact:before', { sessionId: 's1', trigger: 'manual', transcriptPath });
    await writeTranscript([
      first,
      boundaryLine({ trigger: 'manual', preTokens: 142_431 }),
      { type: 'user', isCompactSummary: true, message: { role: 'user', content: 'This session is being continued…' } },
    ]);
    const after = await emitAsClaudeCode(engine, 'compact:after', { sessionId: 's1', transcriptPath });
    expect(after.notice).toBe(
      'Context compacted (manual) at 2026-02-12 14:48:36 UTC: 142,431 tokens before; size after not known yet. hookwise preserved: nothing (no hookwise plugin registered anything to keep).',
    );
    expect(sizes).toEqual([141_787, [142_431, undefined]]);
    // No new turn yet: the transcript's last usage is the old context, so nothing is measured.
    expect(
      (await emitAsClaudeCode(engine, 'prompt:submit', { sessionId: 's1', prompt: 'continue', transcriptPath })).notice,
    ).toBeUndefined();
    await writeTranscript([first, boundaryLine({ trigger: 'manual', preTokens: 142_431 }), assistantLine(45_263, 'a2')]);
    await emitAsClaudeCode(engine, 'tool:after', toolAfter({ transcriptPath }));
    await emitAsClaudeCode(engine, 'tool:after', toolAfter({ transcriptPath }));
    const lines = await logLines('.hookwise/logs/compaction.jsonl');
    expect(lines.map(({ time: _time, ...rest }) => rest)).toEqual([
      expect.objectContaining({
        type: 'compaction',
        trigger: 'manual',
        tokensBefore: 142_431,
        tokensBeforeSource: 'compact-boundary',
        tokensAfter: null,
        tokensAfterSource: null,
        boundaryUuid: 'b1',
      }),
      {
        type: 'compaction:size-after',
        sessionId: 's1',
        compaction: 1,
        tokensBefore: 142_431,
        tokensAfter: 45_263,
        tokensAfterSource: 'next-measurement',
        reductionPercent: 68.2,
      },
    ]);
  });

  it('logs one compaction reported twice (SessionStart compact and PostCompact) once', async () => {
    const { engine, advance } = setup({ host: 'claude-code' });
    const transcriptPath = await writeTranscript([
      assistantLine(150_000),
      boundaryLine({ trigger: 'auto', preTokens: 150_500, postTokens: 30_100 }),
    ]);
    await emitAsClaudeCode(engine, 'compact:before', { sessionId: 's1', trigger: 'auto', transcriptPath });
    const notices = [(await emitAsClaudeCode(engine, 'compact:after', { sessionId: 's1', trigger: 'auto', transcriptPath })).notice];
    advance(5_000);
    notices.push((await emitAsClaudeCode(engine, 'compact:after', { sessionId: 's1', trigger: 'auto', transcriptPath })).notice);
    notices.push((await engine.emit('compact:after', { sessionId: 's1', trigger: 'auto' })).notice); // no transcript: caught by time
    expect(notices).toEqual([
      'Context compacted (auto) at 2026-02-12 14:48:36 UTC: 150,500 → 30,100 tokens (−80%). hookwise preserved: nothing (no hookwise plugin registered anything to keep).',
      undefined,
      undefined,
    ]);
    expect(await logLines('.hookwise/logs/compaction.jsonl')).toHaveLength(1);

    // A later compaction with a new boundary is a new one, even without compact:before.
    advance(10 * 60_000);
    await writeTranscript([
      assistantLine(150_000),
      boundaryLine({ trigger: 'auto', preTokens: 150_500 }),
      assistantLine(160_000, 'a2'),
      boundaryLine({ trigger: 'auto', preTokens: 161_000 }, 'b2'),
    ]);
    expect((await emitAsClaudeCode(engine, 'compact:after', { sessionId: 's1', transcriptPath })).notice).toContain(
      '161,000 tokens before',
    );
    expect((await logLines('.hookwise/logs/compaction.jsonl')).map((line) => [line.compaction, line.startedAt, line.boundaryUuid])).toEqual(
      [
        [1, '2026-02-12T14:48:36.000Z', 'b1'],
        [2, null, 'b2'],
      ],
    );
  });

  it('does not lend an abandoned compact:before to a much later compaction', async () => {
    const { engine, advance } = setup();
    await engine.emit('compact:before', { sessionId: 's1', trigger: 'manual', contextTokens: 150_000 }); // blocked elsewhere, never completed
    advance(2 * 60 * 60_000);
    await engine.emit('compact:after', { sessionId: 's1', trigger: 'auto', tokensBefore: 170_000, tokensAfter: 20_000 });
    expect(await logLines('.hookwise/logs/compaction.jsonl')).toEqual([
      expect.objectContaining({ startedAt: null, tokensBefore: 170_000, trigger: 'auto' }),
    ]);
  });

  it('logs without a notice when compactionNotice is off, at the configured path', async () => {
    const { engine } = setup({ plugin: { compactionNotice: false, logPath: 'logs/compactions.jsonl' } });
    const outcome = await engine.emit('compact:after', { sessionId: 's1', trigger: 'manual', tokensBefore: 100, tokensAfter: 50 });
    expect(outcome.notice).toBeUndefined();
    expect(await logLines('logs/compactions.jsonl')).toEqual([expect.objectContaining({ type: 'compaction', reductionPercent: 50 })]);
  });

  it('writes no file when the engine is ephemeral (a replay): compactions go to the event log', async () => {
    const { engine, eventLog } = setup({ host: 'replay', ephemeral: true });
    await engine.emit('compact:after', { sessionId: 's1', trigger: 'manual', tokensBefore: 100, tokensAfter: 50 });
    expect((await eventLog.readAll()).filter((record) => record.type === 'compaction')).toHaveLength(1);
    expect(existsSync(path.join(projectDir, '.hookwise', 'logs', 'compaction.jsonl'))).toBe(false);
  });

  it('writes its log for any host name when the engine is not ephemeral (no host name is special)', async () => {
    const { engine } = setup({ host: 'replay', plugin: { logPath: 'logs/any-host.jsonl' } });
    await engine.emit('compact:after', { sessionId: 's1', trigger: 'manual', tokensBefore: 100, tokensAfter: 50 });
    expect(await logLines('logs/any-host.jsonl')).toHaveLength(1);
  });

  it('refuses a log path that leaves the project and logs to the event log instead', async () => {
    const { engine, eventLog, logger } = setup({ plugin: { logPath: '../outside.jsonl' } });
    await engine.emit('compact:after', { sessionId: 's1', trigger: 'manual', tokensBefore: 100, tokensAfter: 50 });
    expect((await eventLog.readAll()).filter((record) => record.type === 'compaction')).toHaveLength(1);
    expect(logger.lines.join('\n')).toContain('compaction log path refused');
  });
});

describe('setup', () => {
  it('rejects invalid options with an error naming the plugin', () => {
    expect(() => setup({ plugin: { capacityPercent: 120 } })).toThrow(/@hookwise\/hook-suggest[\s\S]*capacityPercent/);
  });

  it('re-arms when the context is cleared', async () => {
    const { engine, stateStore } = setup();
    for (let index = 0; index < 5; index++) await engine.emit('tool:after', toolAfter({ contextTokens: 150_000 }));
    await engine.emit('session:start', { sessionId: 's1', source: 'clear' });
    expect((await state(stateStore))?.policy).toMatchObject({
      toolCalls: 5,
      toolCallsSinceCompaction: 0,
      capacityBandHandled: null,
      compactions: 0,
    });
  });
});
