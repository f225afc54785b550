import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { definePlugin, points, type HookMap, type PointName, type StateStore } from '@hookwise/core';
import { createEngine, createMemoryEventLog, createMemoryStateStore, silentLogger, type Engine } from '@hookwise/core/host';
import { afterEach, describe, expect, it } from 'vitest';
import { ADAPTER_NAMESPACE, dispatchEvent, replaceAgentOutput } from './binding.js';
import { inputSchemas, type AnyHookInput, type MappedEvent } from './events.js';

const base = { session_id: 'session-1', transcript_path: '/tmp/transcript.jsonl', cwd: '/work/project' };

interface Recorded {
  point: PointName;
  payload: Record<string, unknown>;
}

/** An engine whose one hook set records every payload and returns what `outcomes` says. */
function recordingEngine(
  outcomes: Partial<Record<PointName, unknown>> = {},
  stateStore: StateStore = createMemoryStateStore(),
): { engine: Engine; calls: Recorded[] } {
  const calls: Recorded[] = [];
  const on = Object.fromEntries(
    (Object.keys(points) as PointName[]).map((point) => [
      point,
      (payload: Record<string, unknown>) => {
        calls.push({ point, payload });
        return outcomes[point];
      },
    ]),
  ) as HookMap;
  const engine = createEngine({
    config: { on },
    projectDir: '/work/project',
    host: 'claude-code',
    stateStore,
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
  });
  return { engine, calls };
}

async function dispatch(event: MappedEvent, input: Record<string, unknown>, outcomes: Partial<Record<PointName, unknown>> = {}) {
  const { engine, calls } = recordingEngine(outcomes);
  const parsed = inputSchemas[event].parse({ ...base, hook_event_name: event, ...input }) as AnyHookInput;
  const result = await dispatchEvent(engine, event, parsed);
  return { result, calls, engine };
}

