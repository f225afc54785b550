import { registerHookwise, type HookwisePiOptions } from './binding.js';
import type { PiExtensionApi } from './pi-types.js';

/**
 * An extension with options of your own: `export default createHookwiseExtension({ configFile })`
 * in an extension file pi loads.
 */
export function createHookwiseExtension(options: HookwisePiOptions = {}): (pi: PiExtensionApi) => void {
  return (pi) => registerHookwise(pi, options);
}

/**
 * The pi extension: pi calls it once per start (`pi -e`, settings.json `"extensions"` or
 * `"packages"`, or this package's `"pi": { "extensions" }`). It loads the project's
 * `hookwise.config.*` on first use and runs your hookwise plugins on every model request, tool
 * call, prompt and compaction of the session.
 */
export default function hookwise(pi: PiExtensionApi): void {
  registerHookwise(pi);
}
