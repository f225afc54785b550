// OpenCode loads every export of this module as a plugin function, and refuses the whole
// module when one is not a function: only the plugin is exported as a value here.
export { HookwisePlugin } from './plugin.js';
export type { HookwiseOpenCodeOptions } from './binding.js';
