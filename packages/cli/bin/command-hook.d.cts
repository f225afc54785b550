/** What a command-hook adapter's bin passes (see command-hook.cjs). */
export interface CommandHookBinOptions {
  /** The host's name, as its `CommandHookHost.name` (`claude-code`): its run bundle lives in `.hookwise/cache/<host>`. */
  host: string;
  /** The adapter's dist folder: holds hook-process/build-or-load.js, run-command.js and bundle-runtime.js. */
  dist: string;
  /** The host's environment variable naming the project (e.g. `CLAUDE_PROJECT_DIR`); else the payload's cwd, else the process's. */
  projectDirEnv?: string;
  /**
   * What a call that ends without a result prints on stdout (no config in the project, an
   * internal error before the run-time took over): the host's `CommandHookHost.emptyStdout`.
   * Gemini CLI reads stderr when stdout is empty, so its bin passes `{}`.
   */
  emptyStdout?: string;
}

/** Runs the hook command for process.argv: `run <Event>` through the project's run bundle, anything else through the hookwise CLI. */
export declare function runCommandHookBin(options: CommandHookBinOptions): void;
