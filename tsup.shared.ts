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
 * The build of a command-hook adapter. Its entries go by path, because they are loaded by path:
 * bin/hookwise.cjs (through the shared hook bin copied to dist/command-hook-bin.cjs) loads
 * `hook-process/build-or-load` and `hook-process/run-command`; the per-project run bundle
 * includes `hook-process/bundle-runtime` (the kit's run-time bound to the host); @hookwise/cli
 * loads `setup/index` (package.json's "hookwise" field).
 */
export const commandHookAdapterBuild: Options = {
  ...libraryBuild,
  entry: {
    index: 'src/index.ts',
    'setup/index': 'src/setup/index.ts',
    'hook-process/build-or-load': 'src/hook-process/build-or-load.ts',
    'hook-process/run-command': 'src/hook-process/run-command.ts',
    'hook-process/bundle-runtime': 'src/hook-process/bundle-runtime.ts',
  },
  dts: { entry: { index: 'src/index.ts' } },
  onSuccess: copyCommandHookBin,
};
