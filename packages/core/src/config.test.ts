import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it, vi } from 'vitest';
import {
  configFromBundle,
  configFromJson,
  configFromModule,
  defaultExport,
  defineConfig,
  loadConfig,
  loadPlugin,
  pluginFromModule,
} from './config.js';
import { ConfigError } from './errors.js';

const made: string[] = [];
afterAll(() => made.forEach((directory) => rmSync(directory, { recursive: true, force: true })));

function project(files: Record<string, string>): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'hookwise-config-'));
  made.push(directory);
  for (const [name, content] of Object.entries(files)) {
    const target = path.join(directory, name);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  return directory;
}

// A plugin package written without importing core: plugins are recognised by a Symbol.for
// marker, so one built against another copy of core still loads.
const fakePlugin = `
const marker = Symbol.for('hookwise.Plugin');
export default function fake(options) {
  return {
    [marker]: true, specificationVersion: 'v1', meta: { name: 'fake', version: '1.0.0' }, rawOptions: options,
    definition: { meta: { name: 'fake', version: '1.0.0' }, hooks: [] },
    resolveOptions() {
      if (options && typeof options.level !== 'number') throw Object.assign(new Error('[fake] invalid options\\n✖ Invalid input: expected number\\n  → at level'), { [Symbol.for('hookwise.error')]: true, code: 'HW_PLUGIN' });
      return options ?? {};
    },
  };
}`;
const fakePackage = {
  'node_modules/hookwise-plugin-fake/package.json': JSON.stringify({ name: 'hookwise-plugin-fake', type: 'module', exports: './index.js' }),
  'node_modules/hookwise-plugin-fake/index.js': fakePlugin,
};

