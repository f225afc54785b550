import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared.js';

// Kilo keeps OpenCode's plugin hooks, so the plugin is @hookwise/adapter-opencode's binding,
// bundled in: a Kilo user installs this package alone, and `hookwise init` finds one host.
// `setup/index` is what @hookwise/cli loads (package.json's "hookwise" field), by path: Kilo
// loads every export of the main entry as a plugin.
export default defineConfig({
  ...libraryBuild,
  entry: { index: 'src/index.ts', 'setup/index': 'src/setup/index.ts' },
  dts: { entry: { index: 'src/index.ts' } },
  noExternal: ['@hookwise/adapter-opencode'],
});
