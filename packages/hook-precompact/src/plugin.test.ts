import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PointPayload } from '@hookwise/core';
import { createEngine, createMemoryEventLog, createMemoryLogger, createMemoryStateStore } from '@hookwise/core/host';
import { defaultTokenCounter } from '@hookwise/core/plugin';
import { parseSlashCommand } from '@hookwise/core/messages';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extractCompactSummary } from './compact-summary.js';
import { precompact } from './plugin.js';
import type { PrecompactOptionsInput } from './options.js';

const fixtures = fileURLToPath(new URL('../../../fixtures/', import.meta.url));
const agileflowFolder = path.join(fixtures, 'agileflow-commands');
const ledgerFile = path.join(fixtures, 'roo-intent-trace/tedoaba-roo-code/agent_trace.jsonl');
const compactAgentTranscript = path.join(
  fixtures,
  'claude-code-transcripts/marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-acompact-946d2b.jsonl',
);

let root: string;
let projectDir: string;
let homeDir: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'hookwise-precompact-plugin-'));
  projectDir = path.join(root, 'project');
  homeDir = path.join(root, 'home');
  mkdirSync(path.join(projectDir, '.claude/commands'), { recursive: true });
  mkdirSync(homeDir);
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

/** An engine with the plugin, in-memory state and log, a fixed clock, and AgileFlow's commands on the search path. */
function setup(options: PrecompactOptionsInput = {}) {
  const stateStore = createMemoryStateStore();
  const eventLog = createMemoryEventLog();
  const logger = createMemoryLogger();
  const seenAfterCompact: Array<PointPayload<'compact:after'>> = [];
  let now = Date.parse('2026-03-01T10:00:00Z');
  const engine = createEngine({
    config: {
      plugins: [
        precompact({
          homeDir,
          ...options,
          commands:
            options.commands === false
              ? false
              : {
                  searchPath: ['.claude/commands', '~/.claude/commands', { path: agileflowFolder, namespace: 'agileflow' }],
                  ...options.commands,
                },
        }),
      ],
      on: { 'compact:after': (payload) => void seenAfterCompact.push(payload) },
    },
    projectDir,
    host: 'test',
    stateStore,
    eventLog,
    logger,
    clock: { now: () => now },
  });
  const advance = (milliseconds: number) => {
    now += milliseconds;
  };
  const emit = engine.emit.bind(engine);
  const events = async (type: string) => (await eventLog.readAll()).filter((record) => record.type === type);
  return { engine, emit, stateStore, eventLog, logger, events, seenAfterCompact, advance };
}

const session = { sessionId: 'session-1' };
/** A prompt as a host reports it: with `command` when the host ran a slash command. */
const prompt = (text: string) => {
  const command = parseSlashCommand(text);
  return { ...session, prompt: text, ...(command ? { command } : {}) };
};

