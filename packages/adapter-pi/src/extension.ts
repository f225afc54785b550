import { registerHookwise, type HookwisePiOptions } from './binding.js';
import type { PiExtensionApi } from './pi-types.js';

/** An extension with options of your own: `export default createHookwiseExtension({ configFile })` in an extension file pi loads. */
export function createHookwiseExtension(options: HookwisePiOptions = {}): (pi: PiExtensionApi) => void {
  return (pi) => registerHookwise(pi, options);
}

/**
 * The pi extension, called once per start (`pi -e`, settings.json `"extensions"` or `"packages"`,
 * or this package's `"pi": { "extensions" }`): it runs your hookwise plugins on every model
 * request, tool call, prompt and compaction, loading `hookwise.config.*` on first use.
 */
export default function hookwise(pi: PiExtensionApi): void {
  registerHookwise(pi);
}
