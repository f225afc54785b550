import path from 'node:path';
import { HookwiseError, type Clock, type HookwiseConfig, type PluginInstance } from '@hookwise/core';
import {
  createEngine,
  createMemoryEventLog,
  createLogger,
  createMemoryStateStore,
  loadPlugin,
  loadConfig,
  type Engine,
} from '@hookwise/core/host';
import { findInstalledPlugins } from '@hookwise/core/fs';

export interface ReplayEngine {
  engine: Engine;
  /** Where the plugins came from: the config file, or `default` (every installed plugin, found by its package.json marker). */
  configSource: string;
  /** Installed plugins that could not be loaded; their figures are missing from the report. */
  missingPlugins: string[];
  /** What the engine and plugins logged (warnings and up). */
  logLines: string[];
  /** The engine's clock: the replay sets it to each line's recorded time, so plugins see the session's times. */
  clock: ReplayClock;
}

export interface ReplayClock extends Clock {
  /** The recorded time of the line being replayed (ISO 8601), parsed only when a plugin asks. */
  setTimestamp(text: string): void;
}

/** A clock that stands where the replay is: the timestamp of the latest line that had one. */
export function createReplayClock(): ReplayClock {
  // Until a line with a timestamp is read, the time is now.
  let current: number | undefined;
  let pendingText: string | undefined;
  return {
    now() {
      if (pendingText !== undefined) {
        const time = Date.parse(pendingText);
        pendingText = undefined;
        // Recorded times can step back (clock skew, merged files); plugins expect a clock that does not.
        if (Number.isFinite(time) && (current === undefined || time > current)) current = time;
      }
      return current ?? Date.now();
    },
    setTimestamp(text) {
      pendingText = text;
    },
  };
}

/**
 * The plugins `hookwise init` suggests, named only in the one line that says what to install
 * when no plugin is found: the report itself loads whatever is installed.
 */
const SUGGESTED_PLUGINS = ['@hookwise/hook-prune', '@hookwise/hook-precompact', '@hookwise/hook-suggest'];

/** The report has no plugin to replay the session with: one line, with what to install. */
export class NoPluginsError extends Error {
  override readonly name = 'NoPluginsError';
}

/**
 * The config a project without one would get from `hookwise init`: every installed hookwise
 * plugin (core's `findInstalledPlugins`, by the package.json marker) with its defaults, loaded
 * the way a JSON config names them (core's `loadPlugin`: by package, default export). Plugins
 * are looked for from the project first, then from where this CLI is installed (a global
 * install, or `npx -p @hookwise/cli -p <plugin> …`, brings them along). Throws a
 * {@link NoPluginsError} when none loads: a report of no plugin says nothing.
 */
async function defaultConfig(projectDir: string, log: (line: string) => void): Promise<{ config: HookwiseConfig; missing: string[] }> {
  const from = [path.resolve(projectDir), import.meta.url];
  const plugins: Array<PluginInstance<any>> = [];
  const missing: string[] = [];
  for (const name of findInstalledPlugins(from)) {
    try {
      plugins.push(await loadPlugin(name, { from }));
    } catch (error) {
      missing.push(name);
      // Found but not loadable (no entry point, or a module that makes no plugin): worth a line.
      if (!(HookwiseError.isInstance(error) && error.code === 'HW_PLUGIN_NOT_FOUND'))
        log(`hookwise report: ${name} not loaded: ${(error as Error).message}`);
    }
  }
  if (plugins.length === 0) {
    const packages = SUGGESTED_PLUGINS.join(' ');
    const found =
      missing.length > 0
        ? `none of the installed hookwise plugins loads (${missing.join(', ')})`
        : 'no hookwise plugin is installed there or beside this CLI';
    throw new NoPluginsError(
      `no hookwise config in ${path.resolve(projectDir)} and ${found}: npm install -D ${packages} (or give a config with --config, or run npx ${['@hookwise/cli', ...SUGGESTED_PLUGINS].map((name) => `-p ${name}`).join(' ')} hookwise report <file>)`,
    );
  }
  return { config: { plugins }, missing };
}

/**
 * An engine for replays: the project's config (or the default plugins), host `replay`, state
 * and event log in memory so a replay leaves no files behind, and a logger that keeps lines.
 */
export async function createReplayEngine(options: {
  projectDir: string;
  configFile?: string;
  config?: HookwiseConfig;
}): Promise<ReplayEngine> {
  let config: HookwiseConfig;
  let configSource: string;
  let missingPlugins: string[] = [];
  const logLines: string[] = [];
  if (options.config) {
    config = options.config;
    configSource = 'given';
  } else {
    const loaded = await loadConfig(options.projectDir, options.configFile !== undefined ? { file: options.configFile } : {});
    if (loaded.file !== undefined) {
      config = loaded.config;
      configSource = loaded.file;
    } else {
      const fallback = await defaultConfig(options.projectDir, (line) => logLines.push(line));
      config = fallback.config;
      missingPlugins = fallback.missing;
      configSource = 'default';
    }
  }
  // Warnings and up only: debug lines on every request would cost more than the replay.
  const logger = createLogger({ level: 'warn', write: (line) => logLines.push(line) });
  const clock = createReplayClock();
  const engine = createEngine({
    config: { ...config, logLevel: 'warn' },
    projectDir: options.projectDir,
    host: 'replay',
    // Plugins keep everything in the engine's state and event log: a replay leaves no files.
    ephemeral: true,
    dryRun: true,
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger,
    clock,
  });
  return { engine, configSource, missingPlugins, logLines, clock };
}
