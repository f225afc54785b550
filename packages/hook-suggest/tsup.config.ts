import { defineConfig } from 'tsup';

// tsup switches to SWC when tsconfig has emitDecoratorMetadata and @swc/core is installed
// (root devDependency). Without SWC the build would silently drop design:paramtypes.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
});
