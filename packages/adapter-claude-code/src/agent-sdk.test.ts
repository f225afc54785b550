import { createMemoryEventLog, createMemoryStateStore, createEngine, defineHook, silentLogger } from '@hookwise/core';
import { describe, expect, it } from 'vitest';
import { hookwiseHooks } from './agent-sdk.js';

const signal = new AbortController().signal;
const engine = () =>
  createEngine({
    config: {
      hooks: [
        defineHook({
          name: 'sdk-test',
          on: {
            'tool:after': () => ({ context: 'seen by the model' }),
            'compact:before': () => ({ context: 'keep the rules' }),
            'tool:before': (payload) => (JSON.stringify(payload.input).includes('rm -rf') ? { block: { reason: 'dangerous' } } : undefined),
            'session:end': () => {
              throw new Error('broken hook');
            },
          },
        }),
      ],
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
    expect(Object.keys(hooks).sort()).toEqual(['PostCompact', 'PostToolUse', 'PostToolUseFailure', 'PreCompact', 'PreToolUse', 'SessionEnd', 'SessionStart', 'Stop', 'SubagentStop', 'UserPromptExpansion', 'UserPromptSubmit']);
    expect(hookwiseHooks({ engine: engine(), events: ['PostToolUse'], timeout: 5 })).toEqual({ PostToolUse: [{ hooks: [expect.any(Function)], timeout: 5 }] });
  });

  it('returns the same JSON a command hook prints', async () => {
    const hooks = hookwiseHooks({ engine: engine() });
    const output = await hooks.PostToolUse![0]!.hooks[0]!({ hook_event_name: 'PostToolUse', session_id: 's1', tool_name: 'Bash', tool_input: {}, tool_response: 'x', tool_use_id: 't1' } as never, 't1', { signal });
    expect(output).toEqual({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'seen by the model' } });
    const denied = await hooks.PreToolUse![0]!.hooks[0]!({ hook_event_name: 'PreToolUse', session_id: 's1', tool_name: 'Bash', tool_input: { command: 'rm -rf /' } } as never, undefined, { signal });
    expect(denied).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'dangerous' } });
  });

  it('puts PreCompact instructions in systemMessage, which the SDK feeds to the summarizer', async () => {
    const hooks = hookwiseHooks({ engine: engine() });
    expect(await hooks.PreCompact![0]!.hooks[0]!({ hook_event_name: 'PreCompact', session_id: 's1', trigger: 'manual', custom_instructions: null } as never, undefined, { signal })).toEqual({ systemMessage: 'keep the rules' });
  });

  it('fails open: bad input, hostile ids and broken hooks give {} and a report, never a throw', async () => {
    const errors: string[] = [];
    const hooks = hookwiseHooks({ engine: engine(), onError: (error) => errors.push(String((error as Error).message)) });
    expect(await hooks.PostToolUse![0]!.hooks[0]!({ hook_event_name: 'PostToolUse', session_id: 's1' } as never, undefined, { signal })).toEqual({});
    expect(await hooks.PostToolUse![0]!.hooks[0]!({ hook_event_name: 'PostToolUse', session_id: '../x', tool_name: 'Bash' } as never, undefined, { signal })).toEqual({});
    expect(await hooks.SessionEnd![0]!.hooks[0]!({ hook_event_name: 'SessionEnd', session_id: 's1', reason: 'other' } as never, undefined, { signal })).toEqual({});
    expect(errors).toEqual([expect.stringMatching(/invalid PostToolUse input/), expect.stringMatching(/refused session id/)]);
  });

  it('gives up with {} once the SDK aborts the hook', async () => {
    const controller = new AbortController();
    controller.abort();
    const hooks = hookwiseHooks({ engine: engine() });
    expect(await hooks.PostToolUse![0]!.hooks[0]!({ hook_event_name: 'PostToolUse', session_id: 's1', tool_name: 'Bash' } as never, undefined, { signal: controller.signal })).toEqual({});
  });
});
