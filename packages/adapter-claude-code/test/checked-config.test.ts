import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkJsonConfig, compileRunEntry, generateEntry, importEsbuild, sourceOf } from '@hookwise/cli/command-hook';
import { assertBuilt, createScratchProject, hookwise, packageRoot, packagesDir, writeJson, type ScratchProject } from './harness.js';

/** What the run bundle carries of a JSON config: checked with the built core and plugins, as a build does. */
const projects: ScratchProject[] = [];
beforeAll(() => assertBuilt());
afterEach(() => projects.splice(0).forEach((project) => project.remove()));

const coreEntry = path.join(packagesDir, 'core', 'dist', 'index.js');
const runtime = path.join(packageRoot, 'dist', 'hook-process', 'bundle-runtime.js');

/** The bundle a build checks a JSON config with: built without carried options, as buildRunBundle does first. */
async function unchecked(file: string): Promise<{ code: string; file: string }> {
  const projectDir = path.dirname(file);
  const output = await compileRunEntry(await importEsbuild(), { projectDir, configFile: file, coreEntry }, generateEntry(file, runtime));
  return { code: output.outputFiles[0]!.text, file: path.join(projectDir, '.hookwise', 'cache', 'run-check.cjs') };
}
const check = async (file: string) => checkJsonConfig(file, await unchecked(file));
const evaluate = (source: string): unknown => new Function(`return (${source});`)();
const postToolUse = JSON.stringify({
  session_id: 's1',
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_input: {},
  tool_response: { stdout: '' },
});

function scratch(config: unknown): { project: ScratchProject; file: string } {
  const project = createScratchProject('hookwise-carried-');
  projects.push(project);
  const file = path.join(project.dir, 'hookwise.config.json');
  writeJson(file, config);
  return { project, file };
}

/** Each plugin's options as the call would resolve them without the bundle's help. */
async function resolvedByCore(file: string): Promise<unknown[]> {
  const { loadConfig } = (await import(path.join(path.dirname(coreEntry), 'host.js'))) as typeof import('@hookwise/core/host');
  const { config } = await loadConfig(path.dirname(file), { file });
  return (config.plugins ?? []).map((plugin) => plugin.resolveOptions());
}

describe('sourceOf', () => {
  it('writes plain data so that it evaluates to an equal value, key order, undefined and -0 included', () => {
    const values: unknown[] = [
      {
        budgetChars: 8000,
        homeDir: undefined,
        commands: { searchPath: [{ path: '~/x' }, { path: 'a', namespace: 'n' }], fromPrompt: true },
        intent: false,
      },
      [1, 'two', null, undefined, [], {}],
      { 2: 'b', 1: 'a', z: 1, a: 2, '': 0, 'quote"\u2028': 'line\nnext' },
      -0,
      1e21,
      'text',
    ];
    for (const value of values) {
      const source = sourceOf(value);
      expect(source).toBeDefined();
      const copy = evaluate(source!);
      expect(copy).toStrictEqual(value);
      if (typeof value === 'object' && value !== null) expect(Object.keys(copy as object)).toEqual(Object.keys(value));
    }
    expect(Object.is(evaluate(sourceOf(-0)!), -0)).toBe(true);
    expect('homeDir' in (evaluate(sourceOf({ homeDir: undefined })!) as object)).toBe(true);
  });

  it('gives nothing for what a literal cannot reproduce exactly', () => {
    const shared = { a: 1 };
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const holes = [1, , 3];
    const extra = Object.assign([1], { note: 'x' });
    const withGetter = Object.defineProperty({}, 'x', { get: () => 1, enumerable: true });
    const hidden = Object.defineProperty({}, 'x', { value: 1, enumerable: false });
    const protoKey = JSON.parse('{"__proto__": {"polluted": true}}') as unknown;
    for (const value of [
      () => 1,
      new Map(),
      new Date(0),
      /x/,
      NaN,
      Infinity,
      1n,
      Symbol('s'),
      { a: shared, b: shared },
      cycle,
      holes,
      extra,
      withGetter,
      hidden,
      protoKey,
      Object.freeze({ a: 1 }),
      Object.create(null),
      new (class Options {})(),
      { [Symbol('k')]: 1 },
      { nested: { fn: () => 1 } },
    ]) {
      expect(sourceOf(value)).toBeUndefined();
    }
  });
});

