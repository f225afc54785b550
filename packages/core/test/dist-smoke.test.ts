import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'tsup';
import { afterAll, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const distEntry = path.join(packageDir, 'dist', 'index.js');
const distFile = (entry: string) => pathToFileURL(path.join(packageDir, 'dist', `${entry}.js`)).href;
const outDir = path.join(packageDir, 'test', '.tmp-dist-smoke');
const made: string[] = [];
/** A temp folder removed after the file's tests. */
const tempDir = (prefix: string) => {
  const directory = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(directory);
  return directory;
};
afterAll(() => [outDir, ...made].forEach((directory) => rmSync(directory, { recursive: true, force: true })));

// Runs against what users get: the built dist, and a decorated class compiled by the same
// tsup + SWC pipeline the packages use.
describe.runIf(existsSync(distEntry))('built dist', () => {
  it('resolves every service token from an engine', async () => {
    const core = await import(distFile('host'));
    const { TOKENS } = await import(distFile('di'));
    const engine = core.createEngine({
      config: {},
      projectDir: tempDir('hookwise-smoke-'),
      host: 'test',
      stateStore: core.createMemoryStateStore(),
      eventLog: core.createMemoryEventLog(),
    });
    const container = engine.sessionContainer('smoke');
    for (const token of [
      TOKENS.LOGGER,
      TOKENS.STATE_STORE,
      TOKENS.TOKEN_COUNTER,
      TOKENS.CLOCK,
      TOKENS.EVENT_LOG,
      TOKENS.PROJECT_DIR,
      TOKENS.HOST,
      TOKENS.SESSION_ID,
    ]) {
      expect(container.resolve(token), String(token)).toBeDefined();
    }
  });

  it('writes state and the event log through the bundled lock and atomic-write libraries, in plain Node', () => {
    // The dependencies are bundled into the ESM dist, where CommonJS-only globals they use
    // (__filename, require) do not exist. Vitest's module runner provides them, so this runs
    // in a plain Node child process, as a hook process would.
    const directory = tempDir('hookwise-smoke-state-');
    const script = `
      const core = await import(${JSON.stringify(distFile('host'))});
      const plugin = await import(${JSON.stringify(distFile('plugin'))});
      const store = core.createFileStateStore({ directory: ${JSON.stringify(directory)} });
      await Promise.all(Array.from({ length: 5 }, () => store.update('s1', 'counter', (current) => (current ?? 0) + 1)));
      const log = plugin.createEventLog({ path: ${JSON.stringify(path.join(directory, 'logs', 'events.jsonl'))}, maxBytes: 200, maxFiles: 2 });
      for (let index = 0; index < 10; index++) await log.append({ type: 'smoke', index });
      const records = await log.readAll({ includeRotated: true });
      console.log(JSON.stringify({ counter: await store.read('s1', 'counter'), last: records.at(-1).index }));
    `;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ counter: 5, last: 9 });
  });

  it('keeps decorator metadata through the package build', async () => {
    // Output inside the package so the bare '@hookwise/core' import resolves to this package's dist.
    await build({
      entry: [path.join(packageDir, 'test', 'fixtures', 'decorated.ts')],
      outDir,
      format: ['esm'],
      target: 'node20',
      platform: 'node',
      silent: true,
      tsconfig: path.join(packageDir, 'tsconfig.json'),
      external: [/^@hookwise\/core/],
      config: false,
    });
    const fixture = await import(pathToFileURL(path.join(outDir, 'decorated.js')).href);
    const core = await import(distFile('host'));
    const engine = core.createEngine({
      config: { plugins: [fixture.probe()] },
      projectDir: tmpdir(),
      host: 'test',
      stateStore: core.createMemoryStateStore(),
      eventLog: core.createMemoryEventLog(),
    });
    const outcome = await engine.emit('tool:after', { sessionId: 'smoke', toolName: 'Read', input: {}, output: '', ok: true });
    expect(outcome.errors).toEqual([]);
    expect(outcome.context).toBe('helper ok');
  });
});

// Plugins written as plain functions never pay for DI: tsyringe and its reflect-metadata
// polyfill (which defines Reflect.getMetadata) load only with `@hookwise/core/di`.
describe.runIf(existsSync(distEntry))('DI loaded only when used', () => {
  const loadsDi = (entries: string[]) => {
    const script = `for (const entry of ${JSON.stringify(entries.map(distFile))}) await import(entry); console.log(typeof Reflect.getMetadata);`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    return result.stdout.trim() === 'function';
  };

  it('the main entry and /host load no tsyringe', () => {
    expect(loadsDi(['index', 'host', 'messages', 'claude-code', 'fs', 'counting'])).toBe(false);
  });

  it('/di loads it', () => {
    expect(loadsDi(['di'])).toBe(true);
  });

  it('an engine given a hook class without /di loaded refuses it with a ConfigError naming /di', () => {
    const script = `
      const core = await import(${JSON.stringify(distFile('index'))});
      const host = await import(${JSON.stringify(distFile('host'))});
      class Probe {}
      Object.defineProperty(Probe, Symbol.for('hookwise.classHooks'), { value: [{ point: 'tool:after', method: 'seen' }] });
      const plugin = core.definePlugin({ meta: { name: 'probe', version: '1.0.0' }, hooks: [Probe] });
      try {
        host.createEngine({ config: { plugins: [plugin()] }, projectDir: ${JSON.stringify(tmpdir())}, host: 'test', stateStore: host.createMemoryStateStore(), eventLog: host.createMemoryEventLog() });
        console.log('built');
      } catch (error) {
        console.log(JSON.stringify({ code: error.code, message: error.message }));
      }`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    const refused = JSON.parse(result.stdout);
    expect(refused.code).toBe('HW_CONFIG');
    expect(refused.message).toContain('plugin "probe"');
    expect(refused.message).toContain('@hookwise/core/di');
  });
});

it.runIf(!existsSync(distEntry))('needs the built dist (run `pnpm build` first)', () => {
  throw new Error(`${distEntry} is missing: build core before running its tests (turbo does this in CI)`);
});
