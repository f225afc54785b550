import type { HookFunction, HookMap, HookwiseConfig } from '@hookwise/core';
import {
  createEngine,
  createHost,
  createMemoryEventLog,
  createMemoryLogger,
  createMemoryStateStore,
  type Engine,
  type Host,
} from '@hookwise/core/host';
import { describe, expect, it, vi } from 'vitest';
import { createRecordingApi, RooLikeTask } from './__fixtures__/roo-like-task.js';
import { createTaskBinding, type TaskBindingEvent } from './task-binding.js';

const SYSTEM_PROMPT = 'You are Roo, a highly skilled software engineer.';

function engineWith(
  config: HookwiseConfig,
  logger = createMemoryLogger(),
): { engine: Engine; host: Host; logger: ReturnType<typeof createMemoryLogger> } {
  const engine = createEngine({
    config,
    projectDir: '/virtual/project',
    host: 'vscode',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger,
  });
  // The binding goes through the host kit; its engine is this one, so tests can watch it.
  const host = createHost({ host: 'vscode', projectDir: '/virtual/project', config, logger, createEngine: () => engine });
  return { engine, host, logger };
}

function llmHook(handler: HookFunction<'llm:before'>): HookMap {
  return { 'llm:before': { handler, name: 'intent-summary' } };
}

function taskWith(handler: HookFunction<'llm:before'>, events: string[] = []) {
  const { engine, host, logger } = engineWith({ on: llmHook(handler) });
  const api = createRecordingApi(events);
  const task = new RooLikeTask('task-1', api, createTaskBinding({ host }));
  task.apiConversationHistory.push({ role: 'user', content: 'Add a weather endpoint.' });
  return { task, api, engine, logger };
}

