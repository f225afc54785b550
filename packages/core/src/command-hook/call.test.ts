import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HookwiseConfig } from '../config.js';
import { createEngine, type EngineOptions } from '../engine.js';
import { ConfigError } from '../errors.js';
import { silentLogger } from '../logger.js';
import { createMemoryEventLog } from '../state/event-log.js';
import { createMemoryStateStore } from '../state/file-state-store.js';
import { callScope, runHook, type RunRequest } from './call.js';
import type { CommandHookHost } from './host.js';

const directories: string[] = [];
afterEach(() => directories.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));

function project(): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'hookwise-command-hook-'));
  directories.push(directory);
  writeFileSync(path.join(directory, 'hookwise.config.json'), '{"plugins":{}}');
  return directory;
}

/** A host shaped like Gemini CLI's, as a command-hook adapter is: its events, its stdin fields, its output format. */
const geminiLike: CommandHookHost<{ session_id: string; tool_name: string; tool_response: unknown }> = {
  name: 'gemini-like',
  isEvent: (event) => ['BeforeTool', 'AfterTool', 'Notification'].includes(event),
  isMapped: (event) => event !== 'Notification',
  eventOf: (payload) => (typeof payload.hook_event_name === 'string' ? payload.hook_event_name : undefined),
  projectDirOf: (env, _payload, cwd) => env.GEMINI_PROJECT_DIR ?? cwd,
  parse: (_event, payload) =>
    typeof payload.session_id === 'string' && typeof payload.tool_name === 'string'
      ? { ok: true, data: payload as never }
      : { ok: false, message: 'tool_name: expected a string' },
  sessionIdOf: (input) => input.session_id,
  emptyStdout: '{}',
  async dispatch(engine, _event, input) {
    const merged = await engine.emit('tool:after', {
      sessionId: input.session_id,
      toolName: input.tool_name,
      input: {},
      output: input.tool_response,
      ok: true,
    });
    return {
      stdout: merged.context ? JSON.stringify({ hookSpecificOutput: { additionalContext: merged.context } }) : '',
      errors: merged.errors,
    };
  },
};

const request = (event: string, payload: unknown, projectDir: string): RunRequest => ({
  event,
  stdin: Buffer.from(JSON.stringify(payload)),
  env: { GEMINI_PROJECT_DIR: projectDir },
  cwd: '/',
});

/** An engine on memory stores with the call scope's guard, running the config's own hooks. */
const engineFor = (projectDir: string, scope: { runSync: EngineOptions['runSync'] }, config: HookwiseConfig) =>
  createEngine({
    config,
    projectDir,
    host: 'gemini-like',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
    runSync: scope.runSync,
  });

describe('the command-hook kit runs any host given its map', () => {
  it("runs the points and prints the host's own output format", async () => {
    const directory = project();
    let seenProject: string | undefined;
    const result = await runHook(
      geminiLike,
      request(
        'AfterTool',
        { session_id: 's1', hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_response: { llmContent: 'ok' } },
        directory,
      ),
      async (projectDir, scope) => {
        seenProject = projectDir;
        return engineFor(projectDir, scope, { on: { 'tool:after': () => ({ context: 'from a hook' }) } });
      },
    );
    expect(seenProject).toBe(directory);
    expect(result).toEqual({ stdout: '{"hookSpecificOutput":{"additionalContext":"from a hook"}}', stderr: [], exitCode: 0 });
  });

  it('refuses an unknown event, a payload of another event and invalid input in one line each; ignores an unmapped event', async () => {
    const directory = project();
    const never = async () => {
      throw new Error('not loaded');
    };
    expect((await runHook(geminiLike, request('Nope', {}, directory), never)).stderr).toEqual([
      'hookwise run: unknown event "Nope"; nothing done',
    ]);
    expect((await runHook(geminiLike, request('AfterTool', { hook_event_name: 'BeforeTool' }, directory), never)).stderr[0]).toMatch(
      /the input is a "BeforeTool" event; check the command registered for AfterTool/,
    );
    expect((await runHook(geminiLike, request('AfterTool', { session_id: 's1' }, directory), never)).stderr[0]).toBe(
      'hookwise run AfterTool: invalid input: tool_name: expected a string; nothing done',
    );
    expect(await runHook(geminiLike, request('Notification', {}, directory), never)).toEqual({ stdout: '', stderr: [], exitCode: 0 });
  });

  it("calls a config that does not load the user's config error, naming the file", async () => {
    const directory = project();
    const result = await runHook(geminiLike, request('AfterTool', { session_id: 's1', tool_name: 'x' }, directory), async () => {
      throw new ConfigError('unknown plugin "@hookwise/nosuch"', { file: path.join(directory, 'hookwise.config.json') });
    });
    expect(result.stderr).toEqual([
      `hookwise run AfterTool: error in your hookwise config, no hook ran (fix the file; the agent goes on): ${path.join(directory, 'hookwise.config.json')}: unknown plugin "@hookwise/nosuch"`,
    ]);
  });

  it("a hook stuck in a synchronous loop is stopped by the call scope's guard and reported as a timeout", async () => {
    const directory = project();
    let failures: unknown[] = [];
    const host = {
      ...geminiLike,
      dispatch: async (engine: Parameters<typeof geminiLike.dispatch>[0]) => {
        const merged = await engine.emit('tool:after', { sessionId: 's1', toolName: 'x', input: {}, output: '', ok: true });
        failures = merged.errors;
        return { stdout: '', errors: merged.errors };
      },
    };
    await runHook(
      host,
      request('AfterTool', { session_id: 's1', tool_name: 'x' }, directory),
      async (projectDir, scope) =>
        engineFor(projectDir, scope, {
          hookTimeoutMs: 50,
          on: {
            'tool:after': () => {
              for (;;);
            },
          },
        }),
      undefined,
      callScope(),
    );
    expect(failures).toEqual([
      expect.objectContaining({
        kind: 'timeout',
        message: expect.stringMatching(/ran synchronously for \d+ ms of CPU.* without returning and was stopped \(a synchronous loop\?\)/),
      }),
    ]);
  });
});
