import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HookMap } from '@hookwise/core';
import { createEngine, createMemoryEventLog, createMemoryStateStore, silentLogger, type Engine } from '@hookwise/core/host';
import { afterEach, describe, expect, it } from 'vitest';
import { runHook } from '@hookwise/core/command-hook';
import { codexHost } from '../hook-process/hook-call.js';

const directories: string[] = [];
afterEach(() => directories.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));

function project(): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'hookwise-codex-'));
  directories.push(directory);
  writeFileSync(path.join(directory, 'hookwise.config.json'), '{"plugins":{}}');
  return directory;
}

/** One engine per test, shared by its calls (as the state store of a real project is). */
function engineWith(dir: string, on: HookMap): () => Promise<Engine> {
  const engine = createEngine({
    config: { on },
    projectDir: dir,
    host: 'codex',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
  });
  return async () => engine;
}

const call = (dir: string, load: () => Promise<Engine>, event: string, fields: Record<string, unknown> = {}) =>
  runHook(
    codexHost,
    {
      event,
      stdin: Buffer.from(JSON.stringify({ session_id: 's1', cwd: dir, hook_event_name: event, model: 'gpt-5', ...fields })),
      env: {},
      cwd: '/',
    },
    load,
  );

describe('hookwise under Codex', () => {
  it('a tool call: its context and notice reach the model as additionalContext (codex exec shows no systemMessage)', async () => {
    const dir = project();
    let seen: unknown;
    const load = engineWith(dir, { 'tool:after': (payload) => ((seen = payload), { context: 'ctx', notice: 'Consider compacting.' }) });
    const result = await call(dir, load, 'PostToolUse', {
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_response: 'a\nb',
      tool_use_id: 'call_1',
    });
    expect(result.stderr).toEqual([]);
    expect(JSON.parse(result.stdout)).toEqual({
      systemMessage: 'Consider compacting.',
      hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'ctx\n\nConsider compacting.' },
    });
    expect(seen).toMatchObject({
      toolName: 'Bash',
      input: { command: 'ls' },
      output: 'a\nb',
      ok: true,
      toolUseId: 'call_1',
      projectDir: dir,
    });
  });

  it("a typed /name prompt is a command; the plugins' context goes after it", async () => {
    const dir = project();
    let command: unknown;
    const load = engineWith(dir, { 'prompt:submit': (payload) => ((command = payload.command), { context: 'rules' }) });
    const result = await call(dir, load, 'UserPromptSubmit', { prompt: '/prompts:review src/app.ts' });
    expect(command).toEqual({ name: 'prompts:review', args: 'src/app.ts' });
    expect(JSON.parse(result.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'rules' } });
  });

  it("keeps PostCompact's compact:after context for SessionStart(compact), the only context Codex keeps past a compaction", async () => {
    const dir = project();
    let runs = 0;
    const load = engineWith(dir, { 'compact:after': () => (runs++, { context: 'PRESERVED' }) });
    expect((await call(dir, load, 'PreCompact', { trigger: 'auto' })).stdout).toBe('');
    expect((await call(dir, load, 'PostCompact', { trigger: 'auto' })).stdout).toBe('');
    const start = await call(dir, load, 'SessionStart', { source: 'compact' });
    expect(JSON.parse(start.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'PRESERVED' } });
    expect(runs).toBe(1);
    // Without a PostCompact, SessionStart(compact) runs compact:after itself.
    const other = project();
    const alone = await call(other, engineWith(other, { 'compact:after': () => ({ context: 'ALONE' }) }), 'SessionStart', {
      source: 'compact',
    });
    expect(JSON.parse(alone.stdout).hookSpecificOutput.additionalContext).toBe('ALONE');
  });

  it('a block is a deny on PreToolUse and a decision on Stop; unmapped events and SessionEnd print nothing', async () => {
    const dir = project();
    const load = engineWith(dir, {
      'tool:before': () => ({ block: { reason: 'not here' } }),
      'agent:stop': () => ({ block: { reason: 'keep going' } }),
      'session:end': () => ({ notice: 'bye', context: 'x' }),
    });
    expect(JSON.parse((await call(dir, load, 'PreToolUse', { tool_name: 'Bash', tool_input: {} })).stdout)).toEqual({
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'not here' },
    });
    expect(JSON.parse((await call(dir, load, 'Stop', { stop_hook_active: false })).stdout)).toEqual({
      decision: 'block',
      reason: 'keep going',
    });
    expect((await call(dir, load, 'SessionEnd', { reason: 'other' })).stdout).toBe('');
    expect(await call(dir, load, 'PostModelRequest')).toEqual({ stdout: '', stderr: [], exitCode: 0 });
  });

  it('bad input is one line on stderr and nothing done', async () => {
    const dir = project();
    const load = engineWith(dir, {});
    const result = await call(dir, load, 'PostToolUse', { tool_name: 42 });
    expect(result.stdout).toBe('');
    expect(result.stderr).toEqual([expect.stringMatching(/tool_name/)]);
  });
});
