import { defineConfig } from 'tsup';
import { libraryBuild } from '../../tsup.shared.js';

export default defineConfig({
  ...libraryBuild,
  // One entry per audience (each file says whom it serves); `wire` is types only (its JS is empty).
  // The subpath is the file's name in dist (`@hookwise/core/plugin` → dist/plugin.js): the run
  // bundle resolves subpaths so. `src/plugin.ts` holds definePlugin, hence the object form.
  entry: {
    index: 'src/index.ts',
    plugin: 'src/plugin-side.ts',
    host: 'src/host.ts',
    messages: 'src/messages.ts',
    'claude-code': 'src/claude-code.ts',
    codex: 'src/codex.ts',
    gemini: 'src/gemini.ts',
    di: 'src/di.ts',
    fs: 'src/fs.ts',
    counting: 'src/counting.ts',
    wire: 'src/wire.ts',
    'command-hook': 'src/command-hook.ts',
  },
  // Core's run-time dependencies are bundled, tree-shaken, into its one file: every hook
  // process imports core, and resolving and loading tsyringe and zod from node_modules costs
  // more than the hook itself. Bundling also makes core the only owner of
  // tsyringe at run time (one container). esbuild stays external: only TypeScript configs load it.
  // zod stays external too: the hook CLI bundles core with the plugins, which use zod/mini
  // themselves, and one shared copy tree-shaken once starts faster than core's own copy beside
  // theirs. The main entry loads no zod (nor tsyringe); `/host` does (bench/README.md).
  noExternal: ['tsyringe', 'reflect-metadata', 'tslib'],
  external: ['esbuild'],
  // CommonJS dependencies bundled into ESM call `require` for Node built-ins. When an
  // extension bundles this file into CommonJS again, import.meta is empty there and
  // __filename exists, hence the fallback (evaluated only in that case).
  banner: {
    js: "import { createRequire as __hookwiseCreateRequire } from 'node:module';\nconst require = __hookwiseCreateRequire(import.meta.url ?? __filename);",
  },
  treeshake: true,
  splitting: true,
});
