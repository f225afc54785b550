import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi, onTestFinished } from 'vitest';
import { DEFAULT_HOOK_TIMEOUT_MS } from './deadline.js';
import { createEngine } from './engine.js';
import { createMemoryLogger } from './logger.js';
import { definePlugin } from './plugin.js';
import { lazyProjectEngine } from './project-engine.js';
import { createMemoryEventLog } from './state/event-log.js';
import { createMemoryStateStore } from './state/file-state-store.js';

const memory = () => ({ stateStore: createMemoryStateStore(), eventLog: createMemoryEventLog() });
const noop = definePlugin({ meta: { name: 'noop', version: '1.0.0' }, on: { 'agent:stop': () => undefined } });

describe('lazyProjectEngine', () => {
  it('is off (undefined, said at info) when the project has no config, and never looks again', async () => {
    const logger = createMemoryLogger();
    const load = vi.fn(async () => ({ config: {}, file: undefined }));
    const engine = lazyProjectEngine({ projectDir: '/nowhere', host: 'test', logger, loadConfig: load, scope: 'app' });
    expect(await engine()).toBeUndefined();
    expect(await engine()).toBeUndefined();
    expect(load).toHaveBeenCalledTimes(1);
    expect(logger.lines).toHaveLength(1);
    expect(logger.lines[0]).toMatch(/info.*no hookwise\.config\.\* in \/nowhere: hookwise is off for this app/);
  });

  it('builds the engine once from the config file, telling the host its config first', async () => {
    const projectDir = mkdtempSync(path.join(tmpdir(), 'hookwise-project-engine-'));
    onTestFinished(() => rmSync(projectDir, { recursive: true, force: true }));
    writeFileSync(path.join(projectDir, 'hookwise.config.json'), JSON.stringify({ plugins: {}, logLevel: 'debug', hookTimeoutMs: 1234 }));
    const seen: unknown[] = [];
    const build = vi.fn(createEngine);
    const engine = lazyProjectEngine({
      projectDir,
      host: 'test',
      logger: createMemoryLogger(),
      createEngine: build,
      onConfig: (config) => seen.push(config.hookTimeoutMs),
      engineOptions: memory,
    });
    const [first, second] = await Promise.all([engine(), engine()]);
    expect(first).toBeDefined();
    expect(second).toBe(first);
    expect(build).toHaveBeenCalledTimes(1);
    expect(seen).toEqual([1234]);
  });

  it("gives the host the config's log level and hook deadline once loaded, and warn again after a failure", async () => {
    const build = vi.fn((): never => {
      throw new Error('no engine');
    });
    const engine = lazyProjectEngine({
      projectDir: '/nowhere',
      host: 'test',
      logger: createMemoryLogger(),
      config: { logLevel: 'error', hookTimeoutMs: 1234 },
      createEngine: build,
    });
    expect([engine.logLevel, engine.hookTimeoutMs]).toEqual(['warn', DEFAULT_HOOK_TIMEOUT_MS]);
    expect(await engine()).toBeUndefined();
    expect([engine.logLevel, engine.hookTimeoutMs]).toEqual(['warn', 1234]);
    const working = lazyProjectEngine({
      projectDir: '/nowhere',
      host: 'test',
      logger: createMemoryLogger(),
      config: { logLevel: 'debug', hookTimeoutMs: 1234 },
      engineOptions: memory,
    });
    await working();
    expect([working.logLevel, working.hookTimeoutMs]).toEqual(['debug', 1234]);
  });

  it('uses a config given in code without looking for a file', async () => {
    const load = vi.fn();
    const engine = lazyProjectEngine({
      projectDir: '/nowhere',
      host: 'test',
      logger: createMemoryLogger(),
      config: { plugins: [noop()] },
      loadConfig: load,
      engineOptions: memory,
    });
    expect((await engine())!.plugins.map((plugin) => plugin.name)).toEqual(['noop']);
    expect(load).not.toHaveBeenCalled();
  });

  it('fails open: a broken config logs an error, tells the host, and gives undefined', async () => {
    const projectDir = mkdtempSync(path.join(tmpdir(), 'hookwise-project-engine-'));
    onTestFinished(() => rmSync(projectDir, { recursive: true, force: true }));
    writeFileSync(path.join(projectDir, 'hookwise.config.json'), '{ not json');
    const logger = createMemoryLogger();
    const failures: string[] = [];
    const engine = lazyProjectEngine({ projectDir, host: 'test', logger, onFailure: (message) => failures.push(message) });
    expect(await engine()).toBeUndefined();
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain('hookwise is off for this project');
    expect(logger.lines.some((line) => /error/.test(line) && line.includes('could not be loaded'))).toBe(true);
  });

  it('dispose() loads nothing when the engine was never asked for, and disposes it when it was', async () => {
    const load = vi.fn(async () => ({ config: {}, file: undefined }));
    const unused = lazyProjectEngine({ projectDir: '/nowhere', host: 'test', logger: createMemoryLogger(), loadConfig: load });
    await unused.dispose();
    expect(load).not.toHaveBeenCalled();
    const used = lazyProjectEngine({
      projectDir: '/nowhere',
      host: 'test',
      logger: createMemoryLogger(),
      config: { plugins: [noop()] },
      engineOptions: memory,
    });
    const made = (await used())!;
    const dispose = vi.spyOn(made, 'dispose');
    await used.dispose();
    expect(dispose).toHaveBeenCalledTimes(1);
  });
});