describe('events in → lifecycle points', () => {
  it('SessionStart → session:start with source and model', async () => {
    const { calls } = await dispatch('SessionStart', { source: 'startup', model: 'claude-sonnet-4-5[1m]' });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({
      point: 'session:start',
      payload: {
        sessionId: 'session-1',
        source: 'startup',
        model: 'claude-sonnet-4-5[1m]',
        cwd: '/work/project',
        transcriptPath: '/tmp/transcript.jsonl',
        host: 'claude-code',
      },
    });
  });

  it.each([
    ['fork', 'resume'],
    ['resume', 'resume'],
    ['clear', 'clear'],
    ['something-new', 'startup'],
  ])('SessionStart source %s → %s', async (source, expected) => {
    const { calls } = await dispatch('SessionStart', { source });
    expect(calls[0]?.payload.source).toBe(expected);
  });

  it('SessionStart(source=compact) → session:start and compact:after, with the trigger seen at PreCompact', async () => {
    const stateStore = createMemoryStateStore();
    const { engine, calls } = recordingEngine({}, stateStore);
    await dispatchEvent(
      engine,
      'PreCompact',
      inputSchemas.PreCompact.parse({ ...base, trigger: 'manual', custom_instructions: null }) as AnyHookInput,
    );
    await dispatchEvent(engine, 'SessionStart', inputSchemas.SessionStart.parse({ ...base, source: 'compact' }) as AnyHookInput);
    expect(calls.map((call) => call.point)).toEqual(['compact:before', 'session:start', 'compact:after']);
    expect(calls[2]?.payload).toMatchObject({ trigger: 'manual' });
  });

  it('reports one compaction once when both SessionStart(compact) and PostCompact fire', async () => {
    const { engine, calls } = recordingEngine();
    await dispatchEvent(engine, 'PreCompact', inputSchemas.PreCompact.parse({ ...base, trigger: 'auto' }) as AnyHookInput);
    await dispatchEvent(engine, 'SessionStart', inputSchemas.SessionStart.parse({ ...base, source: 'compact' }) as AnyHookInput);
    await dispatchEvent(
      engine,
      'PostCompact',
      inputSchemas.PostCompact.parse({ ...base, trigger: 'auto', compact_summary: 'sum' }) as AnyHookInput,
    );
    expect(calls.filter((call) => call.point === 'compact:after')).toHaveLength(1);
    // The next compaction is reported again.
    await dispatchEvent(engine, 'PreCompact', inputSchemas.PreCompact.parse({ ...base, trigger: 'auto' }) as AnyHookInput);
    await dispatchEvent(
      engine,
      'PostCompact',
      inputSchemas.PostCompact.parse({ ...base, trigger: 'auto', compact_summary: 'sum 2' }) as AnyHookInput,
    );
    const after = calls.filter((call) => call.point === 'compact:after');
    expect(after).toHaveLength(2);
    expect(after[1]?.payload).toMatchObject({ trigger: 'auto', summary: 'sum 2' });
  });

  it('UserPromptSubmit → prompt:submit, never with a command (Claude Code has not run one yet)', async () => {
    const plain = await dispatch('UserPromptSubmit', { prompt: 'fix the bug in /src/app.ts' });
    expect(plain.calls).toMatchObject([{ point: 'prompt:submit', payload: { prompt: 'fix the bug in /src/app.ts' } }]);
    expect(plain.calls[0]?.payload.command).toBeUndefined();
  });

  it('a path is no slash command (core parses): the prompt is not held back', async () => {
    const { calls } = await dispatch('UserPromptSubmit', { prompt: '/usr/bin/env ls' });
    expect(calls).toMatchObject([{ point: 'prompt:submit', payload: { prompt: '/usr/bin/env ls' } }]);
  });

  it('a slash command Claude Code ran: one prompt:submit, on UserPromptExpansion, with the command', async () => {
    const { engine, calls } = recordingEngine();
    const submit = await dispatchEvent(
      engine,
      'UserPromptSubmit',
      inputSchemas.UserPromptSubmit.parse({ ...base, prompt: '/agileflow:babysit MODE=loop now' }) as AnyHookInput,
    );
    expect(calls).toEqual([]);
    expect(submit.rendered).toEqual({ kind: 'none' });
    await dispatchEvent(
      engine,
      'UserPromptExpansion',
      inputSchemas.UserPromptExpansion.parse({
        ...base,
        command_name: 'agileflow:babysit',
        command_args: 'MODE=loop now',
        expansion_type: 'slash_command',
        prompt: '/agileflow:babysit MODE=loop now',
      }) as AnyHookInput,
    );
    await dispatchEvent(engine, 'PreToolUse', inputSchemas.PreToolUse.parse({ ...base, tool_name: 'Bash' }) as AnyHookInput);
    expect(calls.map((call) => call.point)).toEqual(['prompt:submit', 'tool:before']);
    expect(calls[0]?.payload).toMatchObject({
      prompt: '/agileflow:babysit MODE=loop now',
      command: { name: 'agileflow:babysit', args: 'MODE=loop now' },
    });
  });

  it('a slash prompt Claude Code did not expand (no such command loaded): one prompt:submit without a command, on the next event', async () => {
    const { engine, calls } = recordingEngine({ 'prompt:submit': { notice: 'prompt seen', context: 'too late for this' } });
    await dispatchEvent(
      engine,
      'UserPromptSubmit',
      inputSchemas.UserPromptSubmit.parse({ ...base, prompt: '/babysit watch' }) as AnyHookInput,
    );
    const stop = await dispatchEvent(engine, 'Stop', inputSchemas.Stop.parse({ ...base, stop_hook_active: false }) as AnyHookInput);
    expect(calls.map((call) => call.point)).toEqual(['prompt:submit', 'agent:stop']);
    expect(calls[0]?.payload).toMatchObject({ prompt: '/babysit watch' });
    expect(calls[0]?.payload.command).toBeUndefined();
    // Only the notice: context on Stop would make Claude continue a turn the prompt did not ask for.
    expect(stop.rendered).toEqual({ kind: 'json', value: { systemMessage: 'prompt seen' } });
    // Taken once.
    await dispatchEvent(engine, 'Stop', inputSchemas.Stop.parse({ ...base, stop_hook_active: false }) as AnyHookInput);
    expect(calls.filter((call) => call.point === 'prompt:submit')).toHaveLength(1);
  });

  it('a held slash prompt is emitted before the next prompt when nothing else happened in between', async () => {
    const { engine, calls } = recordingEngine();
    await dispatchEvent(engine, 'UserPromptSubmit', inputSchemas.UserPromptSubmit.parse({ ...base, prompt: '/nosuch' }) as AnyHookInput);
    await dispatchEvent(engine, 'UserPromptSubmit', inputSchemas.UserPromptSubmit.parse({ ...base, prompt: 'then this' }) as AnyHookInput);
    expect(calls.map((call) => call.payload.prompt)).toEqual(['/nosuch', 'then this']);
  });

  it('UserPromptExpansion alone → prompt:submit with the command', async () => {
    const { calls } = await dispatch('UserPromptExpansion', {
      command_name: 'babysit',
      command_args: 'watch',
      expansion_type: 'slash_command',
    });
    expect(calls[0]).toMatchObject({
      point: 'prompt:submit',
      payload: { prompt: '/babysit watch', command: { name: 'babysit', args: 'watch' } },
    });
  });

  it('startSession: session:start first, for a session whose SessionStart the host never delivered', async () => {
    const { engine, calls } = recordingEngine({
      'session:start': { context: 'from session:start' },
      'prompt:submit': { context: 'from the prompt' },
    });
    const result = await dispatchEvent(
      engine,
      'UserPromptSubmit',
      inputSchemas.UserPromptSubmit.parse({ ...base, prompt: 'hello' }) as AnyHookInput,
      { startSession: 'startup' },
    );
    expect(calls.map((call) => [call.point, call.payload.source])).toEqual([
      ['session:start', 'startup'],
      ['prompt:submit', undefined],
    ]);
    expect(result.rendered).toMatchObject({
      value: { hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'from session:start\n\nfrom the prompt' } },
    });
    expect(await engine.lastSessionId()).toBe('session-1');
  });

  it('PreToolUse → tool:before', async () => {
    const { calls } = await dispatch('PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_1' });
    expect(calls[0]).toMatchObject({ point: 'tool:before', payload: { toolName: 'Bash', input: { command: 'ls' }, toolUseId: 'toolu_1' } });
  });

  it('PostToolUse → tool:after (ok)', async () => {
    const { calls } = await dispatch('PostToolUse', {
      tool_name: 'Read',
      tool_input: { file_path: '/a' },
      tool_response: { file: { content: 'x' } },
      tool_use_id: 'toolu_2',
      duration_ms: 12,
    });
    expect(calls[0]).toMatchObject({
      point: 'tool:after',
      payload: {
        toolName: 'Read',
        input: { file_path: '/a' },
        output: { file: { content: 'x' } },
        ok: true,
        toolUseId: 'toolu_2',
        durationMs: 12,
      },
    });
  });

  it('PostToolUseFailure → tool:after (not ok) with the error', async () => {
    const { calls } = await dispatch('PostToolUseFailure', { tool_name: 'Bash', tool_input: {}, error: 'exit 1' });
    expect(calls[0]).toMatchObject({ point: 'tool:after', payload: { ok: false, error: 'exit 1', output: 'exit 1' } });
  });

  it('PreCompact → compact:before; null and empty instructions are alike', async () => {
    const withText = await dispatch('PreCompact', { trigger: 'manual', custom_instructions: 'focus on tests' });
    expect(withText.calls[0]).toMatchObject({ point: 'compact:before', payload: { trigger: 'manual', instructions: 'focus on tests' } });
    const withNull = await dispatch('PreCompact', { trigger: 'auto', custom_instructions: null });
    expect(withNull.calls[0]?.payload.instructions).toBeUndefined();
    const withEmpty = await dispatch('PreCompact', { trigger: 'auto', custom_instructions: '' });
    expect(withEmpty.calls[0]?.payload.instructions).toBeUndefined();
  });

  it('Stop → agent:stop; SessionEnd → session:end', async () => {
    const stop = await dispatch('Stop', { stop_hook_active: false, last_assistant_message: 'All done.' });
    expect(stop.calls[0]).toMatchObject({ point: 'agent:stop', payload: { lastMessage: 'All done.', stopHookActive: false } });
    const end = await dispatch('SessionEnd', { reason: 'prompt_input_exit' });
    expect(end.calls[0]).toMatchObject({ point: 'session:end', payload: { reason: 'prompt_input_exit' } });
  });

  it('passes the model remembered from SessionStart to later events', async () => {
    const { engine, calls } = recordingEngine();
    await dispatchEvent(
      engine,
      'SessionStart',
      inputSchemas.SessionStart.parse({ ...base, source: 'startup', model: 'claude-opus-4[1m]' }) as AnyHookInput,
    );
    await dispatchEvent(engine, 'PostToolUse', inputSchemas.PostToolUse.parse({ ...base, tool_name: 'Bash' }) as AnyHookInput);
    expect(calls[1]?.payload.model).toBe('claude-opus-4[1m]');
  });
});

