/**
 * The command-hook kit's run bundle (`@hookwise/cli/command-hook`): what a command-hook adapter
 * (Claude Code, Codex CLI, Gemini CLI) shares beyond core's hook call — the per-project bundle
 * of the config and plugins (built with esbuild, which the adapter depends on and the kit
 * resolves from the adapter's run-time), its lock and manifest, the slow path of the adapter's
 * bin (build or load, else run unbundled) and its `run` command. What the bundle includes is in
 * `@hookwise/cli/command-hook/runtime`.
 */
export { runBuildOrLoad, runUnbundled } from './build-or-load.js';
export type { BundledHost, CommandHookAdapter } from './build-or-load.js';
// Building and checking the bundle (init, doctor); the kit's slow path uses them itself.
export {
  buildBundleIfStale,
  buildRunBundle,
  checkRunBundle,
  bundlePathOf,
  isManifestFresh,
  readManifest,
  recentWriteFailure,
} from './bundle.js';
// Compiling an entry without writing it: what the build does first, for tests and benches.
export { compileRunEntry, generateEntry, importEsbuild } from './compile-entry.js';
export type { BuildResult, BundleManifest } from './bundle.js';
export { checkJsonConfig, sourceOf } from './checked-config.js';
export type { CarriedConfig } from './checked-config.js';
export { runCommand } from './run-command.js';
export {
  adapterFiles,
  checkHooksFile,
  commandHookSetup,
  defaultCommandPrefix,
  planHooksFileInit,
  readHooksFile,
  runThroughBin,
} from './setup.js';
export type { AdapterFiles, HooksFileInit } from './setup.js';
