const marker = Symbol.for('hookwise.error');

/**
 * Base of every error hookwise throws. `isInstance` checks a `Symbol.for` marker instead of
 * `instanceof`, so it still works when two copies of core are loaded (a plugin bundling its
 * own, a CLI bundle next to a project install).
 */
export class HookwiseError extends Error {
  private readonly [marker] = true;
  /** Short stable code, e.g. `HW_CONFIG`. */
  readonly code: string;

  constructor(message: string, options: { code?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HookwiseError';
    this.code = options.code ?? 'HW_ERROR';
  }

  static isInstance(error: unknown): error is HookwiseError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}

/** The config file is missing a piece, cannot be loaded, or does not validate. */
export class ConfigError extends HookwiseError {
  readonly file: string | undefined;
  constructor(message: string, options: { file?: string; cause?: unknown } = {}) {
    super(options.file ? `${options.file}: ${message}` : message, { code: 'HW_CONFIG', cause: options.cause });
    this.name = 'ConfigError';
    this.file = options.file;
  }
}

/** A plugin could not be set up (bad options, failing `register`). */
export class PluginError extends HookwiseError {
  readonly pluginName: string;
  readonly hookName: string | undefined;
  constructor(message: string, options: { pluginName: string; hookName?: string; cause?: unknown }) {
    const where = options.hookName ? `${options.pluginName} › ${options.hookName}` : options.pluginName;
    super(`[${where}] ${message}`, { code: 'HW_PLUGIN', cause: options.cause });
    this.name = 'PluginError';
    this.pluginName = options.pluginName;
    this.hookName = options.hookName;
  }
}

/** A hook threw while running. */
export class HookExecutionError extends PluginError {
  constructor(message: string, options: { pluginName: string; hookName: string; cause?: unknown }) {
    super(message, options);
    this.name = 'HookExecutionError';
    (this as { code: string }).code = 'HW_HOOK_FAILED';
  }
}

/** A hook ran past its deadline. */
export class HookTimeoutError extends PluginError {
  readonly timeoutMs: number;
  constructor(options: { pluginName: string; hookName: string; timeoutMs: number }) {
    super(`hook did not settle within ${options.timeoutMs} ms`, options);
    this.name = 'HookTimeoutError';
    (this as { code: string }).code = 'HW_HOOK_TIMEOUT';
    this.timeoutMs = options.timeoutMs;
  }
}

/** A name that would become part of a path (session id, command name) was refused. */
export class UnsafeNameError extends HookwiseError {
  readonly value: string;
  constructor(what: string, value: string, reason: string) {
    super(`refused ${what} ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)}: ${reason}`, { code: 'HW_UNSAFE_NAME' });
    this.name = 'UnsafeNameError';
    this.value = value;
  }
}

/** A state file could not be parsed; it was moved aside. */
export class StateCorruptError extends HookwiseError {
  readonly file: string;
  readonly movedTo: string | undefined;
  constructor(file: string, movedTo: string | undefined, cause?: unknown) {
    super(`corrupt state file ${file}${movedTo ? ` moved aside to ${movedTo}` : ''}`, { code: 'HW_STATE_CORRUPT', cause });
    this.name = 'StateCorruptError';
    this.file = file;
    this.movedTo = movedTo;
  }
}
