import { existsSync } from 'node:fs';
import path from 'node:path';
import { mergeSettingsEntry, readJsonObject, relativeEntry, type JsonObjectRead } from '@hookwise/core/host';
import { checkPluginEntry, pluginEntryMatcher, type PluginEntryHost } from './plugin-entry.js';

/** `hookwise init` and `hookwise doctor` for OpenCode (see ./index.ts): the plugin entry in the project's `opencode.json`. */

export const OPENCODE_PACKAGE = '@hookwise/adapter-opencode';

/** The spec OpenCode loads: `./node_modules/@hookwise/adapter-opencode`, relative to the config file. */
export const pluginSpec = relativeEntry;

/** Whether an entry of `plugin` is hookwise's (by path or by name, with or without options). */
export const isHookwiseEntry = pluginEntryMatcher(OPENCODE_PACKAGE);

/** `opencode.json` of the project (or `opencode.jsonc`, which init will not rewrite: comments would be lost). */
export function readOpenCodeConfig(projectDir: string): JsonObjectRead {
  const json = path.join(projectDir, 'opencode.json');
  const jsonc = path.join(projectDir, 'opencode.jsonc');
  if (!existsSync(json) && existsSync(jsonc))
    return { ok: false, file: jsonc, message: `${jsonc} has comments hookwise would lose; add the plugin entry to it by hand` };
  return readJsonObject(json);
}

export const OPENCODE_HOST: PluginEntryHost = {
  host: 'opencode',
  hostName: 'OpenCode',
  packageName: OPENCODE_PACKAGE,
  read: readOpenCodeConfig,
  newFile: { $schema: 'https://opencode.ai/config.json' },
};

/** The config with hookwise's plugin entry added or corrected (core's `mergeSettingsEntry` on `plugin`). */
export function mergeOpenCodePlugin(config: Record<string, unknown>, spec: string): { config: Record<string, unknown>; changed: boolean } {
  const merged = mergeSettingsEntry(config, 'plugin', isHookwiseEntry, spec);
  return { config: merged.settings, changed: merged.changed };
}

/** Problems of the plugin entry, for `hookwise doctor --host opencode`; empty when it loads. */
export const checkOpenCodePlugin = (projectDir: string) => checkPluginEntry(OPENCODE_HOST, projectDir);