describe('beforeModelRequest keeps the contract of the Roo Code fork', () => {
  it('1. runs the hooks exactly once per model request, before createMessage, with the active intent id', async () => {
    const events: string[] = [];
    const { task } = taskWith((payload) => {
      events.push(`hooks:${payload.intentId}`);
    }, events);
    task.activeIntentId = 'REQ-WEATHER-API-001';
    await task.request();
    task.activeIntentId = 'REQ-WEATHER-API-002';
    await task.request();
    expect(events).toEqual(['hooks:REQ-WEATHER-API-001', 'createMessage', 'hooks:REQ-WEATHER-API-002', 'createMessage']);
  });

  it('2. sends a non-empty summary as summary + "\\n\\n" + systemPrompt', async () => {
    const summary = '## Context Summary (last 20 actions)\n\n[2026-02-20T10:00:00Z] TOOL_EXECUTION: write_to_file → SUCCESS';
    const { task, api } = taskWith(() => ({ context: summary }));
    task.activeIntentId = 'REQ-WEATHER-API-001';
    await task.request();
    expect(api.requests[0]!.systemPrompt).toBe(`${summary}\n\n${SYSTEM_PROMPT}`);
  });

  it.each([
    ['null', () => null as unknown as undefined],
    ['undefined', () => undefined],
    ['an empty string', () => ({ context: '' })],
  ])('3. leaves the system prompt identical when the hooks return %s', async (_label, handler) => {
    const { task, api } = taskWith(handler);
    task.activeIntentId = 'REQ-WEATHER-API-001';
    await task.request();
    expect(api.requests[0]!.systemPrompt).toBe(SYSTEM_PROMPT);
    expect(api.requests[0]!.messages).toBe(task.apiConversationHistory);
  });

  it('4. without an active intent: hooks get undefined, the prompt is unchanged, no error', async () => {
    const seen: Array<string | undefined> = [];
    const { task, api, logger } = taskWith((payload) => {
      seen.push(payload.intentId);
      // Like Roo's preLLMRequest: no intent, no summary.
      return payload.intentId ? { context: 'summary' } : undefined;
    });
    task.activeIntentId = undefined;
    await task.request();
    task.activeIntentId = ''; // Roo clears the field with an empty string too
    await task.request();
    expect(seen).toEqual([undefined, undefined]);
    expect(api.requests.map((request) => request.systemPrompt)).toEqual([SYSTEM_PROMPT, SYSTEM_PROMPT]);
    expect(logger.lines.filter((line) => line.includes(' error:') || line.includes(' warn:'))).toEqual([]);
  });

  it('5. catches a hook error, logs task id, intent id, message and stack, and sends the original prompt', async () => {
    const { task, api, logger } = taskWith(function throwingSummary() {
      throw new Error('trace file unreadable');
    });
    task.activeIntentId = 'REQ-WEATHER-API-001';
    await expect(task.request()).resolves.toBe('ok');
    expect(api.requests[0]!.systemPrompt).toBe(SYSTEM_PROMPT);
    // Logged once (by the engine, named by the binding), not once more by the binding.
    const errorLines = logger.lines.filter((line) => line.includes('trace file unreadable') && !line.startsWith('    at'));
    expect(errorLines).toHaveLength(1);
    const errorLine = errorLines[0];
    expect(errorLine).toContain('[Task#task-1, intent REQ-WEATHER-API-001]');
    expect(errorLine).toContain('"intentId":"REQ-WEATHER-API-001"');
    expect(errorLine).toContain('trace file unreadable');
    expect(errorLine).toMatch(/"stack":"Error: trace file unreadable\\n\s+at throwingSummary/);
  });

  it('5. also fails open when the engine itself throws', async () => {
    const { engine, host, logger } = engineWith({ on: llmHook(() => ({ context: 'never used' })) });
    vi.spyOn(engine, 'emit').mockRejectedValue(new Error('engine broke'));
    const api = createRecordingApi();
    const task = new RooLikeTask('task-2', api, createTaskBinding({ host }));
    task.activeIntentId = 'REQ-1';
    await task.request();
    expect(api.requests[0]!.systemPrompt).toBe(SYSTEM_PROMPT);
    const errorLine = logger.lines.find((line) => line.includes('engine broke'));
    expect(errorLine).toContain('[Task#task-2, intent REQ-1] llm:before failed: engine broke');
    expect(errorLine).toContain('"intentId":"REQ-1"');
    expect(errorLine).toContain('"stack":"Error: engine broke');
  });

  it('6. with no hookwise configured nothing is called and the prompt is unchanged', async () => {
    const withoutBinding = createRecordingApi();
    await new RooLikeTask('task-3', withoutBinding, undefined).request();
    expect(withoutBinding.requests[0]!.systemPrompt).toBe(SYSTEM_PROMPT);

    const onEvent = vi.fn();
    const unconfigured = createRecordingApi();
    const unconfiguredTask = new RooLikeTask('task-4', unconfigured, createTaskBinding({ host: undefined, onEvent }));
    unconfiguredTask.activeIntentId = 'REQ-1';
    await unconfiguredTask.request();
    expect(unconfigured.requests[0]!.systemPrompt).toBe(SYSTEM_PROMPT);
    expect(unconfigured.requests[0]!.messages).toBe(unconfiguredTask.apiConversationHistory);
    expect(onEvent).not.toHaveBeenCalled();

    // A config without llm:before hooks: the engine is not called and nothing is converted.
    const { engine, host } = engineWith({ on: { 'tool:after': () => undefined } });
    const emit = vi.spyOn(engine, 'emit');
    const quiet = createRecordingApi();
    const quietTask = new RooLikeTask('task-5', quiet, createTaskBinding({ host }));
    // A message that tells when it is read: converting the history would read every one.
    let contentRead = false;
    quietTask.apiConversationHistory.push({
      role: 'user',
      get content() {
        contentRead = true;
        return 'hi';
      },
    });
    await quietTask.request();
    expect(emit).not.toHaveBeenCalled();
    expect(contentRead).toBe(false);
    expect(quiet.requests[0]!.messages).toBe(quietTask.apiConversationHistory);
  });

  it('7. returns what changed separately, so context accounting keeps the original prompt (no double counting)', async () => {
    let request = 0;
    const { task, api } = taskWith(() => ({ context: `summary ${++request}` }));
    task.activeIntentId = 'REQ-WEATHER-API-001';
    await task.request();
    await task.request();
    expect(task.accountedSystemPrompts).toEqual([SYSTEM_PROMPT, SYSTEM_PROMPT]);
    // Each request gets its own summary once, never the previous one stacked on top.
    expect(api.requests.map((sent) => sent.systemPrompt)).toEqual([`summary 1\n\n${SYSTEM_PROMPT}`, `summary 2\n\n${SYSTEM_PROMPT}`]);

    const binding = createTaskBinding({ host: engineWith({ on: llmHook(() => ({ context: 'S' })) }).host });
    const result = await binding.beforeModelRequest({
      taskId: 't',
      systemPrompt: 'P',
      messages: [{ role: 'user', content: 'x' }],
      model: 'm',
    });
    expect(result).toEqual({
      systemPrompt: 'S\n\nP',
      messages: [{ role: 'user', content: 'x' }],
      summary: 'S',
      originalSystemPrompt: 'P',
      changed: { systemPrompt: true, messages: false },
    });
  });
});

describe('messages through llm:before', () => {
  it('hands hooks the neutral model and gives the task back Anthropic messages', async () => {
    const seenRoles: string[] = [];
    const { host } = engineWith({
      on: llmHook((payload) => {
        seenRoles.push(...payload.messages.map((message) => `${message.role}:${message.parts.map((part) => part.type).join('+')}`));
        // Drop the first exchange.
        return { value: payload.messages.slice(2) };
      }),
    });
    const binding = createTaskBinding({ host });
    const history = [
      { role: 'user' as const, content: 'read a.ts' },
      { role: 'assistant' as const, content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } }] },
      { role: 'user' as const, content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export {}' }] },
      { role: 'assistant' as const, content: 'done' },
    ];
    const result = await binding.beforeModelRequest({ taskId: 't', systemPrompt: 'P', messages: history, model: 'm' });
    expect(seenRoles).toEqual(['user:text', 'assistant:tool-call', 'user:tool-result', 'assistant:text']);
    expect(result.changed).toEqual({ systemPrompt: false, messages: true });
    expect(result.messages).toEqual([
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'export {}' }] },
      { role: 'assistant', content: 'done' },
    ]);
    expect(history).toHaveLength(4); // the task's own history is untouched
  });
  it('adds a system message the hooks put into the messages to the summary, not to the history', async () => {
    const { host } = engineWith({
      on: llmHook((payload) => ({
        context: 'S',
        value: [{ role: 'system', parts: [{ type: 'text', text: 'Be brief.' }] }, ...payload.messages],
      })),
    });
    const result = await createTaskBinding({ host }).beforeModelRequest({
      taskId: 't',
      systemPrompt: 'P',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(result.systemPrompt).toBe('S\n\nBe brief.\n\nP');
    expect(result.summary).toBe('S\n\nBe brief.');
    expect(result.messages).toEqual([{ role: 'user', content: 'x' }]);
  });
});

