import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
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
  return installedPackages(from)
    .filter((installed) => isPlugin(installed.dir))
    .map((installed) => installed.name)
    .sort();
}

/** A package in a `node_modules` folder: its name and its folder (a link is not resolved). */
export interface InstalledPackage {
  name: string;
  dir: string;
}

/**
 * Every package installed where `from` resolves packages: the `node_modules` folders from each
 * starting point upwards, as Node's resolution walks them, the nearest first; a name found
 * twice counts once. Nothing is read but folder listings: callers read what they need of each
 * package (plugins their keyword, the CLI a host adapter's declaration).
 */
export function installedPackages(from: string | readonly string[]): InstalledPackage[] {
  const found = new Map<string, string>();
  const seenFolders = new Set<string>();
  for (const start of typeof from === 'string' ? [from] : from) {
    for (const folder of nodeModulesFrom(start)) {
      if (seenFolders.has(folder)) continue;
      seenFolders.add(folder);
      for (const name of packagesIn(folder)) if (!found.has(name)) found.set(name, path.join(folder, name));
    }
  }
  return [...found].map(([name, dir]) => ({ name, dir }));
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
    // Most folders on the way up have no node_modules: a stat that does not throw on an absent
    // one costs a tenth of a readdir that throws (the error and its stack).
    if (statSync(folder, { throwIfNoEntry: false })?.isDirectory() !== true) return [];
    return readdirSync(folder);
  } catch {
    return []; // unreadable, or a file on the way: nothing installed there we can use
  }
}

/** One buffer for every manifest read (grown for a larger one), and the marker's bytes. */
let scratch: Buffer | undefined;
let marker: Buffer | undefined;

/**
 * Whether the package's manifest carries the marker in `keywords`. Most packages are not
 * plugins: their bytes are searched for the marker (ASCII, so a byte search finds what a search
 * of the decoded text would), and only a manifest that holds it is decoded and parsed. Read into
 * a shared buffer (open, read to the end, close), not `readFileSync`: no buffer or string per
 * package: the reads are most of the cost (figures in bench/README.md).
 */
function isPlugin(packageDir: string): boolean {
  let descriptor: number;
  try {
    descriptor = openSync(path.join(packageDir, 'package.json'), 'r');
  } catch {
    return false; // no package.json: not a package we can load
  }
  try {
    let buffer = (scratch ??= Buffer.allocUnsafe(16 * 1024));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const larger = Buffer.allocUnsafe(buffer.length * 2);
        buffer.copy(larger, 0, 0, length);
        scratch = buffer = larger;
      }
      const read = readSync(descriptor, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    marker ??= Buffer.from(PLUGIN_KEYWORD);
    if (buffer.subarray(0, length).indexOf(marker) === -1) return false;
    const manifest = JSON.parse(buffer.toString('utf8', 0, length)) as { keywords?: unknown };
    return Array.isArray(manifest?.keywords) && manifest.keywords.includes(PLUGIN_KEYWORD);
  } catch {
    return false; // unreadable (a folder named package.json) or not JSON: not a plugin we can load anyway
  } finally {
    closeSync(descriptor);
  }
}
