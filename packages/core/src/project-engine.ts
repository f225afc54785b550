// The in-process hosts' way to their project's engine: built once, on first use, from the
// project's hookwise.config.* (or a config given in code), and never a reason to fail the host.
import { loadConfig as loadProjectConfig, type HookwiseConfig, type LoadedConfig } from './config.js';
import { createEngine as createProjectEngine, type Engine, type EngineOptions } from './engine.js';
import { errorMessage } from './host-kit.js';
import type { Logger } from './logger.js';

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

/** The project's engine on first call; `dispose()` disposes it if it was ever made (and loads nothing). */
export type ProjectEngine = (() => Promise<Engine | undefined>) & { dispose(): Promise<void> };

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
        options.onConfig?.(config);
        const created = build({ config, projectDir, host: options.host, logger, ...options.engineOptions?.(config) });
        logger.info(`loaded ${source} (${created.plugins.map((plugin) => plugin.name).join(', ') || 'no plugins'})`);
        return created;
      } catch (error) {
        const message = `the hookwise config of ${projectDir} could not be loaded; hookwise is off for this ${scope}: ${errorMessage(error)}`;
        logger.error(message);
        options.onFailure?.(message, error);
        return undefined;
      }
    })());
  return Object.assign(get, {
    async dispose(): Promise<void> {
      const made = await engine;
      await made?.dispose().catch(() => undefined);
    },
  });
}
