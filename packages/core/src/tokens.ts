import type { InjectionToken } from 'tsyringe';
import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { EventLog, SessionState, StateStore } from './state/types.js';
import type { TokenCounter } from './token-counter.js';

/**
 * Injection tokens. `Symbol.for` keys are shared by every copy of core loaded in a process,
 * so a plugin resolved against another copy's container still finds the same registrations.
 */
export const LOGGER: InjectionToken<Logger> = Symbol.for('hookwise.Logger');
export const STATE_STORE: InjectionToken<StateStore> = Symbol.for('hookwise.StateStore');
/** The current session's state, namespaced to the resolving plugin. */
export const SESSION_STATE: InjectionToken<SessionState> = Symbol.for('hookwise.SessionState');
export const TOKEN_COUNTER: InjectionToken<TokenCounter> = Symbol.for('hookwise.TokenCounter');
export const CLOCK: InjectionToken<Clock> = Symbol.for('hookwise.Clock');
export const EVENT_LOG: InjectionToken<EventLog> = Symbol.for('hookwise.EventLog');
export const PROJECT_DIR: InjectionToken<string> = Symbol.for('hookwise.ProjectDir');
export const SESSION_ID: InjectionToken<string> = Symbol.for('hookwise.SessionId');
export const HOST: InjectionToken<string> = Symbol.for('hookwise.Host');
/** The validated options of the plugin whose container resolves it. */
export const PLUGIN_OPTIONS: InjectionToken<unknown> = Symbol.for('hookwise.PluginOptions');
export const PLUGIN_META: InjectionToken<{ name: string; version: string }> = Symbol.for('hookwise.PluginMeta');

/**
 * Every injection token, for `@inject(TOKENS.SESSION_STATE)` in a plugin's constructors. One
 * object rather than eleven exports: the public API stays small and the names stay the same.
 */
export const TOKENS = {
  LOGGER,
  STATE_STORE,
  SESSION_STATE,
  TOKEN_COUNTER,
  CLOCK,
  EVENT_LOG,
  PROJECT_DIR,
  SESSION_ID,
  HOST,
  PLUGIN_OPTIONS,
  PLUGIN_META,
} as const;
