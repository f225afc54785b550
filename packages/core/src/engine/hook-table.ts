import type { HookwiseConfig } from '../config.js';
import { PluginError } from '../errors.js';
import {
  getClassHooks,
  isRemovedHookSet,
  ON_INSTEAD,
  type HookClass,
  type HookEntry,
  type HookFunction,
  type HookMap,
  type HookOrder,
} from '../hooks.js';
import { points, type PointName } from '../points.js';
import type { PreparedHook, PreparedPlugin } from './scopes.js';

/** The plugin name of the hooks a config file lists itself. */
export const USER_HOOKS = 'config';

const orderRank = (order: HookOrder | undefined) => (order === 'pre' ? 0 : order === 'post' ? 2 : 1);

/**
 * Every hook of the configured plugins and of the config itself, by point, in the order they
 * run: `pre` hooks, then config order, then `post` hooks. Throws a PluginError for an unknown
 * point, a hook that is not a function, or a form of declaring hooks that hookwise no longer
 * takes (`defineHook` sets, a config's `hooks`), so a bad config fails when the engine is built.
 */
export function buildHookTable(
  plugins: readonly PreparedPlugin[],
  config: Pick<HookwiseConfig, 'on'> & { hooks?: unknown },
): Map<PointName, PreparedHook[]> {
  const hooks: PreparedHook[] = [];
  const addMap = (plugin: PreparedPlugin, on: HookMap<any>, pluginOrder: HookOrder | undefined) => {
    if (typeof on !== 'object' || on === null || Array.isArray(on))
      throw new PluginError('on must map lifecycle points to hook functions', { pluginName: plugin.meta.name });
    for (const point of Object.keys(on) as PointName[]) {
      if (!(point in points))
        throw new PluginError(`unknown lifecycle point "${point}" in on`, { pluginName: plugin.meta.name, hookName: point });
      const value = on[point];
      const list = Array.isArray(value) ? value : [value];
      list.forEach((entry: HookFunction<PointName> | HookEntry<PointName> | undefined, index) => {
        const where = Array.isArray(value) ? `on["${point}"][${index}]` : `on["${point}"]`;
        const handler = typeof entry === 'function' ? entry : entry?.handler;
        const { name, order } = typeof entry === 'function' || entry === undefined ? {} : entry;
        const hookName = name ?? point;
        const fail = (message: string) => new PluginError(`${where} ${message}`, { pluginName: plugin.meta.name, hookName });
        if (isRemovedHookSet(entry)) throw fail(`is a defineHook(...) set, which hookwise no longer takes: ${ON_INSTEAD}`);
        if (typeof handler !== 'function') throw fail('is not a function (nor { handler: function })');
        if (name !== undefined && (typeof name !== 'string' || name.length === 0)) throw fail('has a name that is not a non-empty string');
        if (order !== undefined && order !== 'pre' && order !== 'post') throw fail(`has order ${JSON.stringify(order)}: 'pre' or 'post'`);
        hooks.push({
          point,
          pluginName: plugin.meta.name,
          hookName,
          order: order ?? pluginOrder,
          plugin,
          call: (_scope, payload, context) => handler(payload as never, context),
        });
      });
    }
  };
  const addClass = (plugin: PreparedPlugin, hookClass: HookClass, pluginOrder: HookOrder | undefined) => {
    for (const metadata of getClassHooks(hookClass)) {
      if (!(metadata.point in points))
        throw new PluginError(`unknown lifecycle point "${metadata.point}"`, {
          pluginName: plugin.meta.name,
          hookName: `${hookClass.name}.${metadata.method}`,
        });
      hooks.push({
        point: metadata.point,
        pluginName: plugin.meta.name,
        hookName: `${hookClass.name}.${metadata.method}`,
        order: metadata.order ?? pluginOrder,
        plugin,
        call: (scope, payload, context) => {
          const instance = scope.container.resolve(hookClass) as Record<string, (...args: unknown[]) => unknown>;
          return instance[metadata.method]!(payload, context);
        },
      });
    }
  };
  for (const plugin of plugins) {
    const { on, order, hooks: classes } = plugin.instance!.definition;
    if (on !== undefined) addMap(plugin, on, order);
    for (const [index, entry] of (classes ?? []).entries()) {
      const where = `hooks[${index}]`;
      if (isRemovedHookSet(entry))
        throw new PluginError(`${where} is a defineHook(...) set, which hookwise no longer takes: ${ON_INSTEAD}`, {
          pluginName: plugin.meta.name,
        });
      if (typeof entry !== 'function' || getClassHooks(entry).length === 0)
        throw new PluginError(
          `${where} is not an @injectable class with @On methods; hooks takes only those (a plain hook function goes under on: { 'tool:after': fn })`,
          { pluginName: plugin.meta.name },
        );
      addClass(plugin, entry, order);
    }
  }
  const userPlugin: PreparedPlugin = { instance: undefined, meta: { name: USER_HOOKS, version: '0.0.0' }, options: undefined };
  if (config.hooks !== undefined)
    throw new PluginError(`the config's \`hooks\` is no longer taken: ${ON_INSTEAD}`, { pluginName: USER_HOOKS });
  if (config.on !== undefined) addMap(userPlugin, config.on, undefined);

  // A stable sort keeps config order within each rank.
  const byPoint = new Map<PointName, PreparedHook[]>();
  hooks
    .map((hook, index) => ({ hook, index }))
    .sort((left, right) => orderRank(left.hook.order) - orderRank(right.hook.order) || left.index - right.index)
    .forEach(({ hook }) => {
      const list = byPoint.get(hook.point) ?? [];
      list.push(hook);
      byPoint.set(hook.point, list);
    });
  return byPoint;
}
