import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared.js';

// `cli` is what bin/hookwise.js loads; `index` is the API host adapters write their setup against;
// `report/command` is loaded by `hookwise report` only (and by path by the demo and its bench).
export default defineConfig({
  ...libraryBuild,
  entry: { index: 'src/index.ts', cli: 'src/cli.ts', 'report/command': 'src/report/command.ts' },
  dts: { entry: { index: 'src/index.ts' } },
});
