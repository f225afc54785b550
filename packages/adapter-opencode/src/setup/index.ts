import type { HostSetup } from '@hookwise/cli';
import {
  checkOpenCodePlugin,
  installedOpenCodePlugin,
  mergeOpenCodePlugin,
  OPENCODE_PACKAGE,
  pluginSpec,
  readOpenCodeConfig,
} from './opencode-json.js';

/**
 * What `hookwise` (@hookwise/cli) does for OpenCode; package.json's `"hookwise"` field points
 * the CLI here. OpenCode loads hookwise in its own process, so there is nothing to build.
 */
const setup: HostSetup = {
  host: 'opencode',
  describe: 'OpenCode: the installed @hookwise/adapter-opencode as a plugin in opencode.json',
  async init({ projectDir, relative }) {
    const folder = installedOpenCodePlugin(projectDir);
    if (!folder)
      return {
        ok: false,
        message: `${OPENCODE_PACKAGE} is not installed in ${projectDir}; run \`npm install -D ${OPENCODE_PACKAGE}\` first`,
      };
    const read = readOpenCodeConfig(projectDir);
    if (!read.ok) return { ok: false, message: read.message };
    const spec = pluginSpec(read.file, folder);
    const base = read.text === undefined ? { $schema: 'https://opencode.ai/config.json' } : read.value;
    const merged = mergeOpenCodePlugin(base, spec);
    if (!merged.changed) return { ok: true, files: [] };
    return {
      ok: true,
      files: [
        {
          file: read.file,
          before: read.text,
          after: `${JSON.stringify(merged.config, null, 2)}\n`,
          summary: `${read.text === undefined ? 'write' : 'update'} ${relative(read.file)}: OpenCode loads hookwise from ${spec}`,
          backup: read.text !== undefined,
        },
      ],
    };
  },
  async doctor({ projectDir, ok, problem }) {
    const plugin = checkOpenCodePlugin(projectDir);
    for (const line of plugin.ok) ok(line);
    for (const line of plugin.problems) problem(line);
  },
};

export default setup;