describe('outcomes out', () => {
  it('SessionStart(compact): contexts of session:start and compact:after are joined', async () => {
    const { result } = await dispatch(
      'SessionStart',
      { source: 'compact' },
      { 'session:start': { context: 'A' }, 'compact:after': { context: 'B', notice: 'compacted' } },
    );
    expect(result.rendered).toEqual({
      kind: 'json',
      value: { systemMessage: 'compacted', hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'A\n\nB' } },
    });
  });

  it('a plugin block on PreToolUse becomes a deny', async () => {
    const { result } = await dispatch(
      'PreToolUse',
      { tool_name: 'Bash', tool_input: {} },
      { 'tool:before': { block: { reason: 'not allowed' } } },
    );
    expect(result.rendered).toMatchObject({
      value: { hookSpecificOutput: { permissionDecision: 'deny', permissionDecisionReason: 'not allowed' } },
    });
  });

  it('a tool:after value replaces the output on PostToolUse (updatedToolOutput), in the shape the hook gave', async () => {
    const trimmed = { stdout: 'head\n[… cut]\ntail', stderr: '', interrupted: false };
    const { result } = await dispatch(
      'PostToolUse',
      { tool_name: 'Bash', tool_input: { command: 'seq 1 5000' }, tool_response: { stdout: 'long', stderr: '', interrupted: false } },
      { 'tool:after': { value: trimmed } },
    );
    expect(result.rendered).toEqual({
      kind: 'json',
      value: { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: trimmed } },
    });
    const untouched = await dispatch('PostToolUse', { tool_name: 'Bash', tool_input: {}, tool_response: 'x' });
    expect(untouched.result.rendered).toEqual({ kind: 'none' });
  });

  it('PreCompact context becomes plain text', async () => {
    const { result } = await dispatch('PreCompact', { trigger: 'manual' }, { 'compact:before': { context: 'keep /babysit' } });
    expect(result.rendered).toEqual({ kind: 'text', value: 'keep /babysit' });
  });

  it('Stop context is dropped once a Stop hook already made Claude continue (no loop)', async () => {
    const first = await dispatch('Stop', { stop_hook_active: false }, { 'agent:stop': { context: 'one more thing' } });
    expect(first.result.rendered).toMatchObject({
      value: { hookSpecificOutput: { hookEventName: 'Stop', additionalContext: 'one more thing' } },
    });
    const again = await dispatch('Stop', { stop_hook_active: true }, { 'agent:stop': { context: 'one more thing' } });
    expect(again.result.rendered).toEqual({ kind: 'none' });
  });

  it('a hook that throws is reported and the event still renders the others', async () => {
    const engine = createEngine({
      config: {
        on: {
          'tool:after': [
            {
              handler: () => {
                throw new Error('boom');
              },
              name: 'boom',
            },
            () => ({ context: 'still here' }),
          ],
        },
      },
      projectDir: '/work/project',
      host: 'claude-code',
      stateStore: createMemoryStateStore(),
      eventLog: createMemoryEventLog(),
      logger: silentLogger,
    });
    const result = await dispatchEvent(
      engine,
      'PostToolUse',
      inputSchemas.PostToolUse.parse({ ...base, tool_name: 'Bash' }) as AnyHookInput,
    );
    expect(result.errors).toEqual([expect.objectContaining({ hookName: 'boom', message: 'boom' })]);
    expect(result.rendered).toMatchObject({ value: { hookSpecificOutput: { additionalContext: 'still here' } } });
  });
});

