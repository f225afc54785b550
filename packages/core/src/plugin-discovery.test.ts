import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findInstalledPlugins, installedPackages, PLUGIN_KEYWORD } from './plugin-discovery.js';

let root: string;
beforeEach(() => {
  root = mkdtempSync(path.join(tmpdir(), 'hookwise-discovery-'));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A package folder with the given package.json text (or object). */
function pkg(dir: string, manifest: unknown): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), typeof manifest === 'string' ? manifest : JSON.stringify(manifest));
  return dir;
}
const plugin = (name: string) => ({ name, version: '1.0.0', keywords: ['hooks', PLUGIN_KEYWORD] });

describe('findInstalledPlugins', () => {
  it('lists marked packages, scoped and unscoped, sorted; unmarked, corrupt and manifest-less folders are skipped', () => {
    const modules = path.join(root, 'project', 'node_modules');
    pkg(path.join(modules, '@acme', 'hook-zeta'), plugin('@acme/hook-zeta'));
    pkg(path.join(modules, '@acme', 'tool'), { name: '@acme/tool', keywords: ['hookwise'] });
    pkg(path.join(modules, 'hook-alpha'), plugin('hook-alpha'));
    pkg(path.join(modules, 'left-pad'), { name: 'left-pad' });
    pkg(path.join(modules, 'corrupt'), '{ "keywords": ["hookwise-plugin"'); // cut short
    pkg(path.join(modules, 'null-manifest'), 'null');
    pkg(path.join(modules, 'keywords-not-a-list'), { keywords: PLUGIN_KEYWORD });
    mkdirSync(path.join(modules, 'no-manifest'));
    pkg(path.join(modules, '.pnpm', 'hook-hidden'), plugin('hook-hidden'));
    writeFileSync(path.join(modules, '.package-lock.json'), '{}');
    expect(findInstalledPlugins(path.join(root, 'project'))).toEqual(['@acme/hook-zeta', 'hook-alpha']);
  });

  it('walks node_modules from the folder upwards; a name found twice counts once', () => {
    pkg(path.join(root, 'node_modules', 'hook-outer'), plugin('hook-outer'));
    pkg(path.join(root, 'node_modules', 'hook-both'), plugin('hook-both'));
    pkg(path.join(root, 'a', 'node_modules', 'hook-both'), plugin('hook-both'));
    mkdirSync(path.join(root, 'a', 'b', 'c'), { recursive: true });
    expect(findInstalledPlugins(path.join(root, 'a', 'b', 'c'))).toEqual(['hook-both', 'hook-outer']);
    // A sibling's packages are not where this folder resolves from.
    pkg(path.join(root, 'sibling', 'node_modules', 'hook-sibling'), plugin('hook-sibling'));
    expect(findInstalledPlugins(path.join(root, 'a'))).not.toContain('hook-sibling');
  });

  it('accepts several starting points (folders, files, file URLs) and merges what they find', () => {
    pkg(path.join(root, 'project', 'node_modules', 'hook-p'), plugin('hook-p'));
    const adapterFile = path.join(root, 'global', 'lib', 'node_modules', 'adapter', 'dist', 'cli.js');
    pkg(path.join(root, 'global', 'lib', 'node_modules', 'adapter', 'node_modules', 'hook-a'), plugin('hook-a'));
    pkg(path.join(root, 'global', 'lib', 'node_modules', 'hook-g'), plugin('hook-g'));
    mkdirSync(path.dirname(adapterFile), { recursive: true });
    writeFileSync(adapterFile, '');
    expect(findInstalledPlugins([path.join(root, 'project'), pathToFileURL(adapterFile).href])).toEqual(['hook-a', 'hook-g', 'hook-p']);
    expect(findInstalledPlugins([adapterFile])).toEqual(['hook-a', 'hook-g']);
  });

  it('follows symbolic links (workspace packages) to read their package.json', () => {
    const real = pkg(path.join(root, 'packages', 'hook-linked'), plugin('@ws/hook-linked'));
    mkdirSync(path.join(root, 'app', 'node_modules', '@ws'), { recursive: true });
    symlinkSync(real, path.join(root, 'app', 'node_modules', '@ws', 'hook-linked'), 'dir');
    symlinkSync(path.join(root, 'nowhere'), path.join(root, 'app', 'node_modules', 'dangling'), 'dir');
    expect(findInstalledPlugins(path.join(root, 'app'))).toEqual(['@ws/hook-linked']);
  });

  it('reads manifests of any size, and one never lends its bytes to the next (read into one shared buffer)', () => {
    const modules = path.join(root, 'big', 'node_modules');
    // Past the first read's 16 KiB, the marker last; then short manifests after long ones.
    pkg(path.join(modules, 'a-large-plugin'), { name: 'a-large-plugin', description: 'x'.repeat(40_000), keywords: [PLUGIN_KEYWORD] });
    pkg(path.join(modules, 'b-short'), { name: 'b' });
    pkg(path.join(modules, 'c-large'), { name: 'c-large', description: `${'y'.repeat(20_000)} ${PLUGIN_KEYWORD}` });
    pkg(path.join(modules, 'd-tail'), '{"name":"d"}');
    expect(findInstalledPlugins(path.join(root, 'big'))).toEqual(['a-large-plugin']);
  });

  it('is empty where nothing is installed, and skips a package.json it cannot read', () => {
    mkdirSync(path.join(root, 'empty'));
    expect(findInstalledPlugins(path.join(root, 'empty'))).toEqual([]);
    expect(findInstalledPlugins(path.join(root, 'does-not-exist', 'x'))).toEqual([]);
    // A package.json that is a folder fails to read for every user (EISDIR), root included.
    mkdirSync(path.join(root, 'odd', 'node_modules', 'hook-odd', 'package.json'), { recursive: true });
    pkg(path.join(root, 'odd', 'node_modules', 'hook-ok'), plugin('hook-ok'));
    expect(findInstalledPlugins(path.join(root, 'odd'))).toEqual(['hook-ok']);
  });
});

describe('installedPackages', () => {
  it('lists every package from the folder upwards, the nearest copy of a name first, dot folders left out', () => {
    const inner = path.join(root, 'project', 'node_modules');
    pkg(path.join(inner, '@acme', 'tool'), { name: '@acme/tool' });
    pkg(path.join(inner, 'shared'), { name: 'shared', version: '2.0.0' });
    pkg(path.join(inner, '.pnpm', 'hidden'), { name: 'hidden' });
    pkg(path.join(root, 'node_modules', 'shared'), { name: 'shared', version: '1.0.0' });
    pkg(path.join(root, 'node_modules', 'outer'), { name: 'outer' });
    expect(installedPackages(path.join(root, 'project')).sort((a, b) => (a.name < b.name ? -1 : 1))).toEqual([
      { name: '@acme/tool', dir: path.join(inner, '@acme', 'tool') },
      { name: 'outer', dir: path.join(root, 'node_modules', 'outer') },
      { name: 'shared', dir: path.join(inner, 'shared') },
    ]);
  });
});
