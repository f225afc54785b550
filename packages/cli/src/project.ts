import { points, type HookwiseConfig, type PluginInstance, type PointName } from '@hookwise/core';
import {
  createEngine,
  createMemoryEventLog,
  createMemoryStateStore,
  findConfigFile,
  loadConfig,
  loadPlugin,
  silentLogger,
  type Engine,
} from '@hookwise/core/host';
import { findInstalledPlugins } from '@hookwise/core/fs';

/** The project's config file (core's lookup), if any. */
export const findProjectConfig: (projectDir: string) => string | undefined = findConfigFile;

/**
 * The hookwise plugins installed in the project (found by their `package.json` marker, core's
 * `findInstalledPlugins`): what `hookwise init` offers, and what a config may name by short name.
 */
export function installedPlugins(projectDir: string): string[] {
  return findInstalledPlugins(projectDir);
}

/** `@scope/hook-x` (or `hook-x`) → `x`: how `init` shows a plugin's short name. */
export function shortPluginName(packageName: string): string {
  const bare = packageName.startsWith('@') ? packageName.slice(packageName.indexOf('/') + 1) : packageName;
  return bare.replace(/^hook-/, '');
}

/**
 * The installed plugin packages a `--plugins` list names. A short name `x` matches an installed
 * plugin package named `x`, `hook-x`, `@scope/x` or `@scope/hook-x` (so a full package name
 * matches itself, and wins over other matches). No rule names a plugin: the names come from
 * what is installed.
 */
export function resolvePluginNames(
  requested: readonly string[],
  installed: readonly string[],
): { ok: true; packages: string[] } | { ok: false; message: string } {
  const packages: string[] = [];
  const listed =
    installed.length > 0
      ? `installed: ${installed.map((name) => `${shortPluginName(name)} (${name})`).join(', ')}`
      : 'no hookwise plugin is installed here (npm install -D a package with the `hookwise-plugin` keyword)';
  for (const entry of requested) {
    const wanted = entry.trim();
    const exact = installed.includes(wanted) ? [wanted] : undefined;
    const matches =
      exact ??
      installed.filter((name) => {
        const bare = name.startsWith('@') ? name.slice(name.indexOf('/') + 1) : undefined;
        return name === wanted || name === `hook-${wanted}` || bare === wanted || bare === `hook-${wanted}`;
      });
    if (matches.length === 0) return { ok: false, message: `no installed hookwise plugin matches "${wanted}"; ${listed}` };
    if (matches.length > 1)
      return { ok: false, message: `"${wanted}" matches several installed plugins (${matches.join(', ')}): name the package` };
    if (!packages.includes(matches[0]!)) packages.push(matches[0]!);
  }
  return { ok: true, packages };
}

/** An engine for inspection (init, doctor, plugin commands): real config, but state kept in memory unless asked otherwise. */
export async function loadProjectEngine(
  projectDir: string,
  options: { configFile?: string; inMemory?: boolean; host: string },
): Promise<{ engine: Engine; file: string | undefined }> {
  const loaded = await loadConfig(projectDir, options.configFile ? { file: options.configFile } : {});
  const engine = createEngine({
    config: loaded.config,
    projectDir,
    host: options.host,
    ...(options.inMemory ? { stateStore: createMemoryStateStore(), eventLog: createMemoryEventLog(), logger: silentLogger } : {}),
  });
  return { engine, file: loaded.file };
}

/** An engine from plugin package names as a JSON config would list them (for `init --dry-run`, before a config exists). */
export async function engineForPlugins(projectDir: string, packages: readonly string[], host: string): Promise<Engine> {
  const plugins: Array<PluginInstance<any>> = [];
  for (const name of packages) plugins.push(await loadPlugin(name, { from: projectDir }));
  const config: HookwiseConfig = { plugins };
  return createEngine({
    config,
    projectDir,
    host,
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
  });
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