describe('the other lifecycle calls', () => {
  it('map to their points, with the task id as session id, and fail open', async () => {
    const seen: string[] = [];
    const { engine, host } = engineWith({
      on: {
        'session:start': (payload) => void seen.push(`session:start ${payload.sessionId} ${payload.source}`),
        'prompt:submit': (payload) => (payload.prompt.includes('rm -rf') ? { block: { reason: 'no' } } : undefined),
        'tool:before': (payload) => void seen.push(`tool:before ${payload.toolName}`),
        'tool:after': (payload) => ({ notice: `ran ${payload.toolName}` }),
        'phase:end': (payload) => ({ value: `summary of ${payload.taskId}: ${payload.output.slice(0, 5)}` }),
        'compact:before': () => ({ context: 'keep the plan', preserved: ['/plan'] }),
        'compact:after': (payload) => ({ context: `restored ${payload.preserved?.join(',')}` }),
        'agent:stop': () => undefined,
        'session:end': (payload) => void seen.push(`session:end ${payload.reason}`),
      },
    });
    const events: TaskBindingEvent[] = [];
    const binding = createTaskBinding({ host, onEvent: (event) => events.push(event) });

    await binding.taskStarted({ taskId: 'parent' });
    expect(await binding.userMessage({ taskId: 'parent', prompt: 'please rm -rf /' })).toEqual({ block: { reason: 'no' } });
    expect(await binding.beforeToolUse({ taskId: 'parent', toolName: 'read_file', input: {} })).toEqual({});
    expect(
      await binding.afterToolUse({
        taskId: 'parent',
        toolName: 'read_file',
        input: {},
        output: 'x',
        ok: true,
        contextTokens: 1_000,
        contextWindow: 200_000,
      }),
    ).toEqual({
      notice: 'ran read_file',
    });
    expect(await binding.subtaskCompleted({ taskId: 'parent', childTaskId: 'child-1', output: 'long research output' })).toEqual({
      output: 'summary of child-1: long ',
      changed: true,
    });
    expect(await binding.beforeCondense({ taskId: 'parent', trigger: 'manual' })).toEqual({
      context: 'keep the plan',
      preserved: ['/plan'],
    });
    expect(await binding.afterCondense({ taskId: 'parent', trigger: 'manual', tokensBefore: 100, tokensAfter: 10 })).toEqual({
      context: 'restored /plan',
    });
    expect(await binding.turnEnded({ taskId: 'parent' })).toEqual({});
    await binding.taskEnded({ taskId: 'parent' });

    expect(seen).toEqual(['session:start parent startup', 'tool:before read_file', 'session:end task ended']);
    expect(events.map((event) => event.point)).toEqual([
      'session:start',
      'prompt:submit',
      'tool:before',
      'tool:after',
      'phase:end',
      'compact:before',
      'compact:after',
      'agent:stop',
      'session:end',
    ]);
    expect(events[3]).toMatchObject({ taskId: 'parent', toolName: 'read_file', contextTokens: 1_000, contextWindow: 200_000 });
    expect(await engine.lastSessionId()).toBe('parent');
  });

  it('never throws when the engine getter or the event listener fails', async () => {
    const logger = createMemoryLogger();
    const broken = createTaskBinding({
      host: () => {
        throw new Error('no engine today');
      },
      logger,
    });
    await expect(broken.afterToolUse({ taskId: 't', toolName: 'x', input: {}, output: '', ok: true })).resolves.toEqual({});
    expect(broken.enabled).toBe(false);
    expect(logger.lines.join('\n')).toContain('no engine today');

    const { host } = engineWith({});
    const noisy = createTaskBinding({
      host,
      logger,
      onEvent: () => {
        throw new Error('listener broke');
      },
    });
    await expect(noisy.taskStarted({ taskId: 't' })).resolves.toEqual({});
    expect(logger.lines.join('\n')).toContain('listener broke');
  });
});
