// Cline loads the default export as the plugin; the rest is for a plugin file of your own.
import { createHookwisePlugin } from './plugin.js';

/**
 * The Cline plugin: `.cline/plugins/hookwise.js` (written by `hookwise init --host cline`)
 * re-exports it. It loads the project's `hookwise.config.*` and runs your hookwise plugins on
 * every model request, tool call, run and compaction of the session.
 */
const hookwise = createHookwisePlugin();
export default hookwise;
export { createHookwisePlugin, HOST, CLINE_HOOK_TIMEOUT_MS } from './plugin.js';
export type { ClineHooks, ClinePlugin, HookwiseClineOptions } from './plugin.js';
export type { AgentMessage as ClineMessage, AgentMessagePart as ClinePart } from '@cline/shared';
