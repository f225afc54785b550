import type { HookEntry, HookFunction, PointName, StateStore } from '@hookwise/core';
import { createMemoryEventLog, createMemoryStateStore, createEngine, silentLogger } from '@hookwise/core/host';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hookwiseHooks } from './agent-sdk.js';

const signal = new AbortController().signal;
const engine = () =>
  createEngine({
    config: {
      on: {
        'tool:after': () => ({ context: 'seen by the model' }),
        'compact:before': () => ({ context: 'keep the rules' }),
        'tool:before': (payload) => (JSON.stringify(payload.input).includes('rm -rf') ? { block: { reason: 'dangerous' } } : undefined),
        'session:end': () => {
          throw new Error('broken hook');
        },
      },
    },
    projectDir: '/work/project',
    host: 'agent-sdk',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
  });

describe('hookwiseHooks (Agent SDK)', () => {
  it('returns one matcher per mapped event, each with one callback', () => {
    const hooks = hookwiseHooks({ engine: engine() });
    expect(Object.keys(hooks).sort()).toEqual([
      'PostCompact',
      'PostToolUse',
      'PostToolUseFailure',
      'PreCompact',
      'PreToolUse',
      'SessionEnd',
      'SessionStart',
      'Stop',
      'SubagentStop',
      'UserPromptExpansion',
      'UserPromptSubmit',
    ]);
    expect(hookwiseHooks({ engine: engine(), events: ['PostToolUse'], timeout: 5 })).toEqual({
      PostToolUse: [{ hooks: [expect.any(Function)], timeout: 5 }],
    });
  });

  it('returns the same JSON a command hook prints', async () => {
    const hooks = hookwiseHooks({ engine: engine() });
    const output = await hooks.PostToolUse![0]!.hooks[0]!(
      {
        hook_event_name: 'PostToolUse',
        session_id: 's1',
        tool_name: 'Bash',
        tool_input: {},
        tool_response: 'x',
        tool_use_id: 't1',
      } as never,
      't1',
      { signal },
    );
    expect(output).toEqual({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'seen by the model' } });
    const denied = await hooks.PreToolUse![0]!.hooks[0]!(
      { hook_event_name: 'PreToolUse', session_id: 's1', tool_name: 'Bash', tool_input: { command: 'rm -rf /' } } as never,
      undefined,
      { signal },
    );
    expect(denied).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'dangerous' },
    });
  });

  it('puts PreCompact instructions in systemMessage, which the SDK feeds to the summarizer', async () => {
    const hooks = hookwiseHooks({ engine: engine() });
    expect(
      await hooks.PreCompact![0]!.hooks[0]!(
        { hook_event_name: 'PreCompact', session_id: 's1', trigger: 'manual', custom_instructions: null } as never,
        undefined,
        { signal },
      ),
    ).toEqual({ systemMessage: 'keep the rules' });
  });

  it('fails open: bad input, hostile ids and broken hooks give {} and a report, never a throw', async () => {
    const errors: string[] = [];
    const hooks = hookwiseHooks({ engine: engine(), onError: (error) => errors.push(String((error as Error).message)) });
    expect(
      await hooks.PostToolUse![0]!.hooks[0]!({ hook_event_name: 'PostToolUse', session_id: 's1' } as never, undefined, { signal }),
    ).toEqual({});
    expect(
      await hooks.PostToolUse![0]!.hooks[0]!(
        { hook_event_name: 'PostToolUse', session_id: '../x', tool_name: 'Bash' } as never,
        undefined,
        { signal },
      ),
    ).toEqual({});
    expect(
      await hooks.SessionEnd![0]!.hooks[0]!({ hook_event_name: 'SessionEnd', session_id: 's1', reason: 'other' } as never, undefined, {
        signal,
      }),
    ).toEqual({});
    expect(errors).toEqual([expect.stringMatching(/invalid PostToolUse input/), expect.stringMatching(/refused session id/)]);
  });

  it('gives up with {} once the SDK aborts the hook, and says so through onError and the event log', async () => {
    const controller = new AbortController();
    controller.abort();
    const built = engine();
    const errors: string[] = [];
    const hooks = hookwiseHooks({ engine: built, onError: (error, event) => errors.push(`${event}: ${(error as Error).message}`) });
    expect(
      await hooks.PostToolUse![0]!.hooks[0]!({ hook_event_name: 'PostToolUse', session_id: 's1', tool_name: 'Bash' } as never, undefined, {
        signal: controller.signal,
      }),
    ).toEqual({});
    expect(errors).toEqual([
      expect.stringMatching(
        /^PostToolUse: the Agent SDK aborted the PostToolUse callback after \d+ ms \(its matcher timeout, or an interrupt\); its output is lost\. hookwise planned for 600 s: /,
      ),
    ]);
    expect((await built.services.eventLog.readAll()).filter((record) => record.pluginName === 'hookwise')).toEqual([
      expect.objectContaining({
        type: 'hook:error',
        sessionId: 's1',
        event: 'PostToolUse',
        point: 'tool:after',
        hookName: 'agent-sdk',
        kind: 'timeout',
      }),
    ]);
  });
});

