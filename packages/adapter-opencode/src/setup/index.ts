import type { HostSetup } from '@hookwise/cli';
import { OPENCODE_HOST } from './opencode-json.js';
import { pluginEntrySetup } from './plugin-entry.js';

/** `hookwise init` and `doctor` for OpenCode (package.json's `"hookwise"` field points the CLI here); nothing to build. */
const setup: HostSetup = pluginEntrySetup(OPENCODE_HOST, 'OpenCode: the installed @hookwise/adapter-opencode as a plugin in opencode.json');
export default setup;
