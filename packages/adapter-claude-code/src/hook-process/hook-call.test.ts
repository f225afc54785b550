import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError, type HookMap } from '@hookwise/core';
import { SyncGuard } from '@hookwise/core/command-hook';
import { createEngine, createMemoryEventLog, createMemoryStateStore, silentLogger, type Engine } from '@hookwise/core/host';
import { afterEach, describe, expect, it } from 'vitest';
import { callScope, MAX_INPUT_BYTES, resolveProjectDir, runHook, type RunRequest } from './hook-call.js';

const directories: string[] = [];
afterEach(() => directories.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));

function project(withConfig = true): string {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'hookwise-run-'));
  directories.push(directory);
  if (withConfig) writeFileSync(path.join(directory, 'hookwise.config.json'), '{"plugins":{}}');
  return directory;
}

const encode = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value));
const request = (event: string | undefined, stdin: unknown, projectDir: string): RunRequest => ({
  event,
  stdin: encode(stdin),
  env: { CLAUDE_PROJECT_DIR: projectDir },
  cwd: projectDir,
});

function engineWith(projectDir: string, on: HookMap): Engine {
  return createEngine({
    config: { on },
    projectDir,
    host: 'claude-code',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
  });
}

describe('runHook', () => {
  it('prints exactly one JSON object with what the plugins returned', async () => {
    const directory = project();
    const result = await runHook(
      request(
        'PostToolUse',
        {
          session_id: 's1',
          hook_event_name: 'PostToolUse',
          tool_name: 'Bash',
          tool_response: 'ok',
          unknown_future_field: { nested: true },
        },
        directory,
      ),
      async () => engineWith(directory, { 'tool:after': () => ({ context: 'ctx', notice: 'note' }) }),
    );
    expect(result).toEqual({
      stdout: JSON.stringify({ systemMessage: 'note', hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'ctx' } }),
      stderr: [],
      exitCode: 0,
    });
  });

  it('prints nothing for a known event hookwise has no point for, and for a project without config', async () => {
    const directory = project();
    let loads = 0;
    const loader = async () => {
      loads++;
      return undefined;
    };
    expect(
      await runHook(request('Notification', { session_id: 's1', hook_event_name: 'Notification', message: 'hi' }, directory), loader),
    ).toEqual({ stdout: '', stderr: [], exitCode: 0 });
    expect(loads).toBe(0);
    expect(await runHook(request('Stop', { session_id: 's1', hook_event_name: 'Stop' }, directory), loader)).toEqual({
      stdout: '',
      stderr: [],
      exitCode: 0,
    });
    expect(loads).toBe(1);
  });

  it('turns an internal error into one stderr line and a cli:error record, exit 0', async () => {
    const directory = project();
    const result = await runHook(request('Stop', { session_id: 's1', hook_event_name: 'Stop' }, directory), async () => {
      throw new Error('config exploded\nsecond line');
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe('');
    expect(result.stderr).toEqual(['hookwise run Stop: internal error, nothing done: config exploded | second line']);
    const log = readFileSync(path.join(directory, '.hookwise', 'logs', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(log).toEqual([expect.objectContaining({ type: 'cli:error', event: 'Stop', sessionId: 's1' })]);
  });

  it("a broken config is reported as the user's config error, naming the file, not as an internal error", async () => {
    const directory = project();
    const file = path.join(directory, 'hookwise.config.json');
    const result = await runHook(request('Stop', { session_id: 's1', hook_event_name: 'Stop' }, directory), async () => {
      throw new ConfigError('invalid JSON: Unexpected token } at line 3, column 1', { file });
    });
    expect(result.stderr).toEqual([
      `hookwise run Stop: error in your hookwise config, no hook ran (fix the file; the agent goes on): ${file}: invalid JSON: Unexpected token } at line 3, column 1`,
    ]);
    expect(result.stderr[0]).not.toMatch(/internal error/);
    const log = readFileSync(path.join(directory, '.hookwise', 'logs', 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(log).toEqual([expect.objectContaining({ type: 'cli:error', event: 'Stop' })]);
    expect(log[0]).not.toHaveProperty('stack');
  });

  it("a config error without a file names the project's config file", async () => {
    const directory = project();
    const result = await runHook(request('Stop', { session_id: 's1', hook_event_name: 'Stop' }, directory), async () => {
      throw new ConfigError('plugins: expected an object');
    });
    expect(result.stderr[0]).toContain(
      `error in your hookwise config, no hook ran (fix the file; the agent goes on): ${path.join(directory, 'hookwise.config.json')}: plugins: expected an object`,
    );
  });

  it('writes no log in a folder that does not use hookwise', async () => {
    const directory = project(false);
    await runHook(request('Stop', '{bad', directory), async () => undefined);
    expect(() => readFileSync(path.join(directory, '.hookwise', 'logs', 'events.jsonl'))).toThrow();
  });

  it('refuses input over the size limit before parsing it', async () => {
    const directory = project();
    const result = await runHook(
      { ...request('PostToolUse', '', directory), stdin: new Uint8Array(MAX_INPUT_BYTES + 1) },
      async () => undefined,
    );
    expect(result.stderr[0]).toMatch(/more than the 8388608 accepted/);
  });

  it('takes a real U+FFFD in the input as text and refuses invalid UTF-8, from a Buffer or a plain Uint8Array view', async () => {
    const directory = project();
    let seen: unknown;
    const loader = async () => engineWith(directory, { 'tool:after': (payload) => void (seen = payload.output) });
    const good = await runHook(
      request(
        'PostToolUse',
        { session_id: 's1', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_response: 'a \uFFFD b é' },
        directory,
      ),
      loader,
    );
    expect(good.stderr).toEqual([]);
    expect(seen).toBe('a \uFFFD b é');
    const bytes = Buffer.concat([
      Buffer.from('{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"Bash","tool_response":"'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}'),
    ]);
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 4);
    for (const stdin of [bytes, padded.subarray(4, 4 + bytes.length)]) {
      const bad = await runHook({ ...request('PostToolUse', '', directory), stdin }, loader);
      expect(bad.stderr).toEqual([expect.stringMatching(/stdin is not valid UTF-8; nothing done$/)]);
    }
  });

  it('a plugin block is rendered, not turned into an exit code', async () => {
    const directory = project();
    const result = await runHook(
      request('UserPromptSubmit', { session_id: 's1', hook_event_name: 'UserPromptSubmit', prompt: 'rm -rf /' }, directory),
      async () => engineWith(directory, { 'prompt:submit': () => ({ block: { reason: 'refused' } }) }),
    );
    expect(result).toEqual({ stdout: JSON.stringify({ decision: 'block', reason: 'refused' }), stderr: [], exitCode: 0 });
  });
});

describe('resolveProjectDir', () => {
  it('prefers $CLAUDE_PROJECT_DIR, then the payload cwd, then the process cwd', () => {
    expect(resolveProjectDir({ CLAUDE_PROJECT_DIR: '/a' }, '/b', '/c')).toBe('/a');
    expect(resolveProjectDir({}, '/b', '/c')).toBe('/b');
    expect(resolveProjectDir({}, 'relative', '/c')).toBe('/c');
    expect(resolveProjectDir({}, undefined, '/c')).toBe('/c');
  });
});

describe("the call scope's guard", () => {
  it('stops a synchronous loop at the deadline and throws the given error; the thread runs JavaScript again afterwards', () => {
    const guard = new SyncGuard();
    let spins = 0;
    expect(() =>
      guard.runWithin(
        () => {
          for (;;) spins++;
        },
        50,
        (ms) => new Error(`stopped after ${ms} ms`),
      ),
    ).toThrow('stopped after 50 ms');
    expect(spins).toBeGreaterThan(0);
    // A nested run restores the outer one.
    expect(
      guard.runWithin(
        () =>
          guard.runWithin(
            () => 'inner',
            1_000,
            () => new Error('x'),
          ) + ' outer',
        1_000,
        () => new Error('y'),
      ),
    ).toBe('inner outer');
  });

  it("as the engine's runSync, a hook stuck in a synchronous loop is a timeout and the next hook runs", async () => {
    const engine = createEngine({
      config: {
        hookTimeoutMs: 100,
        on: {
          'tool:after': [
            {
              handler: () => {
                for (;;) {}
              },
              name: 'stuck',
            },
            () => ({ context: 'after ran' }),
          ],
        },
      },
      projectDir: os.tmpdir(),
      host: 'test',
      stateStore: createMemoryStateStore(),
      eventLog: createMemoryEventLog(),
      logger: silentLogger,
      runSync: callScope().runSync,
    });
    const merged = await engine.emit('tool:after', { sessionId: 's', toolName: 'Bash', input: {}, output: 'x', ok: true });
    expect(merged.context).toBe('after ran');
    expect(merged.errors).toEqual([
      expect.objectContaining({
        hookName: 'stuck',
        kind: 'timeout',
        message: expect.stringMatching(/ran synchronously for \d+ ms of CPU.* without returning and was stopped \(a synchronous loop\?\)/),
      }),
    ]);
  });
});
