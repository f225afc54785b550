import type { HostSetup } from '@hookwise/cli';
import { planSettingsEntry } from '@hookwise/core/host';
import { checkKiloPlugin, isHookwiseEntry, KILO_PACKAGE, readKiloConfig, renderKiloConfig } from './kilo-config.js';

/**
 * What `hookwise` (@hookwise/cli) does for Kilo; package.json's `"hookwise"` field points the
 * CLI here. Kilo loads hookwise in its own process, so there is nothing to build.
 */
const setup: HostSetup = {
  host: 'kilo',
  describe: 'Kilo: the installed @hookwise/adapter-kilo as a plugin in kilo.jsonc',
  async init({ projectDir, relative }) {
    return planSettingsEntry({
      hostName: 'Kilo',
      packageName: KILO_PACKAGE,
      projectDir,
      read: readKiloConfig,
      key: 'plugin',
      isEntry: isHookwiseEntry,
      newFile: { $schema: 'https://app.kilo.ai/config.json' },
      relative,
      render: renderKiloConfig,
    });
  },
  async doctor({ projectDir, ok, problem }) {
    const plugin = checkKiloPlugin(projectDir);
    for (const line of plugin.ok) ok(line);
    for (const line of plugin.problems) problem(line);
  },
};

export default setup;