/** An engine whose hooks record the points they see; `extra` adds tool:after hooks after them. */
function recording(
  extra: Array<HookFunction<'tool:after'> | HookEntry<'tool:after'>> = [],
  stateStore: StateStore = createMemoryStateStore(),
) {
  const seen: Array<{ point: PointName; source?: unknown; command?: unknown }> = [];
  const record = (point: PointName) => (payload: { source?: unknown; command?: unknown }) => {
    seen.push({
      point,
      ...(payload.source !== undefined ? { source: payload.source } : {}),
      ...(payload.command !== undefined ? { command: payload.command } : {}),
    });
  };
  const points: PointName[] = ['session:start', 'prompt:submit', 'tool:before', 'tool:after', 'phase:end'];
  const built = createEngine({
    config: {
      on: Object.fromEntries(points.map((point) => [point, point === 'tool:after' ? [record(point), ...extra] : record(point)])),
    },
    projectDir: '/work/project',
    host: 'agent-sdk',
    stateStore,
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
  });
  return { built, seen };
}

const call = (
  hooks: ReturnType<typeof hookwiseHooks>,
  event: keyof ReturnType<typeof hookwiseHooks>,
  input: Record<string, unknown>,
  abort: AbortSignal = signal,
) => hooks[event]![0]!.hooks[0]!({ hook_event_name: event, session_id: 's1', ...input } as never, undefined, { signal: abort });

describe('what the SDK does not deliver', () => {
  it('emits session:start (startup) on the first callback of a session, once', async () => {
    const { built, seen } = recording();
    const hooks = hookwiseHooks({ engine: built });
    await call(hooks, 'UserPromptSubmit', { prompt: 'hello' });
    await call(hooks, 'PreToolUse', { tool_name: 'Bash', tool_input: {} });
    expect(seen.map((entry) => entry.point)).toEqual(['session:start', 'prompt:submit', 'tool:before']);
    expect(seen[0]).toEqual({ point: 'session:start', source: 'startup' });
    expect(await built.lastSessionId()).toBe('s1');
  });

  it('emits session:start (resume) for a session an earlier binding already started', async () => {
    const stateStore = createMemoryStateStore();
    await call(hookwiseHooks({ engine: recording([], stateStore).built }), 'UserPromptSubmit', { prompt: 'first process' });
    const { built, seen } = recording([], stateStore);
    await call(hookwiseHooks({ engine: built }), 'UserPromptSubmit', { prompt: 'after resume' });
    expect(seen[0]).toEqual({ point: 'session:start', source: 'resume' });
  });

  it('does not add a session:start before a delivered SessionStart (compact)', async () => {
    const { built, seen } = recording();
    await call(hookwiseHooks({ engine: built }), 'SessionStart', { source: 'compact' });
    expect(seen).toEqual([{ point: 'session:start', source: 'compact' }]);
  });

  it('runs prompt:submit once for a slash command (UserPromptSubmit + UserPromptExpansion), with the command', async () => {
    const { built, seen } = recording();
    const hooks = hookwiseHooks({ engine: built });
    await call(hooks, 'UserPromptSubmit', { prompt: '/babysit the build' });
    await call(hooks, 'UserPromptExpansion', {
      expansion_type: 'slash_command',
      command_name: 'babysit',
      command_args: 'the build',
      command_source: 'projectSettings',
      prompt: '/babysit the build',
    });
    expect(seen.filter((entry) => entry.point === 'prompt:submit')).toEqual([
      { point: 'prompt:submit', command: { name: 'babysit', args: 'the build' } },
    ]);
  });

  it('ignores compaction\'s SubagentStop (agent_type "")', async () => {
    const { built, seen } = recording();
    await call(hookwiseHooks({ engine: built }), 'SubagentStop', {
      agent_id: 'a1',
      agent_type: '',
      stop_hook_active: false,
      last_assistant_message: '<summary>S</summary>',
    });
    expect(seen.map((entry) => entry.point)).toEqual(['session:start']);
  });
});

