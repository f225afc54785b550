import { existsSync, readFileSync } from 'node:fs';
import { createEngine, createMemoryEventLog, createMemoryStateStore, loadConfig, loadPlugin, points, silentLogger, type Engine, type HookwiseConfig, type PluginInstance, type PointName } from '@hookwise/core';
import type { Settings } from './settings.js';

/** The plugins `hookwise init` offers, by short name. */
export const KNOWN_PLUGINS = {
  prune: '@hookwise/hook-prune',
  precompact: '@hookwise/hook-precompact',
  suggest: '@hookwise/hook-suggest',
} as const;

/** The plugins a project gets without naming any (`hookwise init`, `hookwise report` without a config). */
export const DEFAULT_PLUGINS: readonly string[] = Object.values(KNOWN_PLUGINS);

/** `prune` → `@hookwise/hook-prune`; package names pass through. */
export function pluginPackageName(name: string): string {
  const trimmed = name.trim();
  return (KNOWN_PLUGINS as Record<string, string>)[trimmed] ?? (KNOWN_PLUGINS as Record<string, string>)[trimmed.replace(/^hook-/, '')] ?? trimmed;
}

/** An engine for inspection (init, doctor, plugin commands): real config, but state kept in memory unless asked otherwise. */
export async function loadProjectEngine(projectDir: string, options: { configFile?: string; inMemory?: boolean } = {}): Promise<{ engine: Engine; file: string | undefined }> {
  const loaded = await loadConfig(projectDir, options.configFile ? { file: options.configFile } : {});
  const engine = createEngine({
    config: loaded.config,
    projectDir,
    host: 'claude-code',
    ...(options.inMemory ? { stateStore: createMemoryStateStore(), eventLog: createMemoryEventLog(), logger: silentLogger } : {}),
  });
  return { engine, file: loaded.file };
}

/** An engine from plugin package names as a JSON config would list them (for `init --dry-run`, before a config exists). */
export async function engineForPlugins(projectDir: string, packages: readonly string[]): Promise<Engine> {
  const plugins: Array<PluginInstance<any>> = [];
  for (const name of packages) plugins.push(await loadPlugin(name, { from: projectDir }));
  const config: HookwiseConfig = { plugins };
  return createEngine({ config, projectDir, host: 'claude-code', stateStore: createMemoryStateStore(), eventLog: createMemoryEventLog(), logger: silentLogger });
}

/** The lifecycle points some configured hook listens on, with the plugins on each. */
export function pointsInUse(engine: Engine): Map<PointName, string[]> {
  const used = new Map<PointName, string[]>();
  for (const point of Object.keys(points) as PointName[]) {
    const hooks = engine.hooksFor(point);
    if (hooks.length > 0) used.set(point, [...new Set(hooks.map((hook) => hook.pluginName))]);
  }
  return used;
}

export function readJsonFile<T>(file: string): { ok: true; value: T | undefined } | { ok: false; message: string } {
  if (!existsSync(file)) return { ok: true, value: undefined };
  try {
    const text = readFileSync(file, 'utf8');
    if (text.trim() === '') return { ok: true, value: undefined };
    return { ok: true, value: JSON.parse(text) as T };
  } catch (error) {
    return { ok: false, message: `${file} is not valid JSON: ${(error as Error).message}` };
  }
}

export function readSettings(file: string): { ok: true; value: Settings } | { ok: false; message: string } {
  const read = readJsonFile<Settings>(file);
  if (!read.ok) return read;
  if (read.value !== undefined && (typeof read.value !== 'object' || read.value === null || Array.isArray(read.value))) return { ok: false, message: `${file} must hold a JSON object` };
  return { ok: true, value: read.value ?? {} };
}
