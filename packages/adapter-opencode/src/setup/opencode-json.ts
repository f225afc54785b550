import { existsSync } from 'node:fs';
import path from 'node:path';
import { checkSettingsEntry, mergeSettingsEntry, readJsonObject, relativeEntry, type JsonObjectRead } from '@hookwise/core/host';

/**
 * `hookwise init` and `hookwise doctor` for OpenCode (see ./index.ts): the plugin entry in the
 * project's `opencode.json`. OpenCode resolves a bare package name from the npm registry, not
 * from the project's node_modules (offline it gives up after about 70 s), so the entry is the
 * installed package folder as a path relative to `opencode.json`; OpenCode loads a folder
 * through its package.json `main`.
 */

export const OPENCODE_PACKAGE = '@hookwise/adapter-opencode';

/** The spec OpenCode loads: `./node_modules/@hookwise/adapter-opencode`, relative to the config file. */
export const pluginSpec = relativeEntry;

/** Whether an entry of `plugin` is hookwise's (by path or by name, with or without options). */
export function isHookwiseEntry(entry: unknown): boolean {
  const spec = Array.isArray(entry) ? entry[0] : entry;
  return typeof spec === 'string' && /(^|[/@])@?hookwise\/adapter-opencode(\/|@|$)|(^|\/)adapter-opencode\/?$/.test(spec);
}

/** `opencode.json` of the project (or `opencode.jsonc`, which init will not rewrite: comments would be lost). */
export function readOpenCodeConfig(projectDir: string): JsonObjectRead {
  const json = path.join(projectDir, 'opencode.json');
  const jsonc = path.join(projectDir, 'opencode.jsonc');
  if (!existsSync(json) && existsSync(jsonc))
    return { ok: false, file: jsonc, message: `${jsonc} has comments hookwise would lose; add the plugin entry to it by hand` };
  return readJsonObject(json);
}

/** The config with hookwise's plugin entry added or corrected (core's `mergeSettingsEntry` on `plugin`). */
export function mergeOpenCodePlugin(config: Record<string, unknown>, spec: string): { config: Record<string, unknown>; changed: boolean } {
  const merged = mergeSettingsEntry(config, 'plugin', isHookwiseEntry, spec);
  return { config: merged.settings, changed: merged.changed };
}

/** Problems of the plugin entry, for `hookwise doctor --host opencode`; empty when it loads. */
export function checkOpenCodePlugin(projectDir: string): { ok: string[]; problems: string[] } {
  const read = readOpenCodeConfig(projectDir);
  if (!read.ok) return { ok: [], problems: [read.message] };
  if (read.text === undefined) return { ok: [], problems: [`no opencode.json in ${projectDir}; run \`hookwise init --host opencode\``] };
  return checkSettingsEntry({
    read,
    label: 'opencode.json',
    packageName: OPENCODE_PACKAGE,
    host: 'opencode',
    key: 'plugin',
    isEntry: isHookwiseEntry,
    folderOf: (spec) => {
      if (spec.startsWith('file:')) return new URL(spec).pathname;
      if (spec.startsWith('.') || spec.startsWith('/')) return path.resolve(path.dirname(read.file), spec);
      return {
        problem: `opencode.json names "${spec}": OpenCode looks a bare name up in the npm registry, not in node_modules; run \`hookwise init --host opencode\` to use the installed folder`,
      };
    },
    check: (manifest, folder, spec) => {
      const main = manifest['main'];
      return typeof main !== 'string' || !main || !existsSync(path.join(folder, main))
        ? { problem: `${folder} has no built entry (package.json "main"); reinstall ${OPENCODE_PACKAGE}` }
        : { ok: `opencode.json loads ${OPENCODE_PACKAGE} from ${spec}` };
    },
  });
}
