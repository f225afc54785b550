import { existsSync } from 'node:fs';
import path from 'node:path';
import { readJsonObject, type JsonObjectRead } from '@hookwise/core/host';
import type { PluginEntryHost } from './plugin-entry.js';

/** `opencode.json` of the project (or `opencode.jsonc`, which init will not rewrite: comments would be lost). */
export function readOpenCodeConfig(projectDir: string): JsonObjectRead {
  const json = path.join(projectDir, 'opencode.json');
  const jsonc = path.join(projectDir, 'opencode.jsonc');
  if (!existsSync(json) && existsSync(jsonc))
    return { ok: false, file: jsonc, message: `${jsonc} has comments hookwise would lose; add the plugin entry to it by hand` };
  return readJsonObject(json);
}

/** `hookwise init` and `hookwise doctor` for OpenCode (see ./index.ts): the plugin entry in the project's `opencode.json`. */
export const OPENCODE_HOST: PluginEntryHost = {
  host: 'opencode',
  hostName: 'OpenCode',
  packageName: '@hookwise/adapter-opencode',
  read: readOpenCodeConfig,
  newFile: { $schema: 'https://opencode.ai/config.json' },
};
