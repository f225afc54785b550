import type { HostSetup } from '@hookwise/cli';
import { checkPluginFile, planPluginFile } from './plugin-file.js';

/** What `hookwise` (@hookwise/cli) does for Cline (package.json's `"hookwise"` field); nothing to build. */
const setup: HostSetup = {
  host: 'cline',
  describe: 'Cline CLI: .cline/plugins/hookwise.js, a plugin file that loads the installed @hookwise/adapter-cline',
  init: async ({ projectDir, relative }) => planPluginFile(projectDir, relative),
  async doctor({ projectDir, ok, problem }) {
    const checked = checkPluginFile(projectDir);
    checked.ok.forEach(ok);
    checked.problems.forEach(problem);
  },
};

export default setup;
