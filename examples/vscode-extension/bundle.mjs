// Bundles the extension the way extensions are shipped: one CommonJS file, `vscode` left to
// the editor. Run by `npm run build` after `tsc --noEmit` has type-checked the sources.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/extension.ts'],
  outfile: 'dist/extension.js',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  sourcemap: true,
  // `vscode` exists only inside the editor. esbuild is loaded by @hookwise/core only for a
  // hookwise.config.ts and cannot be bundled (it starts its own binary).
  external: ['vscode', 'esbuild'],
  logLevel: 'warning',
});