describe('sub-agent hand-off', () => {
  const agentResponse = {
    agentId: 'agent-7',
    agentType: 'Explore',
    content: [{ type: 'text', text: 'a very long report …' }],
    totalToolUseCount: 4,
  };

  it('SubagentStop → phase:end; the new output replaces the Agent tool output on PostToolUse (updatedToolOutput)', async () => {
    const stateStore = createMemoryStateStore();
    const { engine, calls } = recordingEngine({ 'phase:end': { value: 'context_summary: PROCEED', context: 'hand-off kept' } }, stateStore);
    const stop = await dispatchEvent(
      engine,
      'SubagentStop',
      inputSchemas.SubagentStop.parse({
        ...base,
        agent_id: 'agent-7',
        agent_type: 'Explore',
        agent_transcript_path: '/tmp/agent.jsonl',
        last_assistant_message: 'a very long report …',
        stop_hook_active: false,
      }) as AnyHookInput,
    );
    expect(calls[0]).toMatchObject({
      point: 'phase:end',
      payload: {
        output: 'a very long report …',
        taskId: 'agent-7',
        phase: 'Explore',
        agentType: 'Explore',
        agentTranscriptPath: '/tmp/agent.jsonl',
      },
    });
    // Nothing goes to the sub-agent itself.
    expect(stop.rendered).toEqual({ kind: 'none' });

    const post = await dispatchEvent(
      engine,
      'PostToolUse',
      inputSchemas.PostToolUse.parse({
        ...base,
        tool_name: 'Agent',
        tool_input: { prompt: 'explore' },
        tool_response: agentResponse,
      }) as AnyHookInput,
    );
    expect(post.rendered).toEqual({
      kind: 'json',
      value: {
        hookSpecificOutput: {
          hookEventName: 'PostToolUse',
          additionalContext: 'hand-off kept',
          updatedToolOutput: { ...agentResponse, content: [{ type: 'text', text: 'context_summary: PROCEED' }] },
        },
      },
    });
    // Consumed once.
    const again = await dispatchEvent(
      engine,
      'PostToolUse',
      inputSchemas.PostToolUse.parse({ ...base, tool_name: 'Agent', tool_response: agentResponse }) as AnyHookInput,
    );
    expect(again.rendered).toEqual({ kind: 'none' });
    expect((await stateStore.read<{ handoffs?: object }>('session-1', ADAPTER_NAMESPACE))?.handoffs).toEqual({});
  });

  it('SubagentStop of compaction (empty agent_type, Claude Code 2.1.330) is no phase: no phase:end, no hand-off', async () => {
    const stateStore = createMemoryStateStore();
    const { engine, calls } = recordingEngine({ 'phase:end': { value: 'summary', context: 'hand-off' } }, stateStore);
    const stop = await dispatchEvent(
      engine,
      'SubagentStop',
      inputSchemas.SubagentStop.parse({
        ...base,
        agent_id: 'ad44b50373bdb47d6',
        agent_type: '',
        last_assistant_message: '<summary>S</summary>',
        stop_hook_active: false,
      }) as AnyHookInput,
    );
    expect(calls).toEqual([]);
    expect(stop.rendered).toEqual({ kind: 'none' });
    expect((await stateStore.read<{ handoffs?: object }>('session-1', ADAPTER_NAMESPACE))?.handoffs).toBeUndefined();
  });

  it('leaves the Agent output alone when no plugin changed the hand-off', async () => {
    const { engine } = recordingEngine();
    await dispatchEvent(
      engine,
      'SubagentStop',
      inputSchemas.SubagentStop.parse({ ...base, agent_id: 'agent-7', last_assistant_message: 'report' }) as AnyHookInput,
    );
    const post = await dispatchEvent(
      engine,
      'PostToolUse',
      inputSchemas.PostToolUse.parse({ ...base, tool_name: 'Agent', tool_response: agentResponse }) as AnyHookInput,
    );
    expect(post.rendered).toEqual({ kind: 'none' });
  });

  it('replaceAgentOutput keeps the shape, or falls back to the text', () => {
    expect(replaceAgentOutput(agentResponse, 'S')).toEqual({ ...agentResponse, content: [{ type: 'text', text: 'S' }] });
    expect(replaceAgentOutput('plain', 'S')).toBe('S');
  });
});

