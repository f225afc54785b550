// The in-process hosts' way to their project's engine: built once, on first use, from the
// project's hookwise.config.* (or a config given in code), and never a reason to fail the host.
import { loadConfig as loadProjectConfig, type HookwiseConfig, type LoadedConfig } from './config.js';
import { DEFAULT_HOOK_TIMEOUT_MS } from './deadline.js';
import { createEngine as createProjectEngine, type Engine, type EngineOptions } from './engine.js';
import { errorMessage } from './host-kit.js';
import type { Logger, LogLevel } from './logger.js';

export interface ProjectEngineOptions {
  projectDir: string;
  /** The host's name, as plugins see it in `context.host`. */
  host: string;
  logger: Logger;
  /** A config file to use instead of looking for one. */
  configFile?: string;
  /** A config given in code: no file is looked for. */
  config?: HookwiseConfig;
  /** What hookwise is off for when there is no config or it fails, in the log line: `project` (default), `app`. */
  scope?: string;
  /** The log level before a config is loaded and when it names none (default `warn`). */
  logLevel?: LogLevel;
  /** Called with the config before the engine is made: a host takes its log level and deadline from it. */
  onConfig?: (config: HookwiseConfig) => void;
  /** More engine options (a state store, an event log, `ephemeral`), from the config. */
  engineOptions?: (config: HookwiseConfig) => Omit<EngineOptions, 'config' | 'projectDir' | 'host' | 'logger'>;
  /** Called when the config or the engine failed (after the error is logged): a host may show it. */
  onFailure?: (message: string, error: unknown) => void;
  /** Seams for tests. */
  loadConfig?: (projectDir: string, file?: string) => Promise<Pick<LoadedConfig, 'config' | 'file'>>;
  createEngine?: (options: EngineOptions) => Engine;
}

/** The seams of {@link ProjectEngineOptions}, for an adapter's own test seams to extend. */
export type ProjectEngineSeams = Pick<ProjectEngineOptions, 'loadConfig' | 'createEngine'>;

/**
 * The project's engine on first call; `dispose()` disposes it if it was ever made (and loads
 * nothing). `logLevel` and `hookTimeoutMs` are what the config says, for the host's own logger
 * and deadlines: `warn` and core's default until a config is loaded, and `warn` again when it
 * fails, so the host's warnings about a broken config are seen.
 */
export type ProjectEngine = (() => Promise<Engine | undefined>) & {
  dispose(): Promise<void>;
  readonly logLevel: LogLevel;
  readonly hookTimeoutMs: number;
};

/**
 * The project's engine, made once on the first call: undefined when the project has no config
 * (hookwise is off, logged at info) or when the config or the engine fails (logged at error,
 * `onFailure` told). Never throws; every call gives the same promise.
 */
export function lazyProjectEngine(options: ProjectEngineOptions): ProjectEngine {
  const load = options.loadConfig ?? ((dir: string, file?: string) => loadProjectConfig(dir, file ? { file } : {}));
  const build = options.createEngine ?? createProjectEngine;
  const { projectDir, logger, scope = 'project' } = options;
  let engine: Promise<Engine | undefined> | undefined;
  const defaultLevel = options.logLevel ?? 'warn';
  let logLevel: LogLevel = defaultLevel;
  let hookTimeoutMs = DEFAULT_HOOK_TIMEOUT_MS;
  const get = () =>
    (engine ??= (async () => {
      try {
        let config = options.config;
        let source = 'the config given in code';
        if (config === undefined) {
          const loaded = await load(projectDir, options.configFile);
          if (loaded.file === undefined) {
            logger.info(`no hookwise.config.* in ${projectDir}: hookwise is off for this ${scope}`);
            return undefined;
          }
          config = loaded.config;
          source = loaded.file;
        }
        logLevel = config.logLevel ?? defaultLevel;
        hookTimeoutMs = config.hookTimeoutMs ?? hookTimeoutMs;
        options.onConfig?.(config);
        const created = build({ config, projectDir, host: options.host, logger, ...options.engineOptions?.(config) });
        logger.info(`loaded ${source} (${created.plugins.map((plugin) => plugin.name).join(', ') || 'no plugins'})`);
        return created;
      } catch (error) {
        const message = `the hookwise config of ${projectDir} could not be loaded; hookwise is off for this ${scope}: ${errorMessage(error)}`;
        logger.error(message);
        logLevel = 'warn';
        options.onFailure?.(message, error);
        return undefined;
      }
    })());
  // defineProperties, not Object.assign: assign would copy the two getters' values once.
  return Object.defineProperties(get as ProjectEngine, {
    dispose: {
      value: async (): Promise<void> => {
        const made = await engine;
        await made?.dispose().catch(() => undefined);
      },
      // As a plain property: a test may spy on it.
      writable: true,
      enumerable: true,
      configurable: true,
    },
    logLevel: { get: () => logLevel },
    hookTimeoutMs: { get: () => hookTimeoutMs },
  });
}
