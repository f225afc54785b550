import type { Options } from 'tsup';

/**
 * The build every published package shares: ESM only, declarations, source maps, Node 20.
 * tsup switches to SWC when tsconfig has emitDecoratorMetadata and @swc/core is installed
 * (a root devDependency); without SWC the build would silently drop design:paramtypes.
 */
export const libraryBuild: Options = {
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
};
