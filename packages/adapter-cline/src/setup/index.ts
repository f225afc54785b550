import type { HostSetup } from '@hookwise/cli';
import { checkPluginFile, planPluginFile } from './plugin-file.js';

/**
 * What `hookwise` (@hookwise/cli) does for Cline; package.json's `"hookwise"` field points the
 * CLI here. Cline loads hookwise in its plugin sandbox, so there is nothing to build.
 */
const setup: HostSetup = {
  host: 'cline',
  describe: 'Cline CLI: .cline/plugins/hookwise.js, a plugin file that loads the installed @hookwise/adapter-cline',
  async init({ projectDir, relative }) {
    return planPluginFile(projectDir, relative);
  },
  async doctor({ projectDir, ok, problem }) {
    const checked = checkPluginFile(projectDir);
    for (const line of checked.ok) ok(line);
    for (const line of checked.problems) problem(line);
  },
};

export default setup;