describe('adapter state', () => {
  /** A memory store that counts reads of the adapter's namespace and can make them fail. */
  function countingStore(failReads = false): { store: StateStore; reads: () => number } {
    const inner = createMemoryStateStore();
    let reads = 0;
    const store: StateStore = {
      read: async (sessionId, namespace) => {
        if (namespace === ADAPTER_NAMESPACE) {
          reads++;
          if (failReads) throw new Error('planted link');
        }
        return inner.read(sessionId, namespace);
      },
      update: (sessionId, namespace, fn) => inner.update(sessionId, namespace, fn),
      clear: (sessionId, namespace) => inner.clear(sessionId, namespace),
    };
    return { store, reads: () => reads };
  }

  it('is read once per event, however many points it emits, and again after the event changed it', async () => {
    const { store, reads } = countingStore();
    const { engine, calls } = recordingEngine({}, store);
    await dispatchEvent(
      engine,
      'SessionStart',
      inputSchemas.SessionStart.parse({ ...base, source: 'startup', model: 'claude-opus-4-1' }) as AnyHookInput,
    );
    await dispatchEvent(
      engine,
      'UserPromptSubmit',
      inputSchemas.UserPromptSubmit.parse({ ...base, prompt: '/not-a-command please' }) as AnyHookInput,
    );
    const before = reads();
    // PostToolUse: the held prompt is looked for and emitted (prompt:submit), then tool:after; both carry the model.
    await dispatchEvent(
      engine,
      'PostToolUse',
      inputSchemas.PostToolUse.parse({ ...base, tool_name: 'Bash', tool_input: {}, tool_response: 'ok' }) as AnyHookInput,
    );
    expect(calls.slice(-2).map((call) => [call.point, call.payload.model])).toEqual([
      ['prompt:submit', 'claude-opus-4-1'],
      ['tool:after', 'claude-opus-4-1'],
    ]);
    expect(reads() - before).toBe(2); // once before taking the held prompt, once after taking it changed the state
    const afterTaking = reads();
    await dispatchEvent(
      engine,
      'PostToolUse',
      inputSchemas.PostToolUse.parse({ ...base, tool_name: 'Bash', tool_input: {}, tool_response: 'ok' }) as AnyHookInput,
    );
    expect(reads() - afterTaking).toBe(1);
  });

  it('a read that fails is one error, not one per point', async () => {
    const { store } = countingStore(true);
    const { engine, calls } = recordingEngine({}, store);
    const result = await dispatchEvent(
      engine,
      'SessionStart',
      inputSchemas.SessionStart.parse({ ...base, source: 'compact' }) as AnyHookInput,
    );
    expect(calls.map((call) => call.point)).toEqual(['session:start', 'compact:after']);
    expect(result.errors.map((error) => error.message)).toEqual(['could not read adapter state: planted link']);
  });
});

