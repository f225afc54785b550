import type { DependencyContainer } from 'tsyringe';
import { PluginError } from './errors.js';
import type { HookClass, HookMap, HookOrder, PluginContext } from './hooks.js';
import type { parseWith, SchemaLike } from './schema.js';

export interface PluginMeta {
  name: string;
  version: string;
}

export interface PluginDefinition<Options, Input = Options> {
  meta: PluginMeta;
  /**
   * Validates the options the user gives the factory: any zod (classic or mini) schema, or
   * anything with `safeParse`; or a function returning one, called once, when options are
   * first validated (building a zod schema costs a hook process time at import, and a call
   * whose options were validated when the run bundle was built never needs it).
   *
   * The result must depend on the options alone (no environment, working folder, files or
   * clock): hookwise may resolve them once and reuse the result while the config and the
   * plugin's package are unchanged.
   */
  options?: SchemaLike<Options, Input> | (() => SchemaLike<Options, Input>);
  /**
   * The plugin's hooks by point: `{ 'tool:after': (payload, context) => ({ notice: '…' }) }`,
   * `{ handler, order, name }` for one with its own order or name, a list for several on one
   * point. Each is typed by its point (what it may return: observe, guard or transform outcomes).
   */
  on?: HookMap<Options>;
  /**
   * What the plugin's hooks need the host to measure, at a cost the host pays only for them:
   * `contextUsage`, the context size in the payload (`contextTokens`; on compact:after the
   * compaction's `tokensBefore` / `tokensAfter`), which a command-hook host reads from its
   * session's transcript. In-process hosts pass it on every point.
   */
  needs?: ReadonlyArray<'contextUsage'>;
  /** Where the plugin's hooks run among the others': `pre` first, `post` last, else config order. */
  order?: HookOrder;
  /**
   * `@injectable()` classes with `@On` methods, for hooks that want injected services (the DI
   * path; needs `@hookwise/core/di`). Plain hook functions go under `on`.
   */
  hooks?: ReadonlyArray<HookClass>;
  /** Registers the plugin's own services in its container (a child of the session's). */
  register?: (container: DependencyContainer, options: Options) => void;
  /**
   * Commands the plugin offers to hosts (`hookwise suggest dismiss`, a VS Code command), so
   * adapters reach plugin features through the config and never import a plugin.
   */
  commands?: ReadonlyArray<PluginCommand<Options>>;
}

/** What a plugin command runs with. Its session: given by the caller, else the last session that started. */
export type PluginCommandContext<Options = unknown> = PluginContext<Options>;

export interface PluginCommand<Options = unknown> {
  /** Words after `hookwise`, e.g. `suggest dismiss`, `command activate`. */
  name: string;
  description: string;
  /** e.g. `<name> [args…]`, shown in help. */
  usage?: string;
  /** Returns the text to show the user. Throw a HookwiseError for a clear message. */
  run(args: string[], context: PluginCommandContext<Options>): Promise<string | void> | string | void;
}

const pluginMarker = Symbol.for('hookwise.Plugin');

/** What a plugin factory returns and a config lists. */
export interface PluginInstance<Options = unknown> {
  readonly [pluginMarker]: true;
  readonly specificationVersion: 'v1';
  readonly meta: PluginMeta;
  readonly definition: PluginDefinition<Options, any>;
  /** The options as given, validated when the engine is built. */
  readonly rawOptions: unknown;
  /**
   * Validates `rawOptions`; throws a PluginError naming the plugin. Hosts pass `parseWith` (of
   * `@hookwise/core/host`), whose messages are zod's English ones; without it the message is the
   * schema error's own text (the main entry loads no zod).
   */
  resolveOptions(parse?: typeof parseWith): Options;
}

export type PluginFactory<Options, Input> = ((options?: Input) => PluginInstance<Options>) & {
  meta: PluginMeta;
  definition: PluginDefinition<Options, Input>;
};

/**
 * Turns a definition into a factory, `prune(options)`, to import into a config file.
 * Options are not validated here but when the engine is built, so a config module can be
 * imported without side effects and every error names its plugin.
 */
export function definePlugin<Options, Input = Options>(definition: PluginDefinition<Options, Input>): PluginFactory<Options, Input> {
  if (!definition?.meta?.name) throw new TypeError('definePlugin needs meta.name');
  let schema: SchemaLike<Options, Input> | undefined;
  const schemaOf = (options: NonNullable<PluginDefinition<Options, Input>['options']>) =>
    (schema ??= typeof options === 'function' ? options() : options);
  const factory = (options?: Input): PluginInstance<Options> => ({
    [pluginMarker]: true,
    specificationVersion: 'v1',
    meta: definition.meta,
    definition,
    rawOptions: options,
    resolveOptions(parse = plainParse): Options {
      if (!definition.options) return (options ?? {}) as Options;
      const result = parse(schemaOf(definition.options), options ?? {});
      if (result.ok) return result.data;
      throw new PluginError(`invalid options\n${result.message}`, { pluginName: definition.meta.name, cause: result.error });
    },
  });
  return Object.assign(factory, { meta: definition.meta, definition });
}

const plainParse: typeof parseWith = (schema, value) => {
  const result = schema.safeParse(value);
  return result.success
    ? { ok: true, data: result.data }
    : { ok: false, message: String((result.error as Error | undefined)?.message ?? result.error), error: result.error };
};

/**
 * `instance` with its options resolved already (validated once while a config was loaded, or
 * resolved when the run bundle was built): `resolveOptions` returns them without validating again.
 */
export function withResolvedOptions<Options>(instance: PluginInstance<Options>, options: Options): PluginInstance<Options> {
  return { ...instance, resolveOptions: () => options };
}

export function isPluginInstance(value: unknown): value is PluginInstance {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[pluginMarker] === true;
}
