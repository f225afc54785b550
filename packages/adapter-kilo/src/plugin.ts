import { createHooks, type BindingDependencies } from '@hookwise/adapter-opencode/binding';
import type { Hooks, Plugin, PluginInput } from '@kilocode/plugin';

/** Options given in `kilo.jsonc`: `"plugin": [["<spec>", { "configFile": "hookwise.config.json" }]]`. */
export interface HookwiseKiloOptions {
  /** The hookwise config, relative to the project; default: core's lookup of `hookwise.config.*`. */
  configFile?: string;
  /** Show notices as TUI toasts (default true); they always go to Kilo's log. */
  toasts?: boolean;
}

type BoundHook =
  | 'event'
  | 'command.execute.before'
  | 'chat.message'
  | 'tool.execute.before'
  | 'tool.execute.after'
  | `experimental.${'chat.messages' | 'chat.system'}.transform`
  | 'experimental.session.compacting'
  | 'experimental.compaction.autocontinue';

/**
 * Kilo's hooks: OpenCode's binding (same hook names, same message shape), under the host name
 * `kilo`. Kilo does not fail open — a hook that throws ends the turn — and the binding catches
 * everything on every hook but a hook's deliberate `tool:before` block. Kilo has no `dispose`.
 */
export function createKiloHooks(
  input: Pick<PluginInput, 'client' | 'directory'>,
  options: HookwiseKiloOptions = {},
  dependencies: BindingDependencies = {},
): Hooks {
  // Kilo's SDK client has OpenCode's `app.log` and `tui.showToast`, all the binding calls.
  const { dispose: _dispose, ...hooks } = createHooks(input as never, options, dependencies, 'kilo');
  // The hooks the binding sets type-check as Kilo's (its tool and provider types differ from OpenCode's).
  const bound: Pick<Hooks, BoundHook> = hooks;
  return bound;
}

/**
 * The Kilo plugin. List the installed folder in `kilo.jsonc`
 * (`"plugin": ["./node_modules/@hookwise/adapter-kilo"]`); it loads the project's
 * `hookwise.config.*` on first use and runs your hookwise plugins on every model request, tool
 * call, prompt and compaction of the session.
 */
export const HookwiseKiloPlugin: Plugin = async (input, options) => createKiloHooks(input, (options ?? {}) as HookwiseKiloOptions);