describe('sub-agent transcripts', () => {
  const directories: string[] = [];
  afterEach(() => directories.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));
  const scratch = () => {
    const directory = mkdtempSync(path.join(os.tmpdir(), 'hookwise-binding-'));
    directories.push(directory);
    return directory;
  };

  it('SubagentStop without last_assistant_message hands phase:end the final assistant text of agent_transcript_path', async () => {
    const file = path.join(scratch(), 'agent.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'first' }] } }),
        JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'final report' }] } }),
        '{"type":"assistant", broken',
      ].join('\n'),
    );
    const { calls } = await dispatch('SubagentStop', {
      agent_id: 'agent-1',
      agent_type: 'Explore',
      agent_transcript_path: file,
      stop_hook_active: false,
    });
    expect(calls.find((call) => call.point === 'phase:end')?.payload).toMatchObject({ output: 'final report' });
  });

  it('a FIFO or a folder at agent_transcript_path is refused at once, never opened waiting for a writer', async () => {
    const directory = scratch();
    const fifo = path.join(directory, 'agent.jsonl');
    execFileSync('mkfifo', [fifo]);
    // A blocking open would never return: nothing writes to this FIFO.
    for (const transcript of [fifo, directory]) {
      const { calls } = await dispatch('SubagentStop', {
        agent_id: 'agent-1',
        agent_type: 'Explore',
        agent_transcript_path: transcript,
        stop_hook_active: false,
      });
      expect(calls.find((call) => call.point === 'phase:end')?.payload).toMatchObject({ output: '' });
    }
  });
});

