import { existsSync } from 'node:fs';
import { defineConfig } from 'tsup';
import { withoutKeepNames } from '../../tsup.shared.js';

// `run-slow` and `runtime` are separate entries because bin/hookwise.cjs loads them by path:
// `runtime.js` is what the per-project run bundle includes. `report/command` is written by the
// report feature and loaded by `hookwise report` with a dynamic import.
const entry: Record<string, string> = {
  index: 'src/index.ts',
  cli: 'src/cli.ts',
  'run-slow': 'src/run-slow.ts',
  runtime: 'src/runtime.ts',
};
if (existsSync('src/report/command.ts')) entry['report/command'] = 'src/report/command.ts';

// tsup switches to SWC when tsconfig has emitDecoratorMetadata and @swc/core is installed.
export default defineConfig({
  entry,
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
  esbuildPlugins: [withoutKeepNames],
});
