import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPluginEntry } from '@hookwise/adapter-opencode/plugin-entry';
import { isHookwiseEntry, KILO_HOST, readKiloConfig, renderKiloConfig } from './kilo-config.js';

const checkKiloPlugin = (dir: string) => checkPluginEntry(KILO_HOST, dir);

const made: string[] = [];
afterEach(() => made.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));
const project = () => {
  const directory = mkdtempSync(path.join(tmpdir(), 'hookwise-kilo-config-'));
  made.push(directory);
  return directory;
};
const SPEC = './node_modules/@hookwise/adapter-kilo';

describe("Kilo's config", () => {
  it('is the first of kilo.jsonc, kilo.json, .kilo/kilo.jsonc that exists, else a new kilo.jsonc; comments and trailing commas read', () => {
    const dir = project();
    expect(readKiloConfig(dir)).toEqual({ ok: true, file: path.join(dir, 'kilo.jsonc'), value: {}, text: undefined });
    mkdirSync(path.join(dir, '.kilo'));
    writeFileSync(path.join(dir, '.kilo', 'kilo.jsonc'), '{ // mine\n "model": "a/b", }');
    expect(readKiloConfig(dir)).toMatchObject({ ok: true, file: path.join(dir, '.kilo', 'kilo.jsonc'), value: { model: 'a/b' } });
    writeFileSync(path.join(dir, 'kilo.json'), '{ "model": ');
    expect(readKiloConfig(dir)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/kilo\.json is not valid JSON with comments: .* at offset/),
    });
    writeFileSync(path.join(dir, 'kilo.jsonc'), '[]');
    expect(readKiloConfig(dir)).toMatchObject({ ok: false, message: expect.stringContaining('is not a JSON object') });
  });

  it('init writes only its entry: a new list, an added entry, a corrected one (options kept), comments untouched', () => {
    expect(renderKiloConfig({ model: 'a/b', plugin: [SPEC] }, '{\n  // mine\n  "model": "a/b"\n}\n')).toBe(
      `{\n  // mine\n  "model": "a/b",\n  "plugin": [\n    "${SPEC}"\n  ]\n}\n`,
    );
    const corrected = renderKiloConfig(
      { plugin: ['x.js', [SPEC, { toasts: false }]] },
      '{\n  "plugin": [\n    "x.js", // keep\n    ["@hookwise/adapter-kilo", { "toasts": false }]\n  ]\n}',
    );
    expect(corrected).toContain('"x.js", // keep');
    expect(corrected).toContain(`"${SPEC}"`);
    expect(corrected).toContain('"toasts": false');
    expect(corrected).not.toContain('"@hookwise/adapter-kilo"');
    expect(renderKiloConfig({ $schema: 's', plugin: [SPEC] }, undefined)).toBe(
      `{\n  "$schema": "s",\n  "plugin": [\n    "${SPEC}"\n  ]\n}\n`,
    );
  });

  it("recognises hookwise's entry by path or name, not other plugins", () => {
    for (const entry of [
      SPEC,
      '@hookwise/adapter-kilo',
      '@hookwise/adapter-kilo@1.0.0',
      ['../node_modules/@hookwise/adapter-kilo', {}],
      'file:///x/adapter-kilo',
    ])
      expect(isHookwiseEntry(entry), JSON.stringify(entry)).toBe(true);
    for (const entry of ['./node_modules/@hookwise/adapter-opencode', 'kilo-adapter-kilo-extra', 42])
      expect(isHookwiseEntry(entry)).toBe(false);
  });

  it('doctor: a bare name is a problem; an installed folder with a built entry is fine', () => {
    const dir = project();
    writeFileSync(path.join(dir, 'kilo.jsonc'), '{ "plugin": ["@hookwise/adapter-kilo"] }');
    expect(checkKiloPlugin(dir).problems[0]).toContain('Kilo looks a bare name up in the npm registry');
    const folder = path.join(dir, 'node_modules', '@hookwise', 'adapter-kilo');
    mkdirSync(path.join(folder, 'dist'), { recursive: true });
    writeFileSync(path.join(folder, 'package.json'), JSON.stringify({ main: './dist/index.js' }));
    writeFileSync(path.join(dir, 'kilo.jsonc'), `{ "plugin": ["${SPEC}"] }`);
    expect(checkKiloPlugin(dir).problems[0]).toContain('has no built entry');
    writeFileSync(path.join(folder, 'dist', 'index.js'), '');
    expect(checkKiloPlugin(dir)).toEqual({ ok: [`kilo.jsonc loads @hookwise/adapter-kilo from ${SPEC}`], problems: [] });
  });
});
