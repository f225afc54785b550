import { defineConfig } from 'tsup';

// Same settings as core: ESM only, types, source maps, Node 20.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
});
