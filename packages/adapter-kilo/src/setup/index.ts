import type { HostSetup } from '@hookwise/cli';
import { pluginEntrySetup } from '@hookwise/adapter-opencode/plugin-entry';
import { KILO_HOST } from './kilo-config.js';

/** `hookwise init` and `doctor` for Kilo (package.json's `"hookwise"` field points the CLI here); nothing to build. */
const setup: HostSetup = pluginEntrySetup(KILO_HOST, 'Kilo: the installed @hookwise/adapter-kilo as a plugin in kilo.jsonc');
export default setup;
