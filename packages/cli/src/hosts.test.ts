import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseHost, findHostAdapters, type HostAdapter } from './hosts.js';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

function install(folder: string, name: string, manifest: Record<string, unknown>): void {
  mkdirSync(path.join(folder, 'node_modules', name), { recursive: true });
  writeFileSync(path.join(folder, 'node_modules', name, 'package.json'), JSON.stringify({ name, ...manifest }));
}

describe('findHostAdapters', () => {
  it('finds packages that declare a host, from the project upwards; the nearest wins a host found twice', () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'hookwise-hosts-'));
    const project = path.join(root, 'workspace', 'project');
    mkdirSync(project, { recursive: true });
    install(project, '@acme/adapter-pi', { hookwise: { host: 'pi', setup: './dist/setup.js' } });
    install(path.join(root, 'workspace'), '@other/adapter-pi', { hookwise: { host: 'pi', setup: './setup.js' } });
    install(path.join(root, 'workspace'), 'adapter-x', { hookwise: { host: 'x', setup: './setup.js' } });
    install(project, 'not-a-host', { hookwise: { plugin: true }, keywords: ['hookwise-plugin'] });
    writeFileSync(path.join(project, 'node_modules', 'stray-file'), '');
    expect(findHostAdapters(project)).toEqual([
      {
        host: 'pi',
        packageName: '@acme/adapter-pi',
        setupFile: path.join(project, 'node_modules', '@acme', 'adapter-pi', 'dist', 'setup.js'),
      },
      { host: 'x', packageName: 'adapter-x', setupFile: path.join(root, 'workspace', 'node_modules', 'adapter-x', 'setup.js') },
    ]);
  });
});

describe('chooseHost', () => {
  const adapter = (host: string): HostAdapter => ({ host, packageName: `@hookwise/adapter-${host}`, setupFile: `/x/${host}.js` });

  it('takes --host, else the only adapter, else claude-code among several, else the first', () => {
    expect(chooseHost([adapter('opencode'), adapter('pi')], 'pi')).toMatchObject({ ok: true, adapter: { host: 'pi' } });
    expect(chooseHost([adapter('opencode')], undefined)).toMatchObject({ ok: true, adapter: { host: 'opencode' } });
    expect(chooseHost([adapter('claude-code'), adapter('opencode')], undefined)).toMatchObject({
      ok: true,
      adapter: { host: 'claude-code' },
    });
    expect(chooseHost([adapter('opencode'), adapter('pi')], undefined)).toMatchObject({ ok: true, adapter: { host: 'opencode' } });
  });

  it('says what is missing', () => {
    expect(chooseHost([], undefined)).toMatchObject({
      ok: false,
      message: expect.stringContaining('no hookwise host adapter is installed here'),
    });
    expect(chooseHost([adapter('opencode')], 'pi')).toMatchObject({
      ok: false,
      message: expect.stringContaining('installed: opencode (@hookwise/adapter-opencode)'),
    });
  });
});
