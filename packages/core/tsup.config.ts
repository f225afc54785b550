import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared.js';

export default defineConfig({
  ...libraryBuild,
  // `@hookwise/core/wire`: the Anthropic/OpenAI wire types (types only; its JS is empty);
  // `@hookwise/core/fs`: safe file operations for hosts' own caches;
  // `@hookwise/core/counting`: part token figures shared by a host and its plugins.
  entry: ['src/index.ts', 'src/wire.ts', 'src/fs.ts', 'src/counting.ts'],
  // Core's run-time dependencies are bundled, tree-shaken, into its one file: every hook
  // process imports core, and resolving and loading tsyringe and zod from node_modules costs
  // more than the hook itself. Bundling also makes core the only owner of
  // tsyringe at run time (one container). esbuild stays external: only TypeScript configs load it.
  // zod stays external too: the hook CLI bundles core with the plugins, which use zod/mini
  // themselves, and one shared copy tree-shaken once starts faster (measured 1.91x vs 2.00x of
  // `node -e 0` per hook call) than core's own copy beside theirs. The price is a slower plain
  // import of core (3.65x vs 1.75x), paid once by long-lived hosts.
  noExternal: ['tsyringe', 'reflect-metadata', 'tslib'],
  external: ['esbuild'],
  // CommonJS dependencies bundled into ESM call `require` for Node built-ins. When an
  // extension bundles this file into CommonJS again, import.meta is empty there and
  // __filename exists, hence the fallback (evaluated only in that case).
  banner: { js: "import { createRequire as __hookwiseCreateRequire } from 'node:module';\nconst require = __hookwiseCreateRequire(import.meta.url ?? __filename);" },
  treeshake: true,
  splitting: true,
});
