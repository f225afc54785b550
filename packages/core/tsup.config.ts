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
  // Core's run-time dependencies are bundled, tree-shaken, into its one file: every hook
  // process imports core, and resolving and loading tsyringe, zod and the lock libraries from
  // node_modules costs more than the hook itself. Bundling also makes core the only owner of
  // tsyringe at run time (one container). esbuild stays external: only TypeScript configs load it.
  noExternal: ['tsyringe', 'reflect-metadata', 'zod', 'proper-lockfile', 'write-file-atomic', 'tslib', 'graceful-fs', 'retry', 'signal-exit', 'imurmurhash'],
  external: ['esbuild'],
  // CommonJS dependencies bundled into ESM call `require` for Node built-ins. When an
  // extension bundles this file into CommonJS again, import.meta is empty there and
  // __filename exists, hence the fallback (evaluated only in that case).
  banner: { js: "import { createRequire as __hookwiseCreateRequire } from 'node:module';\nconst require = __hookwiseCreateRequire(import.meta.url ?? __filename);" },
  treeshake: true,
  splitting: true,
});
