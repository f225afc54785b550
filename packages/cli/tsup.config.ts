import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared.js';

// `cli` is what bin/hookwise.js loads; `index` is the API host adapters write their setup against;
// `report/command` is loaded by `hookwise report` only (and by path by the demo and its bench);
// `command-hook/index` is the command-hook kit's run bundle (a command-hook adapter's slow path,
// init and doctor) and `command-hook/runtime` what every per-project run bundle includes.
export default defineConfig({
  ...libraryBuild,
  entry: {
    index: 'src/index.ts',
    cli: 'src/cli.ts',
    'report/command': 'src/report/command.ts',
    'command-hook/index': 'src/command-hook/index.ts',
    'command-hook/runtime': 'src/command-hook/runtime.ts',
  },
  dts: {
    entry: {
      index: 'src/index.ts',
      'command-hook/index': 'src/command-hook/index.ts',
      'command-hook/runtime': 'src/command-hook/runtime.ts',
    },
  },
});
