import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { checkPluginFile, PLUGIN_FILE, PLUGIN_SOURCE, planPluginFile } from './plugin-file.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function project(installed: boolean): string {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hookwise-cline-setup-'));
  if (installed) {
    const folder = path.join(dir, 'node_modules', '@hookwise', 'adapter-cline');
    mkdirSync(path.join(folder, 'dist'), { recursive: true });
    writeFileSync(path.join(folder, 'package.json'), '{"name":"@hookwise/adapter-cline"}');
    writeFileSync(path.join(folder, 'dist', 'index.js'), '');
  }
  return dir;
}

describe('hookwise init and doctor for Cline', () => {
  it('plans .cline/plugins/hookwise.js once, then nothing; doctor finds it', () => {
    const projectDir = project(true);
    const plan = planPluginFile(projectDir, (file) => path.relative(projectDir, file));
    expect(plan).toMatchObject({ ok: true, files: [{ before: undefined, after: PLUGIN_SOURCE, backup: false }] });
    expect(checkPluginFile(projectDir).problems[0]).toContain('run `hookwise init --host cline`');
    mkdirSync(path.join(projectDir, '.cline', 'plugins'), { recursive: true });
    writeFileSync(path.join(projectDir, PLUGIN_FILE), PLUGIN_SOURCE);
    expect(planPluginFile(projectDir, (file) => file)).toEqual({ ok: true, files: [] });
    const checked = checkPluginFile(projectDir, {});
    expect(checked.problems).toEqual([]);
    expect(checked.ok.join('\n')).toContain('CLINE_JS_RUNTIME_PATH');
    expect(checked.ok.join('\n')).toContain('CLINE_PLUGIN_IMPORT_TIMEOUT_MS');
  });

  it("says so when the project is a folder of a larger git repository (Cline's workspace is its root)", () => {
    const projectDir = project(true);
    mkdirSync(path.join(projectDir, '.git'));
    const inner = path.join(projectDir, 'app');
    mkdirSync(path.join(inner, '.cline', 'plugins'), { recursive: true });
    writeFileSync(path.join(inner, PLUGIN_FILE), PLUGIN_SOURCE);
    expect(checkPluginFile(inner, {}).problems).toEqual([expect.stringContaining('as the workspace and looks for .cline/plugins there')]);
    expect(checkPluginFile(projectDir, {}).problems).toEqual([expect.stringContaining('.cline/plugins/hookwise.js is missing')]);
  });

  it('says to install the package first when it is not installed', () => {
    const projectDir = project(false);
    expect(planPluginFile(projectDir, (file) => file)).toMatchObject({
      ok: false,
      message: expect.stringContaining('npm install -D @hookwise/adapter-cline'),
    });
  });

  it('the plugin file unwraps the default export however the loader wraps it', async () => {
    const body = PLUGIN_SOURCE.split('\n')
      .filter((line) => !line.startsWith('import') && !line.startsWith('//'))
      .join('\n')
      .replace('export default', 'return');
    const unwrap = new Function('m', body) as (m: unknown) => unknown;
    const plugin = { name: 'hookwise' };
    expect(unwrap({ default: plugin })).toBe(plugin);
    expect(unwrap({ default: { default: plugin } })).toBe(plugin);
  });
});