describe('deadlines', () => {
  it('does not wait past the deadline for a config that loads slowly; the next callback uses it', async () => {
    const projectDir = mkdtempSync(path.join(os.tmpdir(), 'hookwise-sdk-slow-config-'));
    try {
      writeFileSync(
        path.join(projectDir, 'hookwise.config.mjs'),
        'await new Promise((resolve) => setTimeout(resolve, 600));\nexport default { on: {} };\n',
      );
      const errors: string[] = [];
      const hooks = hookwiseHooks({ projectDir, timeout: 0.5, onError: (error) => errors.push((error as Error).message) });
      expect(await call(hooks, 'PostToolUse', { tool_name: 'Bash', tool_input: {}, tool_response: 'ok' })).toEqual({});
      expect(errors).toEqual([
        expect.stringMatching(/^the config and plugins were still loading after \d+ ms; PostToolUse ran without hooks$/),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(await call(hooks, 'PostToolUse', { tool_name: 'Bash', tool_input: {}, tool_response: 'ok' })).toEqual({});
      expect(errors).toHaveLength(1);
    } finally {
      rmSync(projectDir, { recursive: true, force: true });
    }
  });

  it('returns the outputs of hooks that finished when one outlives the deadline, and reports the cut', async () => {
    const quick: HookFunction<'tool:after'> = () => ({ notice: 'Consider /compact' });
    const sleeper: HookEntry<'tool:after'> = {
      name: 'sleeper',
      handler: (_payload, context) => new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve())),
    };
    const { built } = recording([quick, sleeper]);
    const errors: string[] = [];
    // 0.5 s matcher timeout: hookwise stops waiting at 250 ms.
    const hooks = hookwiseHooks({ engine: built, timeout: 0.5, onError: (error) => errors.push((error as Error).message) });
    const sdk = new AbortController();
    const sdkTimer = setTimeout(() => sdk.abort(), 500);
    const output = await call(hooks, 'PostToolUse', { tool_name: 'Bash', tool_input: {}, tool_response: 'ok' }, sdk.signal);
    clearTimeout(sdkTimer);
    expect(sdk.signal.aborted).toBe(false);
    expect(output).toEqual({ systemMessage: 'Consider /compact' });
    expect(errors).toEqual([
      expect.stringMatching(
        /^stopped waiting after \d+ ms, before the SDK's 0.5 s matcher timeout; returned what finished; cut: config › sleeper$/,
      ),
    ]);
    expect((await built.services.eventLog.readAll()).filter((record) => record.type === 'hook:error')).toEqual([
      expect.objectContaining({ hookName: 'sleeper', kind: 'timeout', point: 'tool:after' }),
    ]);
  });
});
