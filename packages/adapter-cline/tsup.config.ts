import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared.js';

// `setup/index` is what @hookwise/cli loads (package.json's "hookwise" field), by path: it is
// not an export, since Cline only needs the plugin.
export default defineConfig({
  ...libraryBuild,
  entry: { index: 'src/index.ts', 'setup/index': 'src/setup/index.ts' },
  dts: { entry: { index: 'src/index.ts' } },
});
