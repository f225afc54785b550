import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { installedPackageFolder, readJsonObject, relativeEntry, type JsonObjectRead } from '@hookwise/core/host';

/**
 * `hookwise init` and `hookwise doctor` for OpenCode (see ./index.ts): the plugin entry in the
 * project's `opencode.json`. OpenCode resolves a bare package name from the npm registry, not
 * from the project's node_modules (offline it gives up after about 70 s), so the entry is the
 * installed package folder as a path relative to `opencode.json`; OpenCode loads a folder
 * through its package.json `main`.
 */
export const OPENCODE_PACKAGE = '@hookwise/adapter-opencode';

export type PluginEntry = string | [string, Record<string, unknown>];

/** The folder of the installed `@hookwise/adapter-opencode` as the project resolves it (links kept). */
export const installedOpenCodePlugin = (projectDir: string): string | undefined => installedPackageFolder(projectDir, OPENCODE_PACKAGE);

/** The spec OpenCode loads: `./node_modules/@hookwise/adapter-opencode`, relative to the config file. */
export const pluginSpec = relativeEntry;

const specOf = (entry: PluginEntry): string => (Array.isArray(entry) ? entry[0] : entry);

/** Whether an entry of `plugin` is hookwise's (by path or by name, with or without options). */
export function isHookwiseEntry(entry: unknown): boolean {
  const spec = Array.isArray(entry) ? entry[0] : entry;
  return typeof spec === 'string' && /(^|[/@])@?hookwise\/adapter-opencode(\/|@|$)|(^|\/)adapter-opencode\/?$/.test(spec);
}

export type OpenCodeConfigRead = JsonObjectRead;

/** `opencode.json` of the project (or `opencode.jsonc`, which init will not rewrite: comments would be lost). */
export function readOpenCodeConfig(projectDir: string): OpenCodeConfigRead {
  const json = path.join(projectDir, 'opencode.json');
  const jsonc = path.join(projectDir, 'opencode.jsonc');
  if (!existsSync(json) && existsSync(jsonc))
    return { ok: false, file: jsonc, message: `${jsonc} has comments hookwise would lose; add the plugin entry to it by hand` };
  return readJsonObject(json);
}

/**
 * The config with hookwise's plugin entry: added when missing, its path corrected when it
 * points elsewhere (options kept), every other entry and key untouched. `changed` is false when
 * the entry is already right, so running init again writes nothing.
 */
export function mergeOpenCodePlugin(config: Record<string, unknown>, spec: string): { config: Record<string, unknown>; changed: boolean } {
  const current = Array.isArray(config['plugin']) ? (config['plugin'] as unknown[]) : [];
  const index = current.findIndex(isHookwiseEntry);
  if (index === -1) return { config: { ...config, plugin: [...current, spec] }, changed: true };
  const entry = current[index] as PluginEntry;
  if (specOf(entry) === spec) return { config, changed: false };
  const plugin = current.slice();
  plugin[index] = Array.isArray(entry) ? [spec, entry[1]] : spec;
  return { config: { ...config, plugin }, changed: true };
}

/** Problems of the plugin entry, for `hookwise doctor --host opencode`; empty when it loads. */
export function checkOpenCodePlugin(projectDir: string): { ok: string[]; problems: string[] } {
  const ok: string[] = [];
  const problems: string[] = [];
  const read = readOpenCodeConfig(projectDir);
  if (!read.ok) return { ok, problems: [read.message] };
  if (read.text === undefined) return { ok, problems: [`no opencode.json in ${projectDir}; run \`hookwise init --host opencode\``] };
  const entries = (Array.isArray(read.value['plugin']) ? (read.value['plugin'] as unknown[]) : []).filter(isHookwiseEntry) as PluginEntry[];
  if (entries.length === 0)
    return { ok, problems: [`opencode.json does not load ${OPENCODE_PACKAGE}; run \`hookwise init --host opencode\``] };
  if (entries.length > 1)
    problems.push(`opencode.json lists ${OPENCODE_PACKAGE} ${entries.length} times; each copy would run the plugins again — keep one`);
  const spec = specOf(entries[0]!);
  if (!spec.startsWith('.') && !spec.startsWith('/') && !spec.startsWith('file:')) {
    problems.push(
      `opencode.json names "${spec}": OpenCode looks a bare name up in the npm registry, not in node_modules; run \`hookwise init --host opencode\` to use the installed folder`,
    );
    return { ok, problems };
  }
  const folder = spec.startsWith('file:') ? new URL(spec).pathname : path.resolve(path.dirname(read.file), spec);
  let main: string | undefined;
  try {
    main = (JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { main?: string }).main;
  } catch {
    problems.push(
      `opencode.json loads ${spec}, but ${folder} has no package.json; install ${OPENCODE_PACKAGE} and run \`hookwise init --host opencode\``,
    );
    return { ok, problems };
  }
  if (!main || !existsSync(path.join(folder, main)))
    problems.push(`${folder} has no built entry (package.json "main"); reinstall ${OPENCODE_PACKAGE}`);
  else ok.push(`opencode.json loads ${OPENCODE_PACKAGE} from ${spec}`);
  return { ok, problems };
}
