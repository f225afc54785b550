import path from 'node:path';
import { HookwiseError, type Clock, type HookwiseConfig, type PluginInstance } from '@hookwise/core';
import { createEngine, createMemoryEventLog, createLogger, createMemoryStateStore, loadPlugin, loadConfig, type Engine } from '@hookwise/core/host';
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

const digit = (text: string, index: number): number => text.charCodeAt(index) - 48;
const twoDigits = (text: string, index: number): number => {
  const tens = digit(text, index);
  const ones = digit(text, index + 1);
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : -1;
};

/**
 * `Date.parse`, with a shortcut for the one form Claude Code writes (`2026-02-12T14:12:15.201Z`):
 * fields read in place and `Date.UTC`, the same number (a plugin asks the time on nearly every
 * event, and the replay sends some 700). Anything else, or a field out of range, goes to `Date.parse`.
 */
export function parseTimestamp(text: string): number {
  if (text.length === 24 && text.charCodeAt(4) === 45 && text.charCodeAt(7) === 45 && text.charCodeAt(10) === 84 && text.charCodeAt(13) === 58 && text.charCodeAt(16) === 58 && text.charCodeAt(19) === 46 && text.charCodeAt(23) === 90) {
    const century = twoDigits(text, 0);
    const yearInCentury = twoDigits(text, 2);
    const month = twoDigits(text, 5);
    const day = twoDigits(text, 8);
    const hour = twoDigits(text, 11);
    const minute = twoDigits(text, 14);
    const second = twoDigits(text, 17);
    const milliHundreds = digit(text, 20);
    const milliRest = twoDigits(text, 21);
    // Years from 1900 (Date.UTC reads years below 100 as 19xx); days up to 31 roll over as Date.parse's do.
    if (century >= 19 && yearInCentury >= 0 && month >= 1 && month <= 12 && day >= 1 && day <= 31 && hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59 && second >= 0 && second <= 59 && milliHundreds >= 0 && milliHundreds <= 9 && milliRest >= 0) {
      return Date.UTC(century * 100 + yearInCentury, month - 1, day, hour, minute, second, milliHundreds * 100 + milliRest);
    }
  }
  return Date.parse(text);
}

/** A clock that stands where the replay is: the timestamp of the latest line that had one. */
export function createReplayClock(): ReplayClock {
  // Until a line with a timestamp is read, the time is now.
  let current: number | undefined;
  let pendingText: string | undefined;
  return {
    now() {
      if (pendingText !== undefined) {
        const time = parseTimestamp(pendingText);
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
 * The config a project without one would get from `hookwise init`: every installed hookwise
 * plugin (core's `findInstalledPlugins`, by the package.json marker) with its defaults, loaded
 * the way a JSON config names them (core's `loadPlugin`: by package, default export). Plugins
 * are looked for from the project first, then from where this adapter is installed (the demo
 * and global installs bring the plugins along). The report never names a plugin itself.
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
      if (!(HookwiseError.isInstance(error) && error.code === 'HW_PLUGIN_NOT_FOUND')) log(`hookwise report: ${name} not loaded: ${(error as Error).message}`);
    }
  }
  return { config: { plugins }, missing };
}

/**
 * An engine for replays: the project's config (or the default plugins), host `replay`, state
 * and event log in memory so a replay leaves no files behind, and a logger that keeps lines.
 */
export async function createReplayEngine(options: { projectDir: string; configFile?: string; config?: HookwiseConfig }): Promise<ReplayEngine> {
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
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger,
    clock,
  });
  return { engine, configSource, missingPlugins, logLines, clock };
}
