import type { HookwiseConfig } from '../config.js';
import { PluginError } from '../errors.js';
import { getClassHooks, isHookSet, type HookClass, type HookFunction, type HookOrder, type HookSet } from '../hooks.js';
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
export function buildHookTable(plugins: readonly PreparedPlugin[], configHooks: HookwiseConfig['hooks']): Map<PointName, PreparedHook[]> {
  const hooks: PreparedHook[] = [];
  const addSet = (plugin: PreparedPlugin, set: HookSet<any>) => {
    for (const point of Object.keys(set.on) as PointName[]) {
      if (!(point in points)) throw new PluginError(`unknown lifecycle point "${point}" in hook "${set.name}"`, { pluginName: plugin.meta.name, hookName: set.name });
      const entry = set.on[point];
      const handler = (typeof entry === 'function' ? entry : entry?.handler) as HookFunction<PointName> | undefined;
      if (typeof handler !== 'function') throw new PluginError(`hook "${set.name}" on ${point} is not a function`, { pluginName: plugin.meta.name, hookName: set.name });
      const order = typeof entry === 'function' ? undefined : entry?.order;
      hooks.push({ point, pluginName: plugin.meta.name, hookName: set.name, order, plugin, call: (_scope, payload, context) => handler(payload as never, context) });
    }
  };
  const addClass = (plugin: PreparedPlugin, hookClass: HookClass) => {
    for (const metadata of getClassHooks(hookClass)) {
      if (!(metadata.point in points)) throw new PluginError(`unknown lifecycle point "${metadata.point}"`, { pluginName: plugin.meta.name, hookName: `${hookClass.name}.${metadata.method}` });
      hooks.push({
        point: metadata.point,
        pluginName: plugin.meta.name,
        hookName: `${hookClass.name}.${metadata.method}`,
        order: metadata.order,
        plugin,
        call: (scope, payload, context) => {
          const instance = scope.container.resolve(hookClass) as Record<string, (...args: unknown[]) => unknown>;
          return instance[metadata.method]!(payload, context);
        },
      });
    }
  };
  for (const plugin of plugins) {
    for (const entry of plugin.instance!.definition.hooks) {
      if (isHookSet(entry)) addSet(plugin, entry);
      else if (typeof entry === 'function') addClass(plugin, entry);
      else throw new PluginError('hooks must be @injectable classes with @On methods or defineHook(...) sets', { pluginName: plugin.meta.name });
    }
  }
  const userPlugin: PreparedPlugin = { instance: undefined, meta: { name: USER_HOOKS, version: '0.0.0' }, options: undefined };
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
