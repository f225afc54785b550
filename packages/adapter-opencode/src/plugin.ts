import type { Plugin } from '@opencode-ai/plugin';
import { createHooks, type HookwiseOpenCodeOptions } from './binding.js';

/**
 * The OpenCode plugin. List it in `opencode.json` (`"plugin": ["./node_modules/@hookwise/adapter-opencode"]`);
 * it loads the project's `hookwise.config.*` on first use and runs your hookwise plugins on
 * every model request, tool call, prompt and compaction of the session.
 */
export const HookwisePlugin: Plugin = async (input, options) => createHooks(input, (options ?? {}) as HookwiseOpenCodeOptions);
