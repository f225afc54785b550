import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared.js';

// `cli` is what bin/hookwise.js loads; `index` is the API host adapters write their setup against.
export default defineConfig({ ...libraryBuild, entry: ['src/index.ts', 'src/cli.ts'], dts: { entry: { index: 'src/index.ts' } } });