describe('checkJsonConfig', () => {
  it('carries the config text and every plugin option as the call would resolve it', async () => {
    const { file } = scratch({
      plugins: {
        '@hookwise/hook-prune': {},
        '@hookwise/hook-precompact': { budgetChars: 2000 },
        '@hookwise/hook-suggest': { toolCalls: 7 },
        '@hookwise/hook-nothing': false,
      },
    });
    const carried = await check(file);
    expect(carried?.text).toBe(readFileSync(file, 'utf8'));
    expect(Object.keys(carried!.options)).toEqual(['@hookwise/hook-prune', '@hookwise/hook-precompact', '@hookwise/hook-suggest']);
    const expected = await resolvedByCore(file);
    expect(Object.values(carried!.options).map(evaluate)).toStrictEqual(expected);
    expect(evaluate(carried!.options['@hookwise/hook-suggest']!)).toMatchObject({ toolCalls: 7, capacityPercent: 70 });
  });

  it('carries nothing when the config or an option is bad, or a plugin does not load: the call reports it', async () => {
    expect(await check(scratch({ plugins: { '@hookwise/hook-suggest': { toolCalls: -3 } } }).file)).toBeUndefined();
    expect(await check(scratch({ plugins: {}, logLevle: 'debug' }).file)).toBeUndefined();
    // A package that throws at import.
    const { project: throwing, file: throwingFile } = scratch({ plugins: { 'hookwise-plugin-throws': {} } });
    const folder = path.join(throwing.dir, 'node_modules', 'hookwise-plugin-throws');
    mkdirSync(folder, { recursive: true });
    writeJson(path.join(folder, 'package.json'), { name: 'hookwise-plugin-throws', type: 'module', exports: './index.js' });
    writeFileSync(path.join(folder, 'index.js'), "throw new Error('broken at import');\n");
    expect(await check(throwingFile)).toBeUndefined();
    // The file turned bad after the bundle was built.
    const { file } = scratch({ plugins: { '@hookwise/hook-suggest': {} } });
    const bundle = await unchecked(file);
    writeFileSync(file, '{ not json');
    expect(await checkJsonConfig(file, bundle)).toBeUndefined();
  });

  it('leaves out a plugin whose resolved options are not plain data: it is validated on each call', async () => {
    const { project, file } = scratch({ plugins: { 'hookwise-plugin-odd': {}, '@hookwise/hook-suggest': {} }, on: ['./hooks.mjs'] });
    const odd = path.join(project.dir, 'node_modules', 'hookwise-plugin-odd');
    mkdirSync(odd, { recursive: true });
    writeJson(path.join(odd, 'package.json'), { name: 'hookwise-plugin-odd', type: 'module', exports: './index.js' });
    writeFileSync(
      path.join(odd, 'index.js'),
      "import { definePlugin } from '@hookwise/core';\nexport default definePlugin({ meta: { name: 'odd', version: '1.0.0' }, options: { safeParse: () => ({ success: true, data: { since: new Date(0) } }) }, hooks: [] });\n",
    );
    // Hook files are not loaded to check plugin options (this one would throw).
    writeFileSync(path.join(project.dir, 'hooks.mjs'), "throw new Error('not loaded at build time');\n");
    const carried = await check(file);
    expect(Object.keys(carried!.options)).toEqual(['@hookwise/hook-suggest']);
  });
});

describe('generateEntry', () => {
  it('hands what was checked to core with the loaders, and nothing without it', async () => {
    const { file } = scratch({ plugins: { '@hookwise/hook-suggest': { toolCalls: 7 } } });
    const carried = await check(file);
    const entry = generateEntry(file, '/runtime.js', carried);
    const configLine = entry.split('\n').find((line) => line.startsWith('export const config = '))!;
    const config = evaluate(configLine.slice('export const config = '.length, -1).replace(/\(\) => require\([^)]*\)/g, 'null')) as {
      checked: { text: string; options: Record<string, unknown> };
    };
    expect(config.checked.text).toBe(readFileSync(file, 'utf8'));
    expect(config.checked.options).toStrictEqual({ '@hookwise/hook-suggest': evaluate(carried!.options['@hookwise/hook-suggest']!) });
    expect(generateEntry(file, '/runtime.js')).not.toContain('checked');
  });
});

describe('the run bundle', () => {
  it('carries what its build resolved; a new plugin version rebuilds it with the new resolution', async () => {
    const { project, file } = scratch({ plugins: { 'hookwise-plugin-double': { n: 2 } } });
    const plugin = path.join(project.dir, 'node_modules', 'hookwise-plugin-double');
    mkdirSync(plugin, { recursive: true });
    // Its options resolve to `n` times a factor that a new version of the package changes.
    const release = (version: string, factor: number) => {
      writeJson(path.join(plugin, 'package.json'), { name: 'hookwise-plugin-double', version, type: 'module', exports: './index.js' });
      writeFileSync(
        path.join(plugin, 'index.js'),
        `import { definePlugin } from '@hookwise/core';\nexport default definePlugin({ meta: { name: 'double', version: '${version}' }, options: () => ({ safeParse: (value) => ({ success: true, data: { n: value.n * ${factor} } }) }), hooks: [] });\n`,
      );
    };
    // A hook call builds the bundle in a process of its own, as Claude Code starts one per call.
    const call = () => {
      const result = hookwise(['run', 'PostToolUse'], {
        cwd: project.dir,
        input: postToolUse,
        env: { HOME: project.home, CLAUDE_PROJECT_DIR: project.dir },
      });
      expect([result.code, result.stderr]).toEqual([0, '']);
      const manifest = JSON.parse(readFileSync(path.join(project.dir, '.hookwise', 'cache', 'claude-code', 'run-bundle.json'), 'utf8')) as {
        bundle: string;
        watched: Array<[string]>;
      };
      const bundled = createRequire(import.meta.url)(path.join(project.dir, '.hookwise', 'cache', 'claude-code', manifest.bundle)) as {
        config: { checked?: { text: string; options: Record<string, unknown> } };
      };
      return { watched: manifest.watched.map(([watched]) => watched), checked: bundled.config.checked };
    };

    release('1.0.0', 2);
    const first = call();
    expect(first.watched).toContain(path.join(plugin, 'package.json'));
    expect(first.checked).toStrictEqual({ text: readFileSync(file, 'utf8'), options: { 'hookwise-plugin-double': { n: 4 } } });
    expect((await check(file))?.options).toEqual({ 'hookwise-plugin-double': '{"n": 4}' });

    release('1.0.1', 3);
    expect(call().checked?.options).toStrictEqual({ 'hookwise-plugin-double': { n: 6 } });
    // Each check runs the code just bundled, never a copy this process loaded before.
    expect((await check(file))?.options).toEqual({ 'hookwise-plugin-double': '{"n": 6}' });
  });
});
