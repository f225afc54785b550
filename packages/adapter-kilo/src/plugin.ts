import { createHooks, type HookwiseOpenCodeOptions } from '@hookwise/adapter-opencode/binding';
import type { ProjectEngineSeams } from '@hookwise/core/host';
import type { Hooks, Plugin, PluginInput } from '@kilocode/plugin';

/** Options given in `kilo.jsonc`: `"plugin": [["<spec>", { "configFile": "hookwise.config.json", "toasts": false }]]`. */
export type HookwiseKiloOptions = HookwiseOpenCodeOptions;

/**
 * Kilo's hooks: OpenCode's binding (same hook names, same message shape), under the host name
 * `kilo`. Kilo does not fail open — a hook that throws ends the turn — and the binding catches
 * everything on every hook but a hook's deliberate `tool:before` block. Kilo has no `dispose`.
 */
export function createKiloHooks(
  input: Pick<PluginInput, 'client' | 'directory'>,
  options: HookwiseKiloOptions = {},
  dependencies: ProjectEngineSeams = {},
): Hooks {
  // Kilo's SDK client has OpenCode's `app.log` and `tui.showToast`, all the binding calls.
  const { dispose: _dispose, ...hooks } = createHooks(input as never, options, dependencies, 'kilo');
  // Every hook type-checks as Kilo's but `tool` and `provider`, whose types differ and which the binding does not set.
  const bound: Omit<Hooks, 'tool' | 'provider'> = hooks;
  return bound;
}

/**
 * The Kilo plugin. List the installed folder in `kilo.jsonc`
 * (`"plugin": ["./node_modules/@hookwise/adapter-kilo"]`); it loads the project's
 * `hookwise.config.*` on first use and runs your hookwise plugins on every model request, tool
 * call, prompt and compaction of the session.
 */
export const HookwiseKiloPlugin: Plugin = async (input, options) => createKiloHooks(input, (options ?? {}) as HookwiseKiloOptions);
