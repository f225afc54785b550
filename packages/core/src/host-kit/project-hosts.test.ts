import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { HookwiseConfig } from '../config.js';
import { createEngine, type Engine } from '../engine.js';
import { createMemoryEventLog } from '../state/event-log.js';
import { createMemoryStateStore } from '../state/file-state-store.js';
import type { HostOptions } from './create-host.js';
import { createProjectHosts } from './project-hosts.js';

/** Host options whose config is `configs[projectDir]` (none: hookwise is off there); engines made and disposed are listed. */
function setup(configs: Record<string, HookwiseConfig | Error>) {
  const made: Array<{ dir: string; engine: Engine; disposed: boolean }> = [];
  let release: (() => void) | undefined;
  const options = (gate?: Promise<void>): Omit<HostOptions, 'projectDir'> => ({
    host: 'test-host',
    log: () => undefined,
    loadConfig: async (dir) => {
      await gate;
      const config = configs[dir];
      if (config instanceof Error) throw config;
      return config ? { config, file: path.join(dir, 'hookwise.config.json') } : { config: {}, file: undefined };
    },
    createEngine: (engineOptions) => {
      const engine = createEngine({ ...engineOptions, stateStore: createMemoryStateStore(), eventLog: createMemoryEventLog() });
      const entry = { dir: engineOptions.projectDir, engine, disposed: false };
      made.push(entry);
      const dispose = engine.dispose.bind(engine);
      engine.dispose = async () => {
        entry.disposed = true;
        await dispose();
      };
      return engine;
    },
  });
  const gate = () => new Promise<void>((resolve) => (release = resolve));
  return { made, options, gate, release: () => release?.() };
}

describe('createProjectHosts', () => {
  it('keeps a host per configured folder and routes a cwd to the innermost folder holding it', async () => {
    const { made, options } = setup({ '/ws/app': {}, '/ws/app/packages/lib': {}, '/ws/other': {}, '/ws/broken': new Error('bad json') });
    const hosts = createProjectHosts();
    const app = await hosts.add('/ws/app', options());
    const lib = await hosts.add('/ws/app/packages/lib/', options());
    expect(await hosts.add('/ws/plain', options())).toBeUndefined(); // no config: hookwise is off there
    expect(await hosts.add('/ws/broken', options())).toBeUndefined(); // a broken one too (the host reported it)
    expect(hosts.size).toBe(2);
    expect(app?.loadedEngine).toBe(made[0]!.engine);
    expect(hosts.get('/ws/app/packages/lib')).toBe(lib);
    expect(hosts.hostFor('/ws/app')).toBe(app);
    expect(hosts.hostFor('/ws/app/src/index.ts')).toBe(app);
    expect(hosts.hostFor('/ws/app/packages/lib/src')).toBe(lib);
    expect(hosts.hostFor('/ws/app/packages/library')).toBe(app); // a sibling sharing the prefix is not inside
    expect(hosts.hostFor('/ws/application')).toBeUndefined();
    expect(hosts.hostFor('/elsewhere')).toBeUndefined();

    lib!.session('task-1');
    expect(hosts.findSession('task-1')).toBe(lib!.session('task-1'));
    expect(hosts.findSession('task-2')).toBeUndefined();

    await hosts.remove('/ws/app/packages/lib');
    expect(made[1]).toMatchObject({ dir: '/ws/app/packages/lib', disposed: true });
    expect(hosts.hostFor('/ws/app/packages/lib/src')).toBe(app);
    await hosts.dispose();
    expect(hosts.size).toBe(0);
    expect(made.map((entry) => entry.disposed)).toEqual([true, true]);
  });

  it('starts no host for a folder removed, or a set disposed, while its config loads; a folder added again replaces its host', async () => {
    const { made, options, gate, release } = setup({ '/ws/a': {}, '/ws/b': {} });
    const hosts = createProjectHosts();
    const removedWhileLoading = hosts.add('/ws/a', options(gate()));
    await hosts.remove('/ws/a');
    release();
    expect(await removedWhileLoading).toBeUndefined();
    expect(hosts.size).toBe(0);
    expect(made).toMatchObject([{ dir: '/ws/a', disposed: true }]);

    const first = await hosts.add('/ws/b', options());
    const second = await hosts.add('/ws/b', options());
    expect(second).not.toBe(first);
    expect(hosts.get('/ws/b')).toBe(second);
    expect(made.slice(1).map((entry) => entry.disposed)).toEqual([true, false]);

    const disposedWhileLoading = hosts.add('/ws/a', options(gate()));
    await hosts.dispose();
    release();
    expect(await disposedWhileLoading).toBeUndefined();
    expect(hosts.size).toBe(0);
    expect(made.every((entry) => entry.disposed)).toBe(true);
  });
});