describe('loadConfig', () => {
  it('gives an empty config to a project without a config file', async () => {
    expect(await loadConfig(project({}))).toEqual({ config: {}, file: undefined });
  });

  it('loads a JSON config, resolving plugins by package name from the config folder', async () => {
    const directory = project({
      ...fakePackage,
      'hookwise.config.json': JSON.stringify({ plugins: { 'hookwise-plugin-fake': { level: 2 } }, hookTimeoutMs: 900 }),
    });
    const { config, file } = await loadConfig(directory);
    expect(file).toBe(path.join(directory, 'hookwise.config.json'));
    expect(config.hookTimeoutMs).toBe(900);
    expect(config.plugins?.map((plugin) => [plugin.meta.name, plugin.rawOptions])).toEqual([['fake', { level: 2 }]]);
  });

  it('skips plugins set to false and calls the factory without options for true', async () => {
    const directory = project({ ...fakePackage, 'hookwise.config.json': JSON.stringify({ plugins: { 'hookwise-plugin-fake': true } }) });
    expect((await loadConfig(directory)).config.plugins?.[0]?.rawOptions).toBeUndefined();
    const off = project({ ...fakePackage, 'hookwise.config.json': JSON.stringify({ plugins: { 'hookwise-plugin-fake': false } }) });
    expect((await loadConfig(off)).config.plugins).toEqual([]);
  });

  it('names the line and column of a JSON syntax error, not a character position', async () => {
    const directory = project({ 'hookwise.config.json': '{\n  "plugins": {\n    "x": {}\n    "y": {}\n  }\n}\n' });
    const error = await loadConfig(directory).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^${path.join(directory, 'hookwise.config.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: is not valid JSON at line 4, column 5: `,
      ),
    );
    expect((error as Error).message).not.toMatch(/position/);
  });

  it('names the file and the unknown key', async () => {
    const directory = project({ 'hookwise.config.json': JSON.stringify({ hookTimeoutMs: 10, logLevle: 'debug' }) });
    const error = await loadConfig(directory).catch((caught: unknown) => caught);
    expect(ConfigError.isInstance(error)).toBe(true);
    expect((error as Error).message).toBe(
      `${path.join(directory, 'hookwise.config.json')}: invalid config\n✖ Unrecognized key: "logLevle"`,
    );
  });

  it('names the path of a bad value', async () => {
    const directory = project({ 'hookwise.config.json': JSON.stringify({ eventLog: { maxBytes: -1 } }) });
    await expect(loadConfig(directory)).rejects.toThrow(
      /invalid config\n✖ Too small: expected number to be >0\n {2}→ at eventLog\.maxBytes/,
    );
  });

  it('names file and plugin when a plugin option is invalid', async () => {
    const directory = project({
      ...fakePackage,
      'hookwise.config.json': JSON.stringify({ plugins: { 'hookwise-plugin-fake': { level: 'high' } } }),
    });
    await expect(loadConfig(directory)).rejects.toThrow(
      /hookwise\.config\.json: at plugins\["hookwise-plugin-fake"\]: \[fake\] invalid options[\s\S]*→ at level/,
    );
  });

  it('says how to install a plugin that does not resolve', async () => {
    const directory = project({ 'hookwise.config.json': JSON.stringify({ plugins: { '@hookwise/hook-missing': {} } }) });
    await expect(loadConfig(directory)).rejects.toThrow(
      /plugin "@hookwise\/hook-missing" cannot be resolved from .*; install it in the project \(npm install @hookwise\/hook-missing\)/,
    );
  });

  it('reports invalid JSON with the file name', async () => {
    const directory = project({ 'hookwise.config.json': '{ "plugins": ' });
    await expect(loadConfig(directory)).rejects.toThrow(/hookwise\.config\.json: is not valid JSON/);
  });

  it('loads an ESM config and validates its shape', async () => {
    const good = project({ 'hookwise.config.mjs': 'export default { hookTimeoutMs: 250, tokenCounter: "json-aware" };' });
    expect((await loadConfig(good)).config).toEqual({ hookTimeoutMs: 250, tokenCounter: 'json-aware' });
    const bad = project({ 'hookwise.config.mjs': 'export default { plugins: [{ name: "not-a-plugin" }] };' });
    await expect(loadConfig(bad)).rejects.toThrow(/expected a plugin instance[\s\S]*→ at plugins\[0\]/);
    const none = project({ 'hookwise.config.mjs': 'export const config = {};' });
    await expect(loadConfig(none)).rejects.toThrow(/has no default export/);
  });

  it('prefers the TypeScript config and compiles it once per content', async () => {
    const directory = project({
      'hookwise.config.ts':
        "import { timeout } from './timeout.ts';\nconst config: { hookTimeoutMs: number } = { hookTimeoutMs: timeout };\nexport default config;\n",
      'timeout.ts': 'export const timeout: number = 321;\n',
      'hookwise.config.json': '{}',
    });
    expect((await loadConfig(directory)).config.hookTimeoutMs).toBe(321);
    const cache = path.join(directory, '.hookwise', 'cache');
    const outputs = () => readdirSync(cache).filter((name) => name.endsWith('.mjs'));
    expect(outputs()).toHaveLength(1);
    await loadConfig(directory);
    expect(outputs()).toHaveLength(1);
    // A change in an imported local file invalidates the cache.
    writeFileSync(path.join(directory, 'timeout.ts'), 'export const timeout: number = 654;\n');
    expect((await loadConfig(directory)).config.hookTimeoutMs).toBe(654);
    expect(outputs()).toHaveLength(2);
  });

  it('never writes or imports through a link planted in the TypeScript config cache', async () => {
    const directory = project({
      'hookwise.config.ts': 'const config: { hookTimeoutMs: number } = { hookTimeoutMs: 7 };\nexport default config;\n',
    });
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'hookwise-elsewhere-'));
    try {
      // A linked cache folder: nothing is written where it points, the load fails naming the link.
      mkdirSync(path.join(directory, '.hookwise'));
      symlinkSync(elsewhere, path.join(directory, '.hookwise', 'cache'));
      await expect(loadConfig(directory)).rejects.toThrow(/could not cache the compiled config: .*cache.*symbolic link/);
      expect(readdirSync(elsewhere)).toEqual([]);
      rmSync(path.join(directory, '.hookwise', 'cache'));
      // A real cache whose manifest names a planted file outside it: compiled again, not imported.
      expect((await loadConfig(directory)).config.hookTimeoutMs).toBe(7);
      const cache = path.join(directory, '.hookwise', 'cache');
      const manifest = readdirSync(cache).find((name) => name.endsWith('.json'))!;
      const planted = path.join(elsewhere, 'config-0000000000000000.mjs');
      writeFileSync(planted, 'export default { hookTimeoutMs: 666 };\n');
      const output = readdirSync(cache).find((name) => name.endsWith('.mjs'))!;
      writeFileSync(
        path.join(cache, manifest),
        JSON.stringify({ ...JSON.parse(readFileSync(path.join(cache, manifest), 'utf8')), output: planted }),
      );
      expect((await loadConfig(directory)).config.hookTimeoutMs).toBe(7);
      // The output replaced by a link to the planted module: neither imported nor written through.
      rmSync(path.join(cache, output));
      symlinkSync(planted, path.join(cache, output));
      await expect(loadConfig(directory)).rejects.toThrow(/could not cache the compiled config: .*symbolic link/);
      expect(readFileSync(planted, 'utf8')).toBe('export default { hookTimeoutMs: 666 };\n');
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('builds a JSON config from modules a host supplies (a bundle), with the same checks', async () => {
    const marker = Symbol.for('hookwise.Plugin');
    const factory = (options: unknown) => ({
      [marker]: true,
      specificationVersion: 'v1',
      meta: { name: 'fake', version: '1' },
      rawOptions: options,
      definition: { meta: { name: 'fake', version: '1' }, hooks: [] },
      resolveOptions: () => options ?? {},
    });
    // CommonJS interop in bundles can wrap a default export twice.
    const modules = {
      plugin: (name: string) => (name === 'fake' ? { default: { default: factory } } : undefined),
      hooks: () => ({ default: {} }),
    };
    const config = await configFromJson(
      { plugins: { fake: { level: 1 } }, on: ['./none.mjs'], hookTimeoutMs: 50 },
      '/p/hookwise.config.json',
      modules,
    );
    expect(config.hookTimeoutMs).toBe(50);
    expect(config.plugins?.map((plugin) => plugin.rawOptions)).toEqual([{ level: 1 }]);
    await expect(configFromJson({ hookTimeoutMs: 'soon' }, '/p/hookwise.config.json', modules)).rejects.toThrow(
      /\/p\/hookwise\.config\.json: invalid config\n✖ Invalid input: expected number, received string\n {2}→ at hookTimeoutMs/,
    );
    await expect(configFromJson({ plugins: { other: true } }, '/p/hookwise.config.json', modules)).rejects.toThrow(
      /plugin "other" has no default export that makes a hookwise plugin/,
    );
  });

  it("takes a JSON config's own hooks from the modules its on lists, in order, several on a point", async () => {
    const directory = project({
      'hookwise.config.json': JSON.stringify({ on: ['./hooks/first.mjs', './hooks/second.mjs'] }),
      'hooks/first.mjs': "export default { 'tool:after': () => ({ context: 'first' }), 'agent:stop': () => undefined };\n",
      'hooks/second.mjs': "export default { 'tool:after': [{ handler: () => ({ context: 'second' }), name: 'second', order: 'post' }] };\n",
    });
    const { config } = await loadConfig(directory);
    expect(Object.keys(config.on ?? {})).toEqual(['tool:after', 'agent:stop']);
    const afterTool = config.on?.['tool:after'] as unknown[];
    expect(afterTool).toHaveLength(2);
    expect(afterTool[1]).toMatchObject({ name: 'second', order: 'post' });
  });

  describe('refuses the removed ways of declaring hooks, naming what to write instead', () => {
    const oldSet = "{ [Symbol.for('hookwise.HookSet')]: true, name: 'legacy', on: { 'tool:after': () => undefined } }";

    it('a config module with hooks', async () => {
      const directory = project({ 'hookwise.config.mjs': `export default { hooks: [${oldSet}] };\n` });
      await expect(loadConfig(directory)).rejects.toThrow(
        /hookwise\.config\.mjs: at hooks: `hooks` \(and defineHook\) are no longer taken; write the hooks under `on` instead: `on: \{ 'tool:after': fn \}`, `\{ handler: fn, order: 'post', name: 'my-hook' \}`/,
      );
    });

    it('a config module that imports defineHook', async () => {
      const directory = project({
        'node_modules/@hookwise/core/package.json': JSON.stringify({ name: '@hookwise/core', type: 'module', exports: './index.js' }),
        'node_modules/@hookwise/core/index.js': 'export const defineConfig = (config) => config;\n',
        'hookwise.config.mjs':
          "import { defineConfig, defineHook } from '@hookwise/core';\nexport default defineConfig({ hooks: [defineHook({ name: 'x', on: {} })] });\n",
      });
      await expect(loadConfig(directory)).rejects.toThrow(
        /could not import: .*defineHook.*\(defineHook is no longer part of @hookwise\/core: write the hooks under `on` instead/,
      );
    });

    it('a JSON config with hooks, and a hook module that exports defineHook sets', async () => {
      const old = project({
        'hookwise.config.json': JSON.stringify({ hooks: ['./hooks.mjs'] }),
        'hooks.mjs': `export default [${oldSet}];\n`,
      });
      await expect(loadConfig(old)).rejects.toThrow(
        /hookwise\.config\.json: at hooks: "hooks" is no longer taken; list the hook modules under "on" instead \("on": \["\.\/hooks\.mjs"\]\)/,
      );
      const oldModule = project({
        'hookwise.config.json': JSON.stringify({ on: ['./hooks.mjs'] }),
        'hooks.mjs': `export default [${oldSet}];\n`,
      });
      await expect(loadConfig(oldModule)).rejects.toThrow(
        /at on: "\.\/hooks\.mjs" must export its hooks by point as default \(export default \{ 'tool:after': fn \}\); defineHook\(\.\.\.\) is no longer taken: write the hooks under `on`/,
      );
    });
  });

  it('validates a config module a host imported itself', async () => {
    expect(await configFromModule(() => ({ hookTimeoutMs: 7 }), '/p/hookwise.config.mjs')).toEqual({ hookTimeoutMs: 7 });
    await expect(configFromModule({ plugins: 'all' }, '/p/hookwise.config.mjs')).rejects.toThrow(/invalid config[\s\S]*→ at plugins/);
  });

  it('defineConfig is the identity', () => {
    const config = { hookTimeoutMs: 1 };
    expect(defineConfig(config)).toBe(config);
  });
});

describe('plugin loading by package name (the one place adapters call)', () => {
  it('loads from the first place that has the package, default export called with the options', async () => {
    const empty = project({});
    const withPlugin = project(fakePackage);
    const instance = await loadPlugin('hookwise-plugin-fake', { from: [empty, withPlugin], options: { level: 3 } });
    expect(instance.meta.name).toBe('fake');
    expect(instance.rawOptions).toEqual({ level: 3 });
  });

  it('says where it looked when no place has the package', async () => {
    const empty = project({});
    await expect(loadPlugin('hookwise-plugin-missing', { from: [empty] })).rejects.toMatchObject({
      code: 'HW_PLUGIN_NOT_FOUND',
      message: expect.stringContaining(`cannot be resolved from ${empty}`),
    });
  });

  it('validates the options (the plugin names itself)', async () => {
    await expect(loadPlugin('hookwise-plugin-fake', { from: project(fakePackage), options: { level: 'high' } })).rejects.toThrow(
      /\[fake\] invalid options/,
    );
  });

  it('unwraps a default export however a bundler shaped it, and takes a function as it is', () => {
    const factory = () => undefined;
    expect(defaultExport({ default: factory })).toBe(factory);
    expect(defaultExport({ default: { default: factory } })).toBe(factory);
    expect(defaultExport(factory)).toBe(factory);
    expect(defaultExport({ named: factory })).toBeUndefined();
    expect(() => pluginFromModule({ default: factory }, 'x')).toThrow(/plugin "x": its default export did not return a hookwise plugin/);
  });
});

describe('esbuild is an optional peer', () => {
  it('names the package to install when a TypeScript config meets no esbuild', async () => {
    vi.resetModules();
    vi.doMock('esbuild', () => {
      throw new Error("Cannot find package 'esbuild'");
    });
    try {
      const { loadConfig: load } = await import('./config.js');
      const directory = project({ 'hookwise.config.ts': 'export default { hookTimeoutMs: 5 };\n' });
      await expect(load(directory)).rejects.toThrow(
        /hookwise\.config\.ts: a TypeScript config needs esbuild, an optional peer dependency of @hookwise\/core: install it in the project \(npm install --save-dev esbuild\)/,
      );
      // JavaScript and JSON configs never need it.
      const plain = project({ 'hookwise.config.mjs': 'export default { hookTimeoutMs: 5 };\n' });
      expect((await load(plain)).config.hookTimeoutMs).toBe(5);
    } finally {
      vi.doUnmock('esbuild');
      vi.resetModules();
    }
  });
});

describe('configFromBundle (modules a host imported itself)', () => {
  it('validates a bundled config module and a bundled JSON config like loadConfig', async () => {
    expect(await configFromBundle({ kind: 'module', file: '/p/hookwise.config.mjs', module: { default: { hookTimeoutMs: 9 } } })).toEqual({
      hookTimeoutMs: 9,
    });
    await expect(configFromBundle({ kind: 'module', file: '/p/hookwise.config.mjs', module: {} })).rejects.toThrow(/has no default export/);
    const directory = project({ 'hookwise.config.json': JSON.stringify({ plugins: { 'hookwise-plugin-fake': { level: 4 } } }) });
    const module = await import(pathToFileURL(path.join(project(fakePackage), 'node_modules/hookwise-plugin-fake/index.js')).href);
    const config = await configFromBundle({
      kind: 'json',
      file: path.join(directory, 'hookwise.config.json'),
      plugins: { 'hookwise-plugin-fake': module },
      hookModules: {},
    });
    expect(config.plugins?.map((plugin) => plugin.rawOptions)).toEqual([{ level: 4 }]);
  });

  describe('with what the bundle checked when it was built', () => {
    const marker = Symbol.for('hookwise.Plugin');
    /** A plugin module whose validation is counted, and refuses a non-number `level`. */
    const counted = (name: string) => {
      const validate = vi.fn((options: { level?: unknown } | undefined) => {
        if (options && typeof options.level !== 'number')
          throw Object.assign(new Error(`[${name}] invalid options\n✖ Invalid input: expected number\n  → at level`), {
            [Symbol.for('hookwise.error')]: true,
            code: 'HW_PLUGIN',
          });
        return { level: 1, ...options };
      });
      const factory = (options?: { level?: unknown }) => ({
        [marker]: true,
        specificationVersion: 'v1',
        meta: { name, version: '1' },
        rawOptions: options,
        definition: { meta: { name, version: '1' }, hooks: [] },
        resolveOptions: () => validate(options),
      });
      return { module: { default: factory }, validate };
    };
    const setUp = (config: unknown) => {
      const text = JSON.stringify(config);
      const file = path.join(project({ 'hookwise.config.json': text }), 'hookwise.config.json');
      const a = counted('a');
      const b = counted('b');
      return { text, file, a, b, plugins: { a: a.module, b: b.module } };
    };

    it('takes the carried options as they are, validating neither them nor the config', async () => {
      const { text, file, a, b, plugins } = setUp({ plugins: { a: { level: 2 }, b: true }, hookTimeoutMs: 40 });
      const carried = { level: 2, carried: true };
      const config = await configFromBundle({
        kind: 'json',
        file,
        plugins,
        hookModules: {},
        checked: { text, options: { a: carried, b: { level: 1 } } },
      });
      expect(config.hookTimeoutMs).toBe(40);
      expect(config.plugins?.map((plugin) => plugin.rawOptions)).toEqual([{ level: 2 }, undefined]);
      expect(config.plugins?.[0]?.resolveOptions()).toBe(carried);
      expect(config.plugins?.[1]?.resolveOptions()).toEqual({ level: 1 });
      expect(a.validate).not.toHaveBeenCalled();
      expect(b.validate).not.toHaveBeenCalled();
    });

    it('validates a plugin whose options were not carried (once: the engine gets the result)', async () => {
      const { text, file, a, b, plugins } = setUp({ plugins: { a: { level: 2 }, b: { level: 3 } } });
      const config = await configFromBundle({
        kind: 'json',
        file,
        plugins,
        hookModules: {},
        checked: { text, options: { a: { level: 2 } } },
      });
      expect(a.validate).not.toHaveBeenCalled();
      expect(b.validate).toHaveBeenCalledTimes(1);
      expect(config.plugins?.[1]?.resolveOptions()).toEqual({ level: 3 });
      expect(b.validate).toHaveBeenCalledTimes(1);
    });

    it('ignores them once the file has other text, and reports a bad option or config as without them', async () => {
      const { text, file, a, plugins } = setUp({ plugins: { a: { level: 'high' }, b: false } });
      const stale = { text: text.replace('"high"', '2'), options: { a: { level: 2 } } };
      await expect(configFromBundle({ kind: 'json', file, plugins, hookModules: {}, checked: stale })).rejects.toThrow(
        /hookwise\.config\.json: at plugins\["a"\]: \[a\] invalid options[\s\S]*→ at level/,
      );
      expect(a.validate).toHaveBeenCalledTimes(1);
      writeFileSync(file, JSON.stringify({ plugins: { a: { level: 2 } }, logLevle: 'debug' }));
      await expect(configFromBundle({ kind: 'json', file, plugins, hookModules: {}, checked: { text, options: {} } })).rejects.toThrow(
        /invalid config\n✖ Unrecognized key: "logLevle"/,
      );
    });
  });
});

describe('cache freshness (one rule for every hookwise cache)', () => {
  it('a cache is fresh while every stamped file keeps its mtime and size', async () => {
    const { fileStamps, stampsFresh } = await import('./state/file-stamps.js');
    const directory = project({ 'a.txt': 'one', 'b.txt': 'two' });
    const files = [path.join(directory, 'a.txt'), path.join(directory, 'b.txt'), path.join(directory, 'missing.txt')];
    const stamps = fileStamps(files);
    expect(stamps.map(([file]) => path.basename(file))).toEqual(['a.txt', 'b.txt']);
    expect(stampsFresh(stamps)).toBe(true);
    writeFileSync(files[1]!, 'two, longer');
    expect(stampsFresh(stamps)).toBe(false);
    rmSync(files[0]!);
    expect(stampsFresh(fileStamps(files.slice(0, 1)).concat(stamps.slice(0, 1)))).toBe(false);
  });
});
