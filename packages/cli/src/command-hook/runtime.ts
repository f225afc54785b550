import { ConfigError } from '@hookwise/core';
import { configFromBundle, createEngine, type BundledConfig, type CheckedJsonConfig, type Engine } from '@hookwise/core/host';
import { CallDeadlineError, runHookProcess, SyncGuard, type CommandHookHost, type RunRequest } from '@hookwise/core/command-hook';

/**
 * The run-time of the per-project bundle, for any command-hook host. A host's run-time module
 * (the one the manifest names) binds {@link runBundled} to its `CommandHookHost`; the generated
 * entry (see bundle.ts) bundles that module, this one, @hookwise/core and the config's modules
 * into one CommonJS file, so nothing loads
 * through `import()` at run time. The config's modules (the config module, or the plugin
 * packages and hook files a JSON config names) come as loaders: their top level runs here,
 * one module at a time under the call's deadline, so a module that loops at import is
 * stopped, named and recorded instead of running until the host kills the process.
 */
export type LazyBundledConfig =
  | { kind: 'module'; file: string /** Runs the config module's top level; returns its namespace. */; load: () => unknown }
  | {
      kind: 'json';
      file: string;
      /** Loaders of the plugin modules by the package name the JSON config lists. */
      plugins: Record<string, () => unknown>;
      /** Loaders of the hook modules by the specifier the JSON config lists under `on`. */
      hookModules: Record<string, () => unknown>;
      /** What the bundle's build checked of the config (see checked-config.ts): core skips that on the call. */
      checked?: CheckedJsonConfig;
    };

export type { BundledConfig };
export { configFromBundle };

/**
 * The config's modules, loaded (their top level run) in the order the config lists them, all
 * under one watchdog bounded by the call's deadline and `timeoutMs` (one thread, not one per
 * module). The bundle is CommonJS, so the watchdog never lands inside an ES module's
 * instantiation, which V8 does not survive. A throw
 * becomes a ConfigError naming the module; a module still running at the deadline is named in
 * the CallDeadlineError that ends the call.
 */
export function loadBundledModules(lazy: LazyBundledConfig, timeoutMs = Number.POSITIVE_INFINITY, guard = new SyncGuard()): BundledConfig {
  let current = lazy.file;
  const load = (label: string, loader: () => unknown): unknown => {
    current = label;
    try {
      return loader();
    } catch (error) {
      // Worded as loadConfig words it on the unbundled path (`<config>: could not import: …`), naming the module a JSON config lists.
      const what = label === lazy.file ? 'could not import' : `could not import ${label}`;
      throw new ConfigError(`${what}: ${(error as Error)?.message ?? String(error)}`, { file: lazy.file, cause: error });
    }
  };
  const each = (loaders: Record<string, () => unknown>) =>
    Object.fromEntries(Object.entries(loaders).map(([name, loader]) => [name, load(name, loader)]));
  return guard.runWithin(
    (): BundledConfig =>
      lazy.kind === 'module'
        ? { kind: 'module', file: lazy.file, module: load(lazy.file, lazy.load) }
        : {
            kind: 'json',
            file: lazy.file,
            plugins: each(lazy.plugins),
            hookModules: each(lazy.hookModules),
            ...(lazy.checked ? { checked: lazy.checked } : {}),
          },
    timeoutMs,
    () => new CallDeadlineError(`${current} was still running its top level: a loop at import?`, { module: current }),
  );
}

/** A hook call of `host` as the whole process, its engine built from the bundled config. */
export function runBundled<Input>(host: CommandHookHost<Input>, request: RunRequest, lazy: LazyBundledConfig): Promise<never> {
  return runHookProcess(host, request, async (projectDir, scope) =>
    createEngine({
      config: await configFromBundle(loadBundledModules(lazy, Number.POSITIVE_INFINITY, scope.guard)),
      projectDir,
      host: host.name,
      runSync: scope.runSync,
    }),
  );
}

export type { Engine };
