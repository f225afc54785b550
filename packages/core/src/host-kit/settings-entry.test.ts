import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './temp-dirs.testing.js';
import { checkSettingsEntry, mergeSettingsEntry, planSettingsEntry } from './settings-entry.js';
import { readJsonObject } from './settings-file.js';

const isEntry = (entry: unknown) => {
  const spec = Array.isArray(entry) ? entry[0] : entry;
  return typeof spec === 'string' && spec.includes('adapter-x');
};

describe('an adapter entry in a settings file list', () => {
  it('is added when missing, corrected with its options kept, and left alone when right', () => {
    const spec = './node_modules/@hookwise/adapter-x';
    const added = mergeSettingsEntry({ model: 'm', plugin: ['other'] }, 'plugin', isEntry, spec);
    expect(added).toEqual({ changed: true, settings: { model: 'm', plugin: ['other', spec] } });
    expect(mergeSettingsEntry(added.settings, 'plugin', isEntry, spec)).toEqual({ changed: false, settings: added.settings });
    expect(mergeSettingsEntry({ plugin: [['@hookwise/adapter-x', { a: 1 }]] }, 'plugin', isEntry, spec)).toEqual({
      changed: true,
      settings: { plugin: [[spec, { a: 1 }]] },
    });
    expect(mergeSettingsEntry({ list: ['../adapter-x'] }, 'list', isEntry, spec).settings).toEqual({ list: [spec] });
  });

  it('plans the file init writes: the installed folder relative to the file, once', () => {
    const root = tempDir('hookwise-settings-entry-');
    const plan = {
      hostName: 'X',
      packageName: '@hookwise/adapter-x',
      projectDir: root,
      read: (dir: string) => readJsonObject(path.join(dir, 'x.json')),
      key: 'plugin',
      isEntry,
      newFile: { $schema: 's' },
      relative: (file: string) => path.relative(root, file),
    };
    expect(planSettingsEntry(plan)).toEqual({
      ok: false,
      message: `@hookwise/adapter-x is not installed in ${root}; run \`npm install -D @hookwise/adapter-x\` first`,
    });
    const folder = path.join(root, 'node_modules', '@hookwise', 'adapter-x');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'package.json'), '{}');
    const file = path.join(root, 'x.json');
    const after = `${JSON.stringify({ $schema: 's', plugin: ['./node_modules/@hookwise/adapter-x'] }, null, 2)}\n`;
    expect(planSettingsEntry(plan)).toEqual({
      ok: true,
      files: [
        {
          file,
          before: undefined,
          after,
          summary: 'write x.json: X loads hookwise from ./node_modules/@hookwise/adapter-x',
          backup: false,
        },
      ],
    });
    writeFileSync(file, after);
    expect(planSettingsEntry(plan)).toEqual({ ok: true, files: [] });
    writeFileSync(file, '{"plugin":[]}');
    expect(planSettingsEntry(plan)).toMatchObject({ ok: true, files: [{ summary: expect.stringMatching(/^update/), backup: true }] });
  });

  it('doctor: no entry, two entries, no package, and what the host checks of the manifest', () => {
    const root = tempDir('hookwise-settings-entry-');
    const file = path.join(root, 'x.json');
    const check = (value: Record<string, unknown>) =>
      checkSettingsEntry({
        read: { ok: true, file, value, text: '' },
        label: 'x.json',
        packageName: '@hookwise/adapter-x',
        host: 'x',
        key: 'plugin',
        isEntry,
        check: (manifest, _folder, spec) => (manifest['main'] ? { ok: `loads ${spec}` } : { problem: 'no main' }),
      });
    expect(check({}).problems).toEqual(['x.json does not load @hookwise/adapter-x; run `hookwise init --host x`']);
    expect(check({ plugin: ['./adapter-x'] }).problems).toEqual([
      `x.json loads ./adapter-x, but ${path.join(root, 'adapter-x')} has no package.json; install @hookwise/adapter-x and run \`hookwise init --host x\``,
    ]);
    mkdirSync(path.join(root, 'adapter-x'));
    writeFileSync(path.join(root, 'adapter-x', 'package.json'), '{"main":"i.js"}');
    expect(check({ plugin: ['./adapter-x'] })).toEqual({ ok: ['loads ./adapter-x'], problems: [] });
    expect(check({ plugin: ['./adapter-x', './adapter-x'] }).problems).toEqual([
      'x.json lists @hookwise/adapter-x 2 times; each copy would run the plugins again — keep one',
    ]);
    writeFileSync(path.join(root, 'adapter-x', 'package.json'), '{}');
    expect(check({ plugin: ['./adapter-x'] })).toEqual({ ok: [], problems: ['no main'] });
  });
});
