import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'tsup';
import { afterAll, describe, expect, it } from 'vitest';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const distEntry = path.join(packageDir, 'dist', 'index.js');
const outDir = path.join(packageDir, 'test', '.tmp-dist-smoke');
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

// Runs against what users get: the built dist, and a decorated class compiled by the same
// tsup + SWC pipeline the packages use.
describe.runIf(existsSync(distEntry))('built dist', () => {
  it('resolves every service token from an engine', async () => {
    const core = await import(pathToFileURL(distEntry).href);
    const engine = core.createEngine({ config: {}, projectDir: mkdtempSync(path.join(tmpdir(), 'hookwise-smoke-')), host: 'test', stateStore: core.createMemoryStateStore(), eventLog: core.createMemoryEventLog() });
    const container = engine.sessionContainer('smoke');
    for (const token of [core.LOGGER, core.STATE_STORE, core.TOKEN_COUNTER, core.CLOCK, core.EVENT_LOG, core.PROJECT_DIR, core.HOST, core.SESSION_ID]) {
      expect(container.resolve(token), String(token)).toBeDefined();
    }
  });

  it('keeps decorator metadata through the package build', async () => {
    // Output inside the package so the bare '@hookwise/core' import resolves to this package's dist.
    await build({ entry: [path.join(packageDir, 'test', 'fixtures', 'decorated.ts')], outDir, format: ['esm'], target: 'node20', platform: 'node', silent: true, tsconfig: path.join(packageDir, 'tsconfig.json'), external: ['@hookwise/core'], config: false });
    const fixture = await import(pathToFileURL(path.join(outDir, 'decorated.js')).href);
    const core = await import(pathToFileURL(distEntry).href);
    const engine = core.createEngine({ config: { plugins: [fixture.probe()] }, projectDir: tmpdir(), host: 'test', stateStore: core.createMemoryStateStore(), eventLog: core.createMemoryEventLog() });
    const outcome = await engine.emit('tool:after', { sessionId: 'smoke', toolName: 'Read', input: {}, output: '', ok: true });
    expect(outcome.errors).toEqual([]);
    expect(outcome.context).toBe('helper ok');
  });
});

it.runIf(!existsSync(distEntry))('needs the built dist (run `pnpm build` first)', () => {
  throw new Error(`${distEntry} is missing: build core before running its tests (turbo does this in CI)`);
});
