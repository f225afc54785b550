import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDir } from './temp-dirs.testing.js';
import { readJsonObject } from './settings-file.js';
import { packageEntryMatcher, settingsEntrySetup, type SettingsEntrySetup } from './settings-setup.js';

const SETUP: SettingsEntrySetup = {
  host: 'x',
  describe: 'X: the installed @hookwise/adapter-x as a plugin in x.json',
  hostName: 'X',
  packageName: '@hookwise/adapter-x',
  read: (dir) => readJsonObject(path.join(dir, 'x.json')),
  key: 'plugin',
  newFile: { $schema: 's' },
  bareName: 'X looks a bare name up in the npm registry',
};

async function doctor(setup: SettingsEntrySetup, projectDir: string) {
  const lines = { ok: [] as string[], problems: [] as string[] };
  await settingsEntrySetup(setup).doctor({ projectDir, ok: (line) => lines.ok.push(line), problem: (line) => lines.problems.push(line) });
  return lines;
}

describe('a host setup made from a settings entry', () => {
  it('recognises the package by any path, file URL or name, with or without options, and nothing else', () => {
    const isEntry = packageEntryMatcher('@hookwise/adapter-x');
    for (const entry of [
      './node_modules/@hookwise/adapter-x',
      '@hookwise/adapter-x@1.0.0',
      ['../node_modules/@hookwise/adapter-x', {}],
      'file:///x/adapter-x',
    ])
      expect(isEntry(entry), JSON.stringify(entry)).toBe(true);
    for (const entry of ['./node_modules/@hookwise/adapter-xy', 'my-adapter-x-extra', '@other/adapter-x.js', 42])
      expect(isEntry(entry)).toBe(false);
  });

  it('init writes the installed folder into a new file, then nothing', async () => {
    const root = tempDir('hookwise-settings-setup-');
    const setup = settingsEntrySetup(SETUP);
    expect(setup).toMatchObject({ host: 'x', describe: SETUP.describe });
    const folder = path.join(root, 'node_modules', '@hookwise', 'adapter-x');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'package.json'), '{}');
    const planned = await setup.init({ projectDir: root, relative: (file) => path.relative(root, file) });
    expect(planned).toMatchObject({
      ok: true,
      files: [{ after: `${JSON.stringify({ $schema: 's', plugin: ['./node_modules/@hookwise/adapter-x'] }, null, 2)}\n` }],
    });
    writeFileSync(path.join(root, 'x.json'), (planned as { files: Array<{ after: string }> }).files[0]!.after);
    expect(await setup.init({ projectDir: root, relative: (file) => file })).toEqual({ ok: true, files: [] });
  });

  it('doctor: no file, a bare name, a folder without a built main, a file URL to one with it', async () => {
    const root = tempDir('hookwise-settings-setup-');
    expect((await doctor(SETUP, root)).problems).toEqual([`no x.json in ${root}; run \`hookwise init --host x\``]);
    const write = (plugin: unknown[]) => writeFileSync(path.join(root, 'x.json'), JSON.stringify({ plugin }));
    write(['@hookwise/adapter-x']);
    expect((await doctor(SETUP, root)).problems).toEqual([
      'x.json names "@hookwise/adapter-x": X looks a bare name up in the npm registry; run `hookwise init --host x` to use the installed folder',
    ]);
    const folder = path.join(root, 'pkg', 'adapter-x');
    mkdirSync(path.join(folder, 'dist'), { recursive: true });
    writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ main: './dist/index.js' }));
    write(['./pkg/adapter-x']);
    expect((await doctor(SETUP, root)).problems).toEqual([
      `${folder} has no built entry (package.json "main"); reinstall @hookwise/adapter-x`,
    ]);
    writeFileSync(path.join(folder, 'dist', 'index.js'), '');
    const url = pathToFileURL(folder).href;
    write([url]);
    expect(await doctor(SETUP, root)).toEqual({ ok: [`x.json loads @hookwise/adapter-x from ${url}`], problems: [] });
    // Without `bareName`, a bare name is a path from the file, as core's check reads it.
    write(['adapter-x']);
    expect((await doctor({ ...SETUP, bareName: undefined }, root)).problems[0]).toContain(
      `${path.join(root, 'adapter-x')} has no package.json`,
    );
  });
});
