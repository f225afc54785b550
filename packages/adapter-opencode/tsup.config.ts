import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared.js';

// `setup/index` is what @hookwise/cli loads (package.json's "hookwise" field), by path: it is
// not an export, since OpenCode loads every export of the main entry as a plugin. `binding` and
// `plugin-entry` (init and doctor of a `plugin` list entry) are what @hookwise/adapter-kilo builds
// on: Kilo keeps OpenCode's hooks and its way of loading plugins.
export default defineConfig({
  ...libraryBuild,
  entry: {
    index: 'src/index.ts',
    binding: 'src/binding.ts',
    'plugin-entry': 'src/setup/plugin-entry.ts',
    'setup/index': 'src/setup/index.ts',
  },
  dts: { entry: { index: 'src/index.ts', binding: 'src/binding.ts', 'plugin-entry': 'src/setup/plugin-entry.ts' } },
});
