import { mkdtempSync, rmSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi, onTestFinished } from 'vitest';
import { createEngine } from './engine.js';
import type { HookMap } from './hooks.js';
import { createLevelLogger, definedFields, emitIfListening, errorMessage, failOpen, type LogEntry } from './host-kit.js';
import { createLogger, createMemoryLogger, type LogLevel } from './logger.js';
import { definePlugin } from './plugin.js';
import { createMemoryEventLog } from './state/event-log.js';
import { createMemoryStateStore } from './state/file-state-store.js';

const projectDir = mkdtempSync(path.join(tmpdir(), 'hookwise-host-kit-'));
afterAll(() => rmSync(projectDir, { recursive: true, force: true }));

function engineListeningOn(on: HookMap) {
  const plugin = definePlugin({ meta: { name: 'p', version: '1' }, on });
  return createEngine({
    config: { plugins: [plugin()] },
    projectDir,
    host: 'test',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: createMemoryLogger(),
  });
}

const toolAfter = { sessionId: 's1', toolName: 'Bash', input: {}, output: 'ok', ok: true };

describe('emitIfListening', () => {
  it('emits a point a hook listens on, building a lazy payload then', async () => {
    const engine = engineListeningOn({ 'tool:after': () => ({ context: 'seen' }) });
    const build = vi.fn(async () => toolAfter);
    const outcome = await emitIfListening(engine, 'tool:after', build, { label: '[test]' });
    expect(outcome?.context).toBe('seen');
    expect(build).toHaveBeenCalledOnce();
    expect((await emitIfListening(engine, 'tool:after', toolAfter))?.context).toBe('seen');
  });

  it('skips a point no hook listens on without building its payload', async () => {
    const engine = engineListeningOn({ 'tool:after': () => undefined });
    const build = vi.fn(() => ({ sessionId: 's1', toolName: 'Bash', input: {} }));
    expect(await emitIfListening(engine, 'tool:before', build)).toBeUndefined();
    expect(build).not.toHaveBeenCalled();
  });

  it('always emits session:start, so the engine records the last session for plugin commands', async () => {
    const engine = engineListeningOn({ 'tool:after': () => undefined });
    expect(engine.has('session:start')).toBe(false);
    const outcome = await emitIfListening(engine, 'session:start', { sessionId: 'started', source: 'startup' });
    expect(outcome).toMatchObject({ point: 'session:start', hooksRun: 0 });
    expect(await engine.lastSessionId()).toBe('started');
  });
});

describe('failOpen', () => {
  it('gives back what the function returns, sync or async', async () => {
    const logger = createMemoryLogger();
    expect(failOpen('sync', () => 3, logger)).toBe(3);
    await expect(failOpen('async', async () => 4, logger)).resolves.toBe(4);
    expect(logger.lines).toEqual([]);
  });

  it('logs a throw or a rejection with its label at level error, on one line, and gives undefined', async () => {
    const logger = createMemoryLogger();
    expect(
      failOpen(
        'tool.execute.after',
        () => {
          throw new Error('boom');
        },
        logger,
      ),
    ).toBeUndefined();
    await expect(
      failOpen(
        'chat.message',
        async () => {
          throw new Error('later');
        },
        logger,
      ),
    ).resolves.toBeUndefined();
    expect(logger.lines).toEqual(['hookwise error: tool.execute.after failed: boom', 'hookwise error: chat.message failed: later']);
  });

  it('adds the details and the stack when the host gives details', () => {
    const logger = createMemoryLogger();
    failOpen(
      '[Task#7] llm:before',
      () => {
        throw new Error('boom');
      },
      logger,
      { taskId: '7' },
    );
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatch(/^hookwise error: \[Task#7\] llm:before failed: boom \{"taskId":"7","stack":"Error: boom/);
  });
});

describe('createLevelLogger', () => {
  it('hands each message at or above its level to the sink with the level, details and one-line text', () => {
    const entries: LogEntry[] = [];
    const logger = createLevelLogger((entry) => entries.push(entry), 'info');
    logger.debug('hidden');
    logger.info('loaded', { plugins: 2 });
    logger.error('broken');
    expect(entries).toEqual([
      { level: 'info', message: 'loaded', details: { plugins: 2 }, text: 'loaded {"plugins":2}' },
      { level: 'error', message: 'broken', text: 'broken' },
    ]);
  });

  it('reads a level given as a function at each message (a host that learns it from its config later)', () => {
    const levels: string[] = [];
    let level: LogLevel = 'warn';
    const logger = createLevelLogger(
      (entry) => levels.push(entry.level),
      () => level,
    );
    logger.info('before the config');
    level = 'debug';
    logger.info('after the config');
    level = 'silent';
    logger.error('silenced');
    expect(levels).toEqual(['info']);
  });

  it('with stackLines, puts a stack on lines of its own after the other details (without it, JSON as before)', () => {
    const texts: string[] = [];
    const lines = createLevelLogger((entry) => texts.push(entry.text), 'debug', { stackLines: true });
    const plain = createLevelLogger((entry) => texts.push(entry.text), 'debug');
    const stack = 'Error: boom\n    at hook (hooks.mjs:3:9)';
    lines.error('[Task#7] llm:before failed: boom', { taskId: '7', stack });
    lines.error('only a stack', { stack });
    lines.warn('an empty stack', { stack: '' });
    lines.info('no stack', { taskId: '7' });
    plain.error('one line', { stack });
    expect(texts).toEqual([
      `[Task#7] llm:before failed: boom {"taskId":"7"}\n${stack}`,
      `only a stack\n${stack}`,
      'an empty stack',
      'no stack {"taskId":"7"}',
      `one line ${JSON.stringify({ stack })}`,
    ]);
  });

  it('is what createLogger writes its lines through: same prefix, level and details as before', () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'warn', write: (line) => lines.push(line) });
    logger.info('hidden');
    logger.warn('slow', { ms: 12 });
    logger.error('plain', {});
    expect(lines).toEqual(['hookwise warn: slow {"ms":12}', 'hookwise error: plain']);
  });
});

