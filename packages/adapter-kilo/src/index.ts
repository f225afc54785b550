// Kilo loads every export of this module as a plugin function: only the plugin is a value here.
export { HookwiseKiloPlugin } from './plugin.js';
export type { HookwiseKiloOptions } from './plugin.js';
