// What `hookwise init` and `doctor` of a host that loads hookwise from a settings file share:
// where the adapter is installed, the entry that names it, and reading the settings as JSON.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The folder of an installed package as the project resolves it (the nearest `node_modules`
 * from the project upwards), without following links: a pnpm or workspace link stays
 * `node_modules/<name>`, a path that survives upgrades.
 */
export function installedPackageFolder(projectDir: string, packageName: string): string | undefined {
  let dir = path.resolve(projectDir);
  for (;;) {
    const folder = path.join(dir, 'node_modules', ...packageName.split('/'));
    if (existsSync(path.join(folder, 'package.json'))) return folder;
    const parent = path.dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** `folder` relative to the settings file that names it, as a `./` or `../` path with `/`. */
export function relativeEntry(settingsFile: string, folder: string): string {
  const relative = path.relative(path.dirname(settingsFile), folder).split(path.sep).join('/');
  return relative.startsWith('../') ? relative : `./${relative}`;
}

/** A settings file read as a JSON object: `text` undefined when there is none yet (init writes it). */
export type JsonObjectRead =
  | { ok: true; file: string; value: Record<string, unknown>; text: string | undefined }
  | { ok: false; file: string; message: string };

/** Reads `file` as a JSON object; absent is an empty object, anything else a clear message. */
export function readJsonObject(file: string): JsonObjectRead {
  if (!existsSync(file)) return { ok: true, file, value: {}, text: undefined };
  const text = readFileSync(file, 'utf8');
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, file, message: `${file} is not a JSON object` };
    return { ok: true, file, value: value as Record<string, unknown>, text };
  } catch (error) {
    return { ok: false, file, message: `${file} is not valid JSON: ${(error as Error).message}` };
  }
}
