import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { createEngine } from './engine.js';
import { DEFAULT_HOOK_TIMEOUT_MS } from './deadline.js';
import { createMemoryLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { createMemoryEventLog } from './state/event-log.js';
import { createMemoryStateStore } from './state/file-state-store.js';

const projectDir = mkdtempSync(path.join(tmpdir(), 'hookwise-engine-deadline-'));
afterAll(() => rmSync(projectDir, { recursive: true, force: true }));
const toolAfter = { sessionId: 's', toolName: 'Bash', input: { command: 'ls' }, output: 'done', ok: true };

/** One async hook: `output: 'hang'` waits for its signal, anything else returns at once. */
function engineWith(hookTimeoutMs?: number) {
  const plugin = definePlugin({
    meta: { name: 'p', version: '1' },
    on: {
      'tool:after': async (payload, context) =>
        payload.output === 'hang' ? new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve())) : undefined,
    },
  });
  return createEngine({
    config: { plugins: [plugin()] },
    projectDir,
    host: 'test',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: createMemoryLogger(),
    ...(hookTimeoutMs !== undefined ? { hookTimeoutMs } : {}),
  });
}

describe("the engine's hook deadline", () => {
  afterEach(() => void vi.useRealTimers());

  it('leaves no timer behind once a hook call finished, so nothing holds a finished engine', async () => {
    vi.useFakeTimers();
    const engine = engineWith(1_000);
    expect((await engine.emit('tool:after', toolAfter)).errors).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps the deadline of a call still running when the engine is disposed', async () => {
    vi.useFakeTimers();
    const engine = engineWith(1_000);
    const running = engine.emit('tool:after', { ...toolAfter, output: 'hang' });
    await vi.advanceTimersByTimeAsync(10);
    await engine.dispose();
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await running).errors.map((error) => error.kind)).toEqual(['timeout']);
  });

  it('uses DEFAULT_HOOK_TIMEOUT_MS when neither the host nor the config says', async () => {
    vi.useFakeTimers();
    const running = engineWith().emit('tool:after', { ...toolAfter, output: 'hang' });
    await vi.advanceTimersByTimeAsync(DEFAULT_HOOK_TIMEOUT_MS - 1);
    let settled = false;
    void running.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const outcome = await running;
    expect(outcome.errors).toMatchObject([{ kind: 'timeout', message: expect.stringContaining(`${DEFAULT_HOOK_TIMEOUT_MS} ms`) }]);
  });
});

describe('a hook that fails after its deadline', () => {
  /** `output: 'late'` fails 30 ms after its 5 ms deadline; `'stops'` rejects with an abort when told to stop. */
  function engineWithLateHook() {
    const logger = createMemoryLogger();
    const eventLog = createMemoryEventLog();
    const plugin = definePlugin({
      meta: { name: 'p', version: '1' },
      on: {
        'tool:after': {
          name: 'late',
          handler: async (payload, context) => {
            if (payload.output === 'stops') {
              return new Promise<void>((_resolve, reject) =>
                context.signal.addEventListener('abort', () => reject(new DOMException('stopped', 'AbortError'))),
              );
            }
            await new Promise((resolve) => setTimeout(resolve, 30));
            throw new Error('the state update was refused');
          },
        },
      },
    });
    const engine = createEngine({
      config: { plugins: [plugin()] },
      projectDir,
      host: 'test',
      stateStore: createMemoryStateStore(),
      eventLog,
      logger,
      hookTimeoutMs: 5,
    });
    return { engine, logger, eventLog };
  }
  const settleLater = () => new Promise((resolve) => setTimeout(resolve, 60));

  it('is reported when it fails: a log line and a hook:error record, besides its timeout', async () => {
    const { engine, logger, eventLog } = engineWithLateHook();
    expect((await engine.emit('tool:after', { ...toolAfter, output: 'late' })).errors.map((error) => error.kind)).toEqual(['timeout']);
    await settleLater();
    expect(logger.lines.filter((line) => /after its deadline/.test(line))).toEqual([
      expect.stringContaining('p › late on tool:after failed: after its deadline: the state update was refused'),
    ]);
    const records = eventLog.lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry.type === 'hook:error');
    expect(records).toEqual([
      expect.objectContaining({ kind: 'timeout', point: 'tool:after' }),
      expect.objectContaining({
        kind: 'error',
        point: 'tool:after',
        sessionId: 's',
        message: 'after its deadline: the state update was refused',
      }),
    ]);
  });

  it('is not reported again when it rejects with the abort it was sent', async () => {
    const { engine, logger, eventLog } = engineWithLateHook();
    expect((await engine.emit('tool:after', { ...toolAfter, output: 'stops' })).errors.map((error) => error.kind)).toEqual(['timeout']);
    await settleLater();
    expect(logger.lines.filter((line) => /after its deadline/.test(line))).toEqual([]);
    expect(
      eventLog.lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.type === 'hook:error'),
    ).toHaveLength(1);
  });
});
