import type { HookwiseConfig } from '../config.js';
import { PluginError } from '../errors.js';
import { getClassHooks, isHookSet, type HookClass, type HookFunction, type HookMap, type HookOrder, type HookSet } from '../hooks.js';
import { points, type PointName } from '../points.js';
import type { PreparedHook, PreparedPlugin } from './scopes.js';

/** The plugin name of the hooks a config file lists itself. */
export const USER_HOOKS = 'config';

const orderRank = (order: HookOrder | undefined) => (order === 'pre' ? 0 : order === 'post' ? 2 : 1);

/**
 * Every hook of the configured plugins and of the config itself, by point, in the order they
 * run: `pre` hooks, then config order, then `post` hooks. Throws a PluginError for an unknown
 * point or a hook that is not a function, so a bad config fails when the engine is built.
 */
export function buildHookTable(
  plugins: readonly PreparedPlugin[],
  configHooks: HookwiseConfig['hooks'],
  configOn?: HookwiseConfig['on'],
): Map<PointName, PreparedHook[]> {
  const hooks: PreparedHook[] = [];
  /** An `on` map's hooks; each is named by its set (`defineHook`) or else by its point. */
  const addMap = (plugin: PreparedPlugin, on: HookMap<any>, setName: string | undefined, pluginOrder: HookOrder | undefined) => {
    if (typeof on !== 'object' || on === null)
      throw new PluginError('on must map lifecycle points to hook functions', { pluginName: plugin.meta.name });
    for (const point of Object.keys(on) as PointName[]) {
      const hookName = setName ?? point;
      const where = setName === undefined ? `on.${point}` : `hook "${setName}" on ${point}`;
      if (!(point in points))
        throw new PluginError(`unknown lifecycle point "${point}" in ${setName === undefined ? 'on' : `hook "${setName}"`}`, {
          pluginName: plugin.meta.name,
          hookName,
        });
      const entry = on[point];
      const handler = (typeof entry === 'function' ? entry : entry?.handler) as HookFunction<PointName> | undefined;
      if (typeof handler !== 'function') throw new PluginError(`${where} is not a function`, { pluginName: plugin.meta.name, hookName });
      const order = (typeof entry === 'function' ? undefined : entry?.order) ?? pluginOrder;
      hooks.push({
        point,
        pluginName: plugin.meta.name,
        hookName,
        order,
        plugin,
        call: (_scope, payload, context) => handler(payload as never, context),
      });
    }
  };
  const addSet = (plugin: PreparedPlugin, set: HookSet<any>, pluginOrder?: HookOrder) => addMap(plugin, set.on, set.name, pluginOrder);
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
    if (on !== undefined) addMap(plugin, on, undefined, order);
    for (const entry of classes ?? []) {
      if (isHookSet(entry)) addSet(plugin, entry, order);
      else if (typeof entry === 'function') addClass(plugin, entry, order);
      else
        throw new PluginError('hooks must be @injectable classes with @On methods (or defineHook(...) sets)', {
          pluginName: plugin.meta.name,
        });
    }
  }
  const userPlugin: PreparedPlugin = { instance: undefined, meta: { name: USER_HOOKS, version: '0.0.0' }, options: undefined };
  if (configOn !== undefined) addMap(userPlugin, configOn, undefined, undefined);
  for (const set of configHooks ?? []) {
    if (!isHookSet(set)) throw new PluginError('config hooks must be made with defineHook(...)', { pluginName: USER_HOOKS });
    addSet(userPlugin, set);
  }

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
