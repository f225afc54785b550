import type { SessionState, StateStore } from '@hookwise/core';
import { createSessionState, PROJECT_SCOPE } from '@hookwise/core/plugin';
import { PLUGIN_NAME } from './meta.js';

/**
 * Where the plain API functions (`activateCommand`, `selectIntent`, …) keep their data: either
 * a SessionState already namespaced to this plugin (what hooks and plugin commands receive as
 * `context.state` / `context.projectState`), or a store plus a session id.
 */
export type StateTarget = SessionState | { stateStore: StateStore; sessionId: string };

export function toSessionState(target: StateTarget): SessionState {
  if ('read' in target && typeof target.read === 'function') return target;
  const { stateStore, sessionId } = target as { stateStore: StateStore; sessionId: string };
  return createSessionState(stateStore, sessionId, PLUGIN_NAME);
}

/** Project-wide data (the selected intent and its trace) lives under core's `project` session id. */
export function toProjectState(target: SessionState | { stateStore: StateStore; sessionId?: string }): SessionState {
  if ('read' in target && typeof target.read === 'function') return target;
  const { stateStore, sessionId } = target as { stateStore: StateStore; sessionId?: string };
  return createSessionState(stateStore, sessionId ?? PROJECT_SCOPE, PLUGIN_NAME);
}