describe('context usage for plugins that need it', () => {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'hookwise-context-usage-'));
  const transcript = path.join(directory, 'transcript.jsonl');
  const assistant = (contextTokens: number, uuid: string) =>
    JSON.stringify({
      type: 'assistant',
      uuid,
      message: {
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: [{ type: 'text', text: 'ok' }],
        usage: { input_tokens: contextTokens, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 5 },
      },
    });
  const boundary = JSON.stringify({
    type: 'system',
    subtype: 'compact_boundary',
    uuid: 'b1',
    compactMetadata: { trigger: 'auto', preTokens: 150_000, postTokens: 12_000 },
  });

  function engineOf(needs: boolean) {
    const seen: Array<Record<string, unknown>> = [];
    const record = (payload: Record<string, unknown>) => void seen.push(payload);
    const plugin = definePlugin({
      meta: { name: 'measures', version: '1.0.0' },
      ...(needs ? { needs: ['contextUsage'] as const } : {}),
      on: { 'tool:after': record as never, 'compact:after': record as never },
    });
    const engine = createEngine({
      config: { plugins: [plugin()] },
      projectDir: directory,
      host: 'claude-code',
      stateStore: createMemoryStateStore(),
      eventLog: createMemoryEventLog(),
      logger: silentLogger,
    });
    return { engine, seen };
  }
  const input = (event: MappedEvent, fields: Record<string, unknown>) =>
    inputSchemas[event].parse({ ...base, transcript_path: transcript, hook_event_name: event, ...fields }) as AnyHookInput;

  it('reads the size from the transcript only for a plugin that needs it', async () => {
    writeFileSync(transcript, `${assistant(90_000, 'a1')}\n`);
    const needing = engineOf(true);
    await dispatchEvent(needing.engine, 'PostToolUse', input('PostToolUse', { tool_name: 'Bash', tool_input: {}, tool_response: 'x' }));
    expect(needing.seen[0]).toMatchObject({ contextTokens: 90_000, contextSource: 'usage' });
    const plain = engineOf(false);
    await dispatchEvent(plain.engine, 'PostToolUse', input('PostToolUse', { tool_name: 'Bash', tool_input: {}, tool_response: 'x' }));
    expect(plain.seen[0]).not.toHaveProperty('contextTokens');
  });

  it('gives compact:after the sizes, id and trigger of the compaction boundary', async () => {
    writeFileSync(transcript, `${assistant(150_000, 'a1')}\n${boundary}\n`);
    const { engine, seen } = engineOf(true);
    await dispatchEvent(engine, 'PostCompact', input('PostCompact', {}));
    expect(seen[0]).toMatchObject({
      tokensBefore: 150_000,
      tokensAfter: 12_000,
      compactionId: 'b1',
      trigger: 'auto',
      contextSource: 'compact-boundary',
    });
    rmSync(directory, { recursive: true, force: true });
  });
});
