// A named import lets the bundler inline the version alone, not the whole package.json.
import { version } from '../package.json';

/** The plugin's name: also the namespace of its session state. */
export const PLUGIN_NAME = '@hookwise/hook-suggest';
export const PLUGIN_VERSION: string = version;
