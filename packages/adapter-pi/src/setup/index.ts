import type { HostSetup } from '@hookwise/cli';
import { planSettingsEntry } from '@hookwise/core/host';
import { checkPiExtension, isHookwiseEntry, PI_PACKAGE, readPiSettings } from './pi-settings.js';

/**
 * What `hookwise` (@hookwise/cli) does for pi; package.json's `"hookwise"` field points the CLI
 * here. pi loads hookwise in its own process, so there is nothing to build.
 */
const setup: HostSetup = {
  host: 'pi',
  describe: 'pi: the installed @hookwise/adapter-pi as an extension in .pi/settings.json',
  async init({ projectDir, relative }) {
    return planSettingsEntry({
      hostName: 'pi',
      packageName: PI_PACKAGE,
      projectDir,
      read: readPiSettings,
      key: 'extensions',
      isEntry: isHookwiseEntry,
      relative,
    });
  },
  async doctor({ projectDir, ok, problem }) {
    const checked = checkPiExtension(projectDir);
    for (const line of checked.ok) ok(line);
    for (const line of checked.problems) problem(line);
  },
};

export default setup;
