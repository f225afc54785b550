import type { HostSetup } from '@hookwise/cli';
import { checkOpenCodePlugin, isHookwiseEntry, OPENCODE_PACKAGE, readOpenCodeConfig } from './opencode-json.js';
import { planSettingsEntry } from '@hookwise/core/host';

/**
 * What `hookwise` (@hookwise/cli) does for OpenCode; package.json's `"hookwise"` field points
 * the CLI here. OpenCode loads hookwise in its own process, so there is nothing to build.
 */
const setup: HostSetup = {
  host: 'opencode',
  describe: 'OpenCode: the installed @hookwise/adapter-opencode as a plugin in opencode.json',
  async init({ projectDir, relative }) {
    return planSettingsEntry({
      hostName: 'OpenCode',
      packageName: OPENCODE_PACKAGE,
      projectDir,
      read: readOpenCodeConfig,
      key: 'plugin',
      isEntry: isHookwiseEntry,
      newFile: { $schema: 'https://opencode.ai/config.json' },
      relative,
    });
  },
  async doctor({ projectDir, ok, problem }) {
    const plugin = checkOpenCodePlugin(projectDir);
    for (const line of plugin.ok) ok(line);
    for (const line of plugin.problems) problem(line);
  },
};

export default setup;
