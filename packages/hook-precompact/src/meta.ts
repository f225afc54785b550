import packageJson from '../package.json' with { type: 'json' };

/** The plugin's name: also the namespace of its state and the prefix of its event-log records. */
export const PLUGIN_NAME = '@hookwise/hook-precompact';
export const PLUGIN_VERSION: string = packageJson.version;