describe('active command summaries', () => {
  it('registers slash commands from prompts and preserves AgileFlow fixture summaries within the budget', async () => {
    const { emit, seenAfterCompact } = setup();
    await emit('session:start', { ...session, source: 'startup' });
    for (const text of [
      '/agileflow:ci',
      '/agileflow:sprint',
      '/agileflow:story:list EPIC=EP-1',
      '/agileflow:research:ask TOPIC=x',
      '/agileflow:babysit MODE=loop',
      '/compact',
    ]) {
      expect((await emit('prompt:submit', prompt(text))).errors).toEqual([]);
    }
    const before = await emit('compact:before', { ...session, trigger: 'manual' });
    expect(before.errors).toEqual([]);
    const block = before.context!;
    // research:ask is output-only; /compact is built in (no file), so neither is active.
    expect(before.preserved).toEqual(['/agileflow:ci', '/agileflow:sprint', '/agileflow:story:list', '/agileflow:babysit']);
    expect(block.length).toBeLessThanOrEqual(8_000);
    expect(block).toContain('## ACTIVE COMMAND: /agileflow:story:list\nArguments: EPIC=EP-1\n');
    expect(block).toContain(extractCompactSummary(readFileSync(path.join(agileflowFolder, 'story/list.md'), 'utf8'))!);
    expect(block).not.toContain('research:ask IS ACTIVE');
    expect(block).toContain('## ⚠️ COMPACT SUMMARY - /agileflow:ci-setup IS ACTIVE');
    expect(block).toMatch(/\[… summary cut: \d+ of 13395 characters kept; read the full text in .*babysit\.md\]/);
    console.log(`preserved block, 4 AgileFlow commands: ${block.length} characters (budget 8,000)`);

    // compact:after hands the same block back, and the engine passes the labels on.
    const after = await emit('compact:after', { ...session, trigger: 'manual' });
    expect(after.context).toBe(block);
    expect(seenAfterCompact[0]?.preserved).toEqual(before.preserved);
  });

  it('compact:after rebuilds instead of handing back a block older than 600 s', async () => {
    // Each compaction is its own compact:before / compact:after pair: the engine drops a second
    // report of one compaction, so the block's age is tested on separate compactions.
    for (const [elapsed, handedBack] of [
      [599_000, true],
      [601_000, false],
    ] as const) {
      const { emit, engine, advance } = setup();
      await engine.runCommand('command activate', ['agileflow:story:list'], session);
      const before = await emit('compact:before', { ...session, trigger: 'auto' });
      // Deactivated meanwhile: a rebuilt block would be empty, a handed-back one is the old block.
      await engine.runCommand('command deactivate', ['agileflow:story:list'], session);
      advance(elapsed);
      expect((await emit('compact:after', { ...session })).context).toBe(handedBack ? before.context : undefined);
    }
  });

  it.each([
    ['ci', 4_598],
    ['sprint', 4_516],
    ['story:list', 504],
  ])('/agileflow:%s alone is preserved whole (%i characters of summary)', async (name, length) => {
    const { emit, engine } = setup();
    await engine.runCommand('command activate', [`agileflow:${name}`], session);
    const before = await emit('compact:before', { ...session, trigger: 'auto' });
    const summary = extractCompactSummary(readFileSync(path.join(agileflowFolder, `${name.replace(':', '/')}.md`), 'utf8'))!;
    expect(summary).toHaveLength(length);
    expect(before.context).toContain(summary);
    expect(before.context).not.toContain('summary cut');
  });

  it('babysit alone is cut at the budget, with the marker and the path', async () => {
    const { emit, engine } = setup({ budgetChars: 5_000 });
    await engine.runCommand('command activate', ['agileflow:babysit'], session);
    const before = await emit('compact:before', { ...session, trigger: 'auto' });
    expect(before.context!.length).toBeLessThanOrEqual(5_000);
    expect(before.context!.length).toBeGreaterThan(4_500);
    expect(before.context).toContain(`read the full text in ${path.join(agileflowFolder, 'babysit.md')}]`);
  });

  it('session:start startup and clear empty the list; resume and compact keep it', async () => {
    const { emit, engine } = setup();
    const list = () => engine.runCommand('command list', [], session);
    await engine.runCommand('command activate', ['agileflow:babysit'], session);
    for (const source of ['resume', 'compact'] as const) {
      await emit('session:start', { ...session, source });
      expect(await list()).toContain('/agileflow:babysit');
    }
    for (const source of ['clear', 'startup'] as const) {
      await engine.runCommand('command activate', ['agileflow:babysit'], session);
      await emit('session:start', { ...session, source });
      expect(await list()).toBe('No active commands in session session-1.');
    }
  });

  it('commands: activate with arguments, list, deactivate; the default session is the last one started', async () => {
    const { emit, engine } = setup();
    await emit('session:start', { ...session, source: 'startup' });
    expect(await engine.runCommand('command activate', ['/agileflow:story:list', 'EPIC=EP-1', 'STATUS=ready'], {})).toMatch(
      /^\/agileflow:story:list is active \(found .*story\/list\.md\)/,
    );
    expect(await engine.runCommand('command list', [], {})).toMatch(
      /^\/agileflow:story:list EPIC=EP-1 STATUS=ready — since 2026-03-01T10:00:00.000Z \(api\) — .*story\/list\.md$/,
    );
    expect(await engine.runCommand('command deactivate', ['agileflow:story:list'], {})).toBe('/agileflow:story:list is no longer active.');
    await expect(engine.runCommand('command activate', [], {})).rejects.toThrow(/missing command name/);
    await expect(engine.runCommand('command activate', ['../etc/passwd'], {})).rejects.toThrow(/refused command name/);
  });

  it('a missing file and a file without markers are reported, not fatal', async () => {
    writeFileSync(path.join(projectDir, '.claude/commands/plain.md'), '# no markers here');
    const { emit, engine, events } = setup();
    expect(await engine.runCommand('command activate', ['ghost'], session)).toMatch(/warning: no file for \/ghost/);
    await engine.runCommand('command activate', ['plain'], session);
    await engine.runCommand('command activate', ['agileflow:story:list'], session);
    const before = await emit('compact:before', { ...session, trigger: 'auto' });
    expect(before.errors).toEqual([]);
    expect(before.preserved).toEqual(['/agileflow:story:list']);
    expect(before.notice).toMatch(/\/ghost: no command file/);
    expect(before.notice).toMatch(/\/plain: .*plain\.md has no <!-- COMPACT_SUMMARY_START -->/);
    expect((await events('precompact:preserved'))[0]).toMatchObject({
      labels: ['/agileflow:story:list'],
      problems: [expect.stringMatching(/ghost/), expect.stringMatching(/plain/)],
    });
  });

  it('hostile names from prompts are refused and reported, never looked up', async () => {
    writeFileSync(path.join(root, 'secret.md'), '<!-- COMPACT_SUMMARY_START -->\nSECRET\n<!-- COMPACT_SUMMARY_END -->');
    symlinkSync(path.join(root, 'secret.md'), path.join(projectDir, '.claude/commands/leak.md'));
    const { emit, engine, events } = setup();
    // Core's parser reads no command from `/../etc/passwd` (nor `/usr/bin/x`); a host may still pass such a name.
    expect((await emit('prompt:submit', prompt('/usr/bin/env ls'))).errors).toEqual([]);
    expect(
      (await emit('prompt:submit', { ...session, prompt: '/../etc/passwd', command: { name: '../etc/passwd', args: '' } })).errors,
    ).toEqual([]);
    expect((await emit('prompt:submit', prompt('/leak'))).errors).toEqual([]);
    expect(await engine.runCommand('command list', [], session)).toBe('No active commands in session session-1.');
    const refused = await events('precompact:command-refused');
    expect(refused.map((record) => record.name)).toEqual(['../etc/passwd', 'leak']);
    expect(refused[1]?.reason).toMatch(/symbolic link/);

    // Activated by a script, the symlinked command is still refused at compaction, and its text never leaks.
    await engine.runCommand('command activate', ['leak'], session);
    const before = await emit('compact:before', { ...session, trigger: 'auto' });
    expect(before.context ?? '').not.toContain('SECRET');
    expect(before.notice).toMatch(/symbolic link/);
  });

  it('the host-parsed command of prompt:submit is used when given', async () => {
    const { emit, engine } = setup();
    await emit('prompt:submit', { ...session, prompt: 'expanded text', command: { name: '/agileflow:babysit', args: 'MODE=loop' } });
    expect(await engine.runCommand('command list', [], session)).toMatch(/^\/agileflow:babysit MODE=loop/);
  });

  it('a prompt that only looks like a command the host did not run registers nothing', async () => {
    const { emit, engine } = setup();
    await emit('prompt:submit', { ...session, prompt: '/agileflow:babysit MODE=loop' });
    expect(await engine.runCommand('command list', [], session)).toBe('No active commands in session session-1.');
  });

  it('~ in the search path is the home given in the options', async () => {
    mkdirSync(path.join(homeDir, '.claude/commands'), { recursive: true });
    writeFileSync(path.join(homeDir, '.claude/commands/mine.md'), '<!-- COMPACT_SUMMARY_START -->\nmy rules\n<!-- COMPACT_SUMMARY_END -->');
    const { emit } = setup();
    await emit('prompt:submit', prompt('/mine'));
    expect((await emit('compact:before', { ...session, trigger: 'auto' })).context).toContain(
      `## ACTIVE COMMAND: /mine\nSource: ${path.join(homeDir, '.claude/commands/mine.md')}\n\nmy rules`,
    );
  });
});

