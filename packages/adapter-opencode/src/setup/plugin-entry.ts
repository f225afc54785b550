import { checkSettingsFile, packageEntryMatcher, settingsEntrySetup, type SettingsEntrySetup } from '@hookwise/core/host';

/**
 * `hookwise init` and `doctor` of a host of this binding (OpenCode, Kilo): one entry in the
 * `plugin` list of the project's config, through core's settings-entry setup. Both hosts install
 * a bare package name from the npm registry into their own cache, not from the project's
 * node_modules (offline OpenCode gives up after about 70 s), so the entry is the installed
 * package folder as a path relative to the config file; both load it through package.json `main`.
 */
export type PluginEntryHost = Pick<SettingsEntrySetup, 'host' | 'hostName' | 'packageName' | 'read' | 'render'> & {
  /** What a new config file starts with. */
  newFile: Record<string, unknown>;
};

const setupOf = (host: PluginEntryHost, describe = ''): SettingsEntrySetup => ({
  ...host,
  describe,
  key: 'plugin',
  bareName: `${host.hostName} looks a bare name up in the npm registry, not in node_modules`,
});

/** Whether an entry of `plugin` is `packageName`'s (by path or by name, with or without options). */
export const pluginEntryMatcher = packageEntryMatcher;

/** Problems of the plugin entry, for `hookwise doctor`; empty when it loads. */
export const checkPluginEntry = (host: PluginEntryHost, projectDir: string) => checkSettingsFile(setupOf(host), projectDir);

/** The host setup @hookwise/cli loads (its `HostSetup`): init adds or corrects the entry, doctor checks it. */
export const pluginEntrySetup = (host: PluginEntryHost, describe: string) => settingsEntrySetup(setupOf(host, describe));
