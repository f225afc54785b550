/**
 * `@hookwise/core/plugin`: what a plugin's own code needs beyond its hook context — safe names
 * and paths kept inside the project, the context window of a model, the default token counter,
 * session state outside a hook (a plugin's plain API functions), and an event log of its own
 * (a plugin's log file). Hosts find the same helpers in `/host`; a plugin never imports that.
 */
export { assertSafeName, isSafeName, resolveInside } from './state/safe-name.js';
export type { SafeNameOptions } from './state/safe-name.js';
export { contextWindowFor, resolveContextWindow } from './context-window.js';
export { formatTokens } from './format-tokens.js';
export type { ResolvedContextWindow } from './context-window.js';
export { defaultTokenCounter } from './token-counter.js';
export { createSessionState } from './state/file-state-store.js';
export { PROJECT_SCOPE } from './engine/scopes.js';
export { createEventLog } from './state/event-log.js';
export type { EventLogOptions } from './state/event-log.js';