describe('definedFields', () => {
  it('leaves out the fields a host does not know, keeping falsy values it does', () => {
    expect(definedFields({ sessionId: 's1', model: undefined, contextTokens: 0, ok: false, error: '' })).toEqual({
      sessionId: 's1',
      contextTokens: 0,
      ok: false,
      error: '',
    });
    expect(Object.keys(definedFields({ model: undefined }))).toEqual([]);
  });
});

describe('errorMessage', () => {
  it("gives an Error's message and any other thrown value as text", () => {
    expect(errorMessage(new TypeError('bad input'))).toBe('bad input');
    expect(errorMessage('plain string')).toBe('plain string');
    expect(errorMessage(undefined)).toBe('undefined');
  });
});

describe('the README example', () => {
  it('runs as written: emits through the kit and returns the hook context', async () => {
    const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
    const section = readme.slice(readme.indexOf('## Host kit'));
    const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toContain('emitIfListening');
    const folder = mkdtempSync(path.join(tmpdir(), 'hookwise-readme-'));
    onTestFinished(() => rmSync(folder, { recursive: true, force: true }));
    const file = path.join(folder, 'example.mjs');
    const kit = pathToFileURL(fileURLToPath(new URL('./host-kit.ts', import.meta.url))).href;
    writeFileSync(file, `${code!.replace("'@hookwise/core/host'", JSON.stringify(kit))}\nexport { onToolFinished };\n`);
    const { onToolFinished } = (await import(/* @vite-ignore */ file)) as {
      onToolFinished: (engine: unknown, sessionId: string, call: unknown) => Promise<string | undefined>;
    };
    const engine = engineListeningOn({ 'tool:after': (payload) => ({ context: `${payload.toolName} ran` }) });
    expect(await onToolFinished(engine, 's1', { name: 'Read', input: {}, output: 'text' })).toBe('Read ran');
  });
});

describe('keepingAlive', () => {
  it("keeps a process whose only other timer is unref'd alive until the work settles, and no longer", async () => {
    const { spawnSync } = await import('node:child_process');
    const kit = pathToFileURL(fileURLToPath(new URL('../dist/host.js', import.meta.url))).href;
    const script = (wrapped: boolean) => `
      const { keepingAlive } = await import(${JSON.stringify(kit)});
      const work = () => new Promise((resolve) => setTimeout(resolve, 200).unref());
      ${wrapped ? 'await keepingAlive(10_000, work);' : 'await work();'}
      console.log('settled');`;
    const run = (wrapped: boolean) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', script(wrapped)], { encoding: 'utf8', timeout: 20_000 });
    // Without it, Node leaves with the work pending (exit 13: an unsettled top-level await).
    expect(run(false).stdout).not.toContain('settled');
    const kept = run(true);
    expect(kept.stdout).toContain('settled');
    expect(kept.status).toBe(0);
  });
});
