import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mergeSettingsEntry, relativeEntry } from '@hookwise/core/host';
import { OPENCODE_HOST, readOpenCodeConfig } from './opencode-json.js';
import { checkPluginEntry, pluginEntryMatcher } from './plugin-entry.js';

// The entry init writes and doctor checks is core's settings entry, with OpenCode's file and matcher.
const pluginSpec = relativeEntry;
const isHookwiseEntry = pluginEntryMatcher(OPENCODE_HOST.packageName);
const mergeOpenCodePlugin = (config: Record<string, unknown>, spec: string) => {
  const merged = mergeSettingsEntry(config, 'plugin', isHookwiseEntry, spec);
  return { config: merged.settings, changed: merged.changed };
};
const checkOpenCodePlugin = (projectDir: string) => checkPluginEntry(OPENCODE_HOST, projectDir);

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

describe('opencode.json plugin entry', () => {
  it('is a path relative to the config file, never a bare name', () => {
    expect(pluginSpec('/p/opencode.json', '/p/node_modules/@hookwise/adapter-opencode')).toBe('./node_modules/@hookwise/adapter-opencode');
    expect(pluginSpec('/p/app/opencode.json', '/p/node_modules/@hookwise/adapter-opencode')).toBe(
      '../node_modules/@hookwise/adapter-opencode',
    );
  });

  it('recognises hookwise entries by path or name, with or without options', () => {
    for (const entry of [
      './node_modules/@hookwise/adapter-opencode',
      '@hookwise/adapter-opencode',
      '@hookwise/adapter-opencode@1.0.0',
      ['../node_modules/@hookwise/adapter-opencode', { toasts: false }],
      'file:///x/packages/adapter-opencode',
    ]) {
      expect(isHookwiseEntry(entry), JSON.stringify(entry)).toBe(true);
    }
    for (const entry of ['@tarquinen/opencode-dcp', './plugins/mine.js', 42]) expect(isHookwiseEntry(entry)).toBe(false);
  });

  it('adds the entry, keeps every other key and plugin, corrects a wrong path keeping its options, and is idempotent', () => {
    const spec = './node_modules/@hookwise/adapter-opencode';
    const added = mergeOpenCodePlugin({ model: 'a/b', plugin: ['@tarquinen/opencode-dcp'] }, spec);
    expect(added).toEqual({ changed: true, config: { model: 'a/b', plugin: ['@tarquinen/opencode-dcp', spec] } });
    expect(mergeOpenCodePlugin(added.config, spec)).toEqual({ changed: false, config: added.config });
    const corrected = mergeOpenCodePlugin({ plugin: [['@hookwise/adapter-opencode', { toasts: false }]] }, spec);
    expect(corrected).toEqual({ changed: true, config: { plugin: [[spec, { toasts: false }]] } });
  });

  it('refuses to rewrite opencode.jsonc (comments would be lost) and reports bad JSON', () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'hookwise-opencode-setup-'));
    writeFileSync(path.join(root, 'opencode.jsonc'), '{ // mine\n}');
    expect(readOpenCodeConfig(root)).toMatchObject({ ok: false, message: expect.stringContaining('by hand') });
    writeFileSync(path.join(root, 'opencode.json'), '{ nope');
    expect(readOpenCodeConfig(root)).toMatchObject({ ok: false, message: expect.stringContaining('not valid JSON') });
  });

  it('doctor: a bare name, a missing folder and a correct entry', () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'hookwise-opencode-setup-'));
    const write = (plugin: unknown[]) => writeFileSync(path.join(root!, 'opencode.json'), JSON.stringify({ plugin }));
    write(['@hookwise/adapter-opencode']);
    expect(checkOpenCodePlugin(root).problems[0]).toMatch(/bare name/);
    write(['./node_modules/@hookwise/adapter-opencode']);
    expect(checkOpenCodePlugin(root).problems[0]).toMatch(/no package.json/);
    const folder = path.join(root, 'node_modules', '@hookwise', 'adapter-opencode');
    mkdirSync(path.join(folder, 'dist'), { recursive: true });
    writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ main: './dist/index.js' }));
    writeFileSync(path.join(folder, 'dist', 'index.js'), 'export const HookwisePlugin = async () => ({});');
    expect(checkOpenCodePlugin(root)).toEqual({
      ok: ['opencode.json loads @hookwise/adapter-opencode from ./node_modules/@hookwise/adapter-opencode'],
      problems: [],
    });
    write(['./node_modules/@hookwise/adapter-opencode', './node_modules/@hookwise/adapter-opencode']);
    expect(checkOpenCodePlugin(root).problems[0]).toMatch(/2 times/);
  });
});