describe('AgileFlow drop-in', () => {
  const writeState = (state: unknown) => {
    mkdirSync(path.join(projectDir, 'docs/09-agents'), { recursive: true });
    writeFileSync(path.join(projectDir, 'docs/09-agents/session-state.json'), `${JSON.stringify(state, null, 2)}\n`);
  };

  it("reads active_commands, skips output-only, de-duplicates with hookwise's list, and leaves last_precompact_at", async () => {
    writeState({
      active_commands: [
        { name: 'babysit', type: 'interactive' },
        { name: 'story:list' },
        { name: 'research/ask', type: 'output-only' },
        { name: 'research:ask' },
      ],
    });
    const { emit } = setup({ commands: { agileflow: true } });
    await emit('prompt:submit', prompt('/agileflow:babysit'));
    const before = await emit('compact:before', { ...session, trigger: 'auto' });
    expect(before.errors).toEqual([]);
    expect(before.preserved).toEqual(['/agileflow:babysit', '/agileflow:story:list']);
    expect(before.context!.match(/## ACTIVE COMMAND: \/agileflow:babysit/g)).toHaveLength(1);
    const state = JSON.parse(readFileSync(path.join(projectDir, 'docs/09-agents/session-state.json'), 'utf8'));
    expect(state.last_precompact_at).toBe('2026-03-01T10:00:00.000Z');
    expect(state.active_commands).toHaveLength(4);
  });

  it('without agileflow: true the file is neither read nor written', async () => {
    writeState({ active_commands: [{ name: 'babysit' }] });
    const { emit } = setup();
    expect((await emit('compact:before', { ...session, trigger: 'auto' })).context).toBeUndefined();
    expect(JSON.parse(readFileSync(path.join(projectDir, 'docs/09-agents/session-state.json'), 'utf8')).last_precompact_at).toBeUndefined();
  });
});

describe('intent summary', () => {
  const withLedger = () => {
    mkdirSync(path.join(projectDir, '.orchestration'));
    copyFileSync(ledgerFile, path.join(projectDir, '.orchestration/agent_trace.jsonl'));
  };
  const llm = (extra: Record<string, unknown> = {}) => ({ ...session, systemPrompt: 'You are Roo.', messages: [], ...extra });

  it('llm:before returns the selected intent summary as context, leaving value alone; the payload intentId wins', async () => {
    withLedger();
    const { emit, engine } = setup();
    expect(await engine.runCommand('intent select', ['REQ-WEATHER-API-002'], session)).toBe('Active intent: REQ-WEATHER-API-002');
    const selected = await emit('llm:before', llm());
    expect(selected.errors).toEqual([]);
    expect(selected.value).toBeUndefined();
    expect(selected.context).toContain('## ACTIVE INTENT: REQ-WEATHER-API-002 — last 20 of 35 actions');
    expect(selected.context).toContain('Results: 11 succeeded, 6 failed (6 denied), 3 with warnings');
    const fromHost = await emit('llm:before', llm({ intentId: 'REQ-WEATHER-API-001' }));
    expect(fromHost.context).toContain('## ACTIVE INTENT: REQ-WEATHER-API-001 — last 20 of 41 actions');
    expect(fromHost.context).toContain('Results: 16 succeeded, 2 failed, 2 with warnings');
    expect(await engine.runCommand('intent show', [], session)).toBe(selected.context);
  });

  it('no intent, an unknown intent, or one under the threshold: nothing and no error', async () => {
    withLedger();
    const { emit, engine } = setup();
    const none = await emit('llm:before', llm());
    expect(none.context).toBeUndefined();
    expect(none.errors).toEqual([]);
    expect((await emit('llm:before', llm({ intentId: 'REQ-UNKNOWN' }))).context).toBeUndefined();
    const strict = setup({ intent: { threshold: 36 } });
    expect((await strict.emit('llm:before', llm({ intentId: 'REQ-WEATHER-API-002' }))).context).toBeUndefined();
    expect(await strict.engine.runCommand('intent show', ['REQ-WEATHER-API-002'], session)).toBe(
      'Intent REQ-WEATHER-API-002: 35 entries; a summary starts at 36.',
    );
    await engine.runCommand('intent select', ['REQ-WEATHER-API-001'], session);
    await engine.runCommand('intent clear', [], session);
    expect((await emit('llm:before', llm())).context).toBeUndefined();
  });

  it('records its own trace on tool:after for the selected intent and summarises from 20 entries', async () => {
    const { emit, engine } = setup();
    await engine.runCommand('intent select', ['REQ-LOCAL-1'], session);
    for (let index = 0; index < 19; index++) {
      const edit = index % 2 === 0;
      await emit('tool:after', {
        ...session,
        toolName: edit ? 'Edit' : 'Read',
        input: { file_path: path.join(projectDir, `src/file-${index % 4}.ts`) },
        output: '',
        ok: index !== 4,
      });
    }
    expect((await emit('llm:before', llm())).context).toBeUndefined();
    await emit('tool:after', { ...session, toolName: 'Bash', input: { command: 'npm test' }, output: '', ok: true });
    const summary = (await emit('llm:before', llm())).context!;
    expect(summary).toContain('## ACTIVE INTENT: REQ-LOCAL-1 — last 20 of 20 actions');
    expect(summary).toContain('Tool use: Edit ×10, Read ×9, Bash ×1');
    // Edits hit file-0 and file-2 (even indexes); the failed edit (index 4, file-0) is covered by later successes.
    expect(summary).toContain('Files changed: src/file-0.ts, src/file-2.ts');
    expect(summary).toContain('Results: 19 succeeded, 1 failed');
    expect(summary).toContain('1. 2026-03-01 10:00:00Z Edit src/file-0.ts [write] → SUCCESS');
  });

  it('on compact:before the intent joins the commands, labelled, and the total stays under the budget', async () => {
    withLedger();
    const { emit, engine } = setup();
    await engine.runCommand('intent select', ['REQ-WEATHER-API-002'], session);
    await engine.runCommand('command activate', ['agileflow:story:list'], session);
    await engine.runCommand('command activate', ['agileflow:babysit'], session);
    const before = await emit('compact:before', { ...session, trigger: 'auto' });
    expect(before.preserved).toEqual(['/agileflow:story:list', '/agileflow:babysit', 'intent REQ-WEATHER-API-002']);
    expect(before.context!.length).toBeLessThanOrEqual(8_000);
    expect(before.context).toContain('Files changed: main.py, tests/__init__.py, tests/test_weather.py');
    expect((await emit('compact:after', { ...session })).context).toBe(before.context);
    console.log(`preserved block, story:list + babysit + intent REQ-WEATHER-API-002: ${before.context!.length} characters (budget 8,000)`);
  });

  it('a tool call under an intent id that cannot name a trace is reported, and the agent goes on', async () => {
    const { emit, events } = setup();
    const outcome = await emit('tool:after', {
      ...session,
      toolName: 'Edit',
      input: { file_path: 'a.py' },
      output: 'ok',
      ok: true,
      intentId: '../escape',
    } as never);
    expect(outcome.errors).toEqual([]);
    expect(await events('precompact:error')).toMatchObject([{ what: 'recording the intent trace', sessionId: session.sessionId }]);
  });

  it('a ledger path that escapes the project is refused, reported, and the agent goes on', async () => {
    const { emit, events } = setup({ intent: { ledgerPath: '../outside.jsonl' } });
    const outcome = await emit('llm:before', llm({ intentId: 'REQ-1' }));
    expect(outcome.errors).toEqual([]);
    expect(outcome.context).toBeUndefined();
    expect((await events('precompact:error'))[0]?.message).toMatch(/resolves outside/);
  });
});

describe('phase hand-off summary', () => {
  it('replaces the output with a bounded summary, remembers the task, and logs sizes', async () => {
    const { emit, events } = setup();
    const request = JSON.stringify({
      task_id: 'T-3',
      phase: 'research',
      context: { feature: 'otel-tracing', spec_path: 'specs/otel/requirements.md' },
    });
    const first = await emit('phase:end', {
      ...session,
      output: 'Findings:\n- hooks need traceparent headers\nDecision: PROCEED',
      request,
    });
    expect(first.value).toBe(
      '- task_id: T-3\n- feature: otel-tracing\n- spec_path: specs/otel/requirements.md\n- phase: research\n- decision: PROCEED\n- hooks need traceparent headers',
    );
    // The next hand-off carries no request: the task comes from session state.
    const second = await emit('phase:end', { ...session, output: 'All 297 tests pass.', phase: 'validate' });
    expect(second.value).toBe(
      '- task_id: T-3\n- feature: otel-tracing\n- spec_path: specs/otel/requirements.md\n- phase: validate\n- All 297 tests pass.',
    );
    const logged = await events('precompact:handoff');
    expect(logged).toHaveLength(2);
    expect(logged[1]).toMatchObject({
      taskId: 'T-3',
      phase: 'validate',
      source: 'derived',
      charsBefore: 19,
      charsAfter: second.value!.length,
    });
  });

  it('a real sub-agent answer (the compaction agent of a recorded session) fits in 500 tokens', async () => {
    const lines = readFileSync(compactAgentTranscript, 'utf8').trim().split('\n');
    const answer = (JSON.parse(lines[1]!) as { message: { content: Array<{ text: string }> } }).message.content[0]!.text;
    const { emit, events } = setup();
    const outcome = await emit('phase:end', { ...session, output: answer, taskId: 'spotter-4te.3', phase: 'compact' });
    const summary = outcome.value!;
    expect(defaultTokenCounter.count(summary)).toBeLessThanOrEqual(500);
    expect(summary.startsWith('- task_id: spotter-4te.3\n- phase: compact\n')).toBe(true);
    // The <analysis> block is the agent's intermediate reasoning.
    expect(summary).not.toContain('Let me chronologically analyze');
    const [logged] = await events('precompact:handoff');
    console.log(
      `hand-off summary of the compaction agent's answer: ${logged?.charsBefore} chars / ${logged?.tokensBefore} tokens → ${logged?.charsAfter} chars / ${logged?.tokensAfter} tokens`,
    );
    expect(logged?.tokensBefore).toBeGreaterThan(3_000);
  });

  it('handoff: false leaves phase:end alone', async () => {
    const { emit } = setup({ handoff: false });
    expect((await emit('phase:end', { ...session, output: 'raw' })).value).toBeUndefined();
  });
});

describe('options', () => {
  it('invalid options fail when the engine is built, naming the plugin', () => {
    expect(() =>
      createEngine({
        config: { plugins: [precompact({ budgetChars: 999 })] },
        projectDir: '/tmp',
        host: 'test',
        stateStore: createMemoryStateStore(),
        eventLog: createMemoryEventLog(),
      }),
    ).toThrow(/@hookwise\/hook-precompact.*budgetChars/s);
    expect(() =>
      createEngine({
        config: { plugins: [precompact({ intent: { treshold: 3 } } as unknown as PrecompactOptionsInput)] },
        projectDir: '/tmp',
        host: 'test',
        stateStore: createMemoryStateStore(),
        eventLog: createMemoryEventLog(),
      }),
    ).toThrow(/treshold/);
  });
});
