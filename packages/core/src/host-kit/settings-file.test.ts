import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './temp-dirs.testing.js';
import { installedPackageFolder, readJsonObject, relativeEntry } from './settings-file.js';

describe('settings files of hosts that load hookwise by path', () => {
  const root = tempDir('hookwise-settings-file-');
  const folder = path.join(root, 'node_modules', '@hookwise', 'adapter-x');
  mkdirSync(folder, { recursive: true });
  writeFileSync(path.join(folder, 'package.json'), '{}');
  const project = path.join(root, 'apps', 'one');
  mkdirSync(project, { recursive: true });

  it('finds the installed package in the nearest node_modules upwards, and names it relative to the settings file', () => {
    expect(installedPackageFolder(project, '@hookwise/adapter-x')).toBe(folder);
    expect(installedPackageFolder(project, '@hookwise/adapter-y')).toBeUndefined();
    expect(relativeEntry(path.join(root, 'opencode.json'), folder)).toBe('./node_modules/@hookwise/adapter-x');
    expect(relativeEntry(path.join(project, '.pi', 'settings.json'), folder)).toBe('../../../node_modules/@hookwise/adapter-x');
  });

  it('reads a settings file as a JSON object: absent is empty, anything else says what is wrong', () => {
    const file = path.join(root, 'settings.json');
    expect(readJsonObject(file)).toEqual({ ok: true, file, value: {}, text: undefined });
    writeFileSync(file, '[1]');
    expect(readJsonObject(file)).toEqual({ ok: false, file, message: `${file} is not a JSON object` });
    writeFileSync(file, '{ nope');
    expect(readJsonObject(file)).toMatchObject({ ok: false, message: expect.stringContaining('is not valid JSON') });
    writeFileSync(file, '{"a":1}');
    expect(readJsonObject(file)).toEqual({ ok: true, file, value: { a: 1 }, text: '{"a":1}' });
  });
});
