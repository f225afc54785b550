import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The marker a hookwise plugin package carries in its `package.json` `keywords`: hosts find
 * installed plugins by it (as an editor finds its extensions by their manifest), so no host
 * names a plugin. It is also what `npm search hookwise-plugin` finds.
 */
export const PLUGIN_KEYWORD = 'hookwise-plugin';

/**
 * The hookwise plugin packages installed where `from` resolves packages: the `node_modules`
 * folders from `from` upwards (scoped and unscoped), as Node's resolution walks them. Several
 * starting points (folders, files or file URLs) are searched in turn; a name found twice counts
 * once. Returns package names sorted by code point (stable whatever order the file system lists),
 * ready for core's `loadPlugin(name, { from })`.
 *
 * Cheap and forgiving: only `package.json` files are read (nothing is imported); a package whose
 * `package.json` is missing, unreadable or not JSON is skipped; symbolic links (workspace
 * packages) are followed to read their `package.json`, nothing else.
 */
export function findInstalledPlugins(from: string | readonly string[]): string[] {
  const found = new Set<string>();
  const seenFolders = new Set<string>();
  for (const start of typeof from === 'string' ? [from] : from) {
    for (const folder of nodeModulesFrom(start)) {
      if (seenFolders.has(folder)) continue;
      seenFolders.add(folder);
      for (const name of packagesIn(folder)) {
        if (!found.has(name) && isPlugin(path.join(folder, name))) found.add(name);
      }
    }
  }
  return [...found].sort();
}

/** `node_modules` folders from `start` (a folder, a file or a file URL) up to the root. */
function nodeModulesFrom(start: string): string[] {
  let dir = start.startsWith('file:') ? path.dirname(fileURLToPath(start)) : path.resolve(start);
  const folders: string[] = [];
  for (;;) {
    // A folder inside node_modules resolves from that node_modules, not from a nested one.
    if (path.basename(dir) !== 'node_modules') folders.push(path.join(dir, 'node_modules'));
    const parent = path.dirname(dir);
    if (parent === dir) return folders;
    dir = parent;
  }
}

/** Package names in one `node_modules` folder: `name` and `@scope/name`; dot folders (`.bin`, `.pnpm`) are not packages. */
function packagesIn(folder: string): string[] {
  const names: string[] = [];
  for (const entry of listDir(folder)) {
    if (entry.startsWith('.')) continue;
    if (entry.startsWith('@')) {
      for (const inner of listDir(path.join(folder, entry))) if (!inner.startsWith('.')) names.push(`${entry}/${inner}`);
    } else {
      names.push(entry);
    }
  }
  return names;
}

function listDir(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return []; // absent or unreadable: nothing installed there
  }
}

function isPlugin(packageDir: string): boolean {
  try {
    const text = readFileSync(path.join(packageDir, 'package.json'), 'utf8');
    // Most packages are not plugins: no need to parse a manifest that cannot name the marker.
    if (!text.includes(PLUGIN_KEYWORD)) return false;
    const manifest = JSON.parse(text) as { keywords?: unknown };
    return Array.isArray(manifest?.keywords) && manifest.keywords.includes(PLUGIN_KEYWORD);
  } catch {
    return false; // no package.json, unreadable, or not JSON: not a plugin we can load anyway
  }
}

