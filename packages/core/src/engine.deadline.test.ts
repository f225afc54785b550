import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEngine } from './engine.js';
import { DEFAULT_HOOK_TIMEOUT_MS } from './deadline.js';
import { defineHook } from './hooks.js';
import { createMemoryLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { createMemoryEventLog } from './state/event-log.js';
import { createMemoryStateStore } from './state/file-state-store.js';

const projectDir = mkdtempSync(path.join(tmpdir(), 'hookwise-engine-deadline-'));
const toolAfter = { sessionId: 's', toolName: 'Bash', input: { command: 'ls' }, output: 'done', ok: true };

/** One async hook: `output: 'hang'` waits for its signal, anything else returns at once. */
function engineWith(hookTimeoutMs?: number) {
  const hooks = defineHook({
    name: 'h',
    on: { 'tool:after': async (payload, context) => (payload.output === 'hang' ? new Promise<void>((resolve) => context.signal.addEventListener('abort', () => resolve())) : undefined) },
  });
  const plugin = definePlugin({ meta: { name: 'p', version: '1' }, hooks: [hooks] });
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
