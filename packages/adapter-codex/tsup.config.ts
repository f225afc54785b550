import { defineConfig } from 'tsup';
import { copyCommandHookBin, withoutKeepNames } from '../../tsup.shared.js';

// Entries by path, because they are loaded by path: bin/hookwise.cjs (through the shared hook
// bin the build copies to dist/command-hook-bin.cjs) loads `hook-process/build-or-load` and
// `hook-process/run-command`; the per-project run bundle includes `hook-process/bundle-runtime`;
// @hookwise/cli loads `setup/index` (package.json's "hookwise" field).
const entry: Record<string, string> = {
  index: 'src/index.ts',
  'setup/index': 'src/setup/index.ts',
  'hook-process/build-or-load': 'src/hook-process/build-or-load.ts',
  'hook-process/run-command': 'src/hook-process/run-command.ts',
  'hook-process/bundle-runtime': 'src/hook-process/bundle-runtime.ts',
};

export default defineConfig({
  entry,
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  esbuildPlugins: [withoutKeepNames],
  onSuccess: copyCommandHookBin,
});
