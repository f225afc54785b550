/** What a command-hook adapter's bin passes (see command-hook.cjs). */
export interface CommandHookBinOptions {
  /** The adapter's dist folder: holds hook-process/build-or-load.js, run-command.js and bundle-runtime.js. */
  dist: string;
  /** The host's environment variable naming the project (e.g. `CLAUDE_PROJECT_DIR`); else the payload's cwd, else the process's. */
  projectDirEnv?: string;
}

/** Runs the hook command for process.argv: `run <Event>` through the project's run bundle, anything else through the hookwise CLI. */
export declare function runCommandHookBin(options: CommandHookBinOptions): void;
