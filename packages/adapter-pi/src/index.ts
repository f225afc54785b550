// pi loads the default export as the extension; the rest is for an extension file of your own.
export { default, createHookwiseExtension } from './extension.js';
export { HOST, CUSTOM_TYPE } from './binding.js';
export type { HookwisePiOptions } from './binding.js';
export type { PiExtensionApi, PiContext, PiMessage } from './pi-types.js';
