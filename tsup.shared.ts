import type { Options } from 'tsup';

/**
 * tsup's SWC step (see below) also turns on esbuild's `keepNames`, which puts a
 * `__name(fn, "fn")` call beside every function and class of the output, run when the module
 * loads. No package here relies on a renamed function or class keeping its name (error
 * classes set `name` themselves; hooks are named by their point or their `name`), and the calls are a hook
 * call's cost: in the run bundle they were ~1,600 per call, about 10% of its instructions.
 * This plugin runs after SWC's set-up and turns `keepNames` off again; SWC still emits the
 * decorator metadata. (The run bundle keeps names where decorated classes need them: bundle.ts.)
 */
export const withoutKeepNames = {
  name: 'hookwise-without-keep-names',
  setup(build: { initialOptions: { keepNames?: boolean } }) {
    build.initialOptions.keepNames = false;
  },
};

/**
 * The build every published package shares: ESM only, declarations, source maps, Node 20.
 * tsup switches to SWC when tsconfig has emitDecoratorMetadata and @swc/core is installed
 * (a root devDependency); without SWC the build would silently drop design:paramtypes.
 */
export const libraryBuild: Options = {
  esbuildPlugins: [withoutKeepNames],
  entry: ['src/index.ts'],
  format: ['esm'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  platform: 'node',
};

/**
 * For a command-hook adapter (one process per hook call): copies the shared hook bin,
 * `@hookwise/cli/command-hook/bin`, to `dist/command-hook-bin.cjs`, which the adapter's bin
 * requires by relative path. Requiring it by package name would go through the exports map, and
 * that loads Node's ESM resolver: ~1.5–2 ms of every hook call's start. Runs after the build
 * (tsup cleans dist first), from the adapter's folder.
 */
export const copyCommandHookBin: NonNullable<Options['onSuccess']> = async () => {
  const { createRequire } = await import('node:module');
  const { copyFileSync } = await import('node:fs');
  const path = await import('node:path');
  const source = createRequire(path.join(process.cwd(), 'package.json')).resolve('@hookwise/cli/command-hook/bin');
  copyFileSync(source, path.join(process.cwd(), 'dist', 'command-hook-bin.cjs'));
};

/**
 * The entries a command-hook adapter's bin loads by path, the same for every such adapter: each
 * binds a kit function to the `commandHook` (`CommandHookAdapter`) its
 * `src/hook-process/hook-call.ts` exports, and finds the adapter's run-time from its own URL.
 * `bundle-runtime` imports only the kit's run-time module (it goes into every project's run
 * bundle); `build-or-load` and `run-command` are the bin's slow paths.
 */
const COMMAND_HOOK_ENTRIES: Record<string, string> = {
  'build-or-load': `import { adapterFiles, runBuildOrLoad as run } from '@hookwise/cli/command-hook';
const { runtime } = adapterFiles(import.meta.url);
export const runBuildOrLoad = (request, options = {}) => run({ host: commandHook.host, runtime }, request, options);`,
  'run-command': `import { adapterFiles, runCommand as run } from '@hookwise/cli/command-hook';
const { runtime } = adapterFiles(import.meta.url);
export const runCommand = (argv) => run({ ...commandHook, runtime }, argv);`,
  'bundle-runtime': `import { runBundled as run } from '@hookwise/cli/command-hook/runtime';
export const runBundled = (request, lazy) => run(commandHook.host, request, lazy);
export { configFromBundle, loadBundledModules } from '@hookwise/cli/command-hook/runtime';`,
};

/** Adds {@link COMMAND_HOOK_ENTRIES} to the build as `dist/hook-process/<name>.js`, made in memory (tsup wants entry files to exist). */
export const commandHookEntries = {
  name: 'hookwise-command-hook-entries',
  setup(build: {
    initialOptions: { entryPoints?: unknown };
    onResolve: (options: { filter: RegExp }, callback: (args: { path: string }) => { path: string; namespace: string }) => void;
    onLoad: (
      options: { filter: RegExp; namespace: string },
      callback: (args: { path: string }) => { contents: string; loader: 'js'; resolveDir: string },
    ) => void;
  }) {
    const entries = build.initialOptions.entryPoints as Record<string, string>;
    for (const name of Object.keys(COMMAND_HOOK_ENTRIES)) entries[`hook-process/${name}`] = `hookwise-entry:${name}`;
    build.onResolve({ filter: /^hookwise-entry:/ }, (args) => ({
      path: args.path.slice('hookwise-entry:'.length),
      namespace: 'hookwise-entry',
    }));
    build.onLoad({ filter: /.*/, namespace: 'hookwise-entry' }, (args) => ({
      contents: `import { commandHook } from './src/hook-process/hook-call.ts';\n${COMMAND_HOOK_ENTRIES[args.path]}\n`,
      loader: 'js',
      resolveDir: process.cwd(),
    }));
  },
};

/**
 * The build of a command-hook adapter. Its entries go by path, because they are loaded by path:
 * bin/hookwise.cjs (through the shared hook bin copied to dist/command-hook-bin.cjs) loads
 * `hook-process/build-or-load` and `hook-process/run-command`; the per-project run bundle
 * includes `hook-process/bundle-runtime`; @hookwise/cli loads `setup/index` (package.json's
 * "hookwise" field). The three `hook-process` entries are {@link commandHookEntries}.
 */
export const commandHookAdapterBuild: Options = {
  ...libraryBuild,
  esbuildPlugins: [withoutKeepNames, commandHookEntries],
  entry: {
    index: 'src/index.ts',
    'setup/index': 'src/setup/index.ts',
  },
  dts: { entry: { index: 'src/index.ts' } },
  onSuccess: copyCommandHookBin,
};
