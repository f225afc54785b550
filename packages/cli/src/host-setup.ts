import type { PointName } from '@hookwise/core';

/**
 * What a host adapter gives the `hookwise` command: a module the adapter names in its
 * `package.json` (`"hookwise": { "host": "<name>", "setup": "./dist/setup.js" }`) whose default
 * export is this object. The CLI finds installed adapters by that field, as it finds plugins by
 * their keyword, so it never names a host itself.
 */
export interface HostSetup {
  /** The name `--host` takes; the same as the package.json field. */
  host: string;
  /** One line: what `init` sets up for this host. */
  describe: string;
  /** Options `hookwise init` takes for this host (commander flags, e.g. `-s, --scope <scope>`). */
  initOptions?: readonly HostOption[];
  /** Plans the host's files for `init`; the CLI shows them (`--dry-run`) or writes them. */
  init(context: HostInitContext): Promise<HostInitPlan>;
  /** The host's checks for `doctor`, after the CLI's own (Node, config, plugins, state folders). */
  doctor(context: HostDoctorContext): Promise<void>;
  /**
   * `hookwise run <args…>`, for hosts that start a process per hook call: settings written with
   * `--command "npx hookwise"` reach the host's hook command through here. It may end the process.
   */
  run?(args: readonly string[]): Promise<number>;
}

export interface HostOption {
  flags: string;
  description: string;
  choices?: readonly string[];
  default?: string | boolean;
}

export interface HostContext {
  projectDir: string;
  /** The user's home, where user-wide settings live. */
  home: string | undefined;
  stdout: (text: string) => void;
  /** One message; a missing final newline is added. */
  stderr: (text: string) => void;
}

/** A file `init` writes: shown as a diff with `--dry-run`, written atomically otherwise. */
export interface PlannedFile {
  file: string;
  /** The current text; undefined for a new file. */
  before: string | undefined;
  after: string;
  /** One line of what changes, printed after the write. */
  summary: string;
  /** Keep the current file as `<file>.hookwise.bak` first. */
  backup?: boolean;
}

export interface HostInitContext extends HostContext {
  /** The values of the host's `initOptions`, by commander's camel-cased name. */
  options: Readonly<Record<string, unknown>>;
  /** The points the chosen (or configured) plugins listen on, with their plugins; rejects when the plugins do not load. */
  pointsInUse: () => Promise<ReadonlyMap<PointName, readonly string[]>>;
  /** A path as init prints it: relative to the project when inside it. */
  relative: (file: string) => string;
}

export type HostInitPlan =
  | {
      ok: true;
      files: PlannedFile[];
      /** Runs after the files are written (not with `--dry-run`), e.g. to build a cache. */
      finish?: () => Promise<void>;
    }
  | { ok: false; message: string };

export interface HostDoctorContext extends HostContext {
  /** The project's config file, if any. */
  configFile: string | undefined;
  /** The points the configured plugins listen on, with `<plugin> (<point>)`-ready plugin names; empty when the config did not load. */
  pointsInUse: ReadonlyMap<PointName, readonly string[]>;
  ok: (text: string) => void;
  /** A problem: `doctor` exits 1. */
  problem: (text: string) => void;
  /** A warning: printed, does not fail `doctor`. */
  warn: (text: string) => void;
}
