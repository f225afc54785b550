/**
 * The part of pi's extension API (`@earendil-works/pi-coding-agent` 1.5.2,
 * `dist/core/extensions/types.d.ts`) this adapter uses, written structurally: hookwise does not
 * load pi's package, so it installs and type-checks without it, and every field pi may leave out
 * or add is tolerated.
 */

/** A content block of a user message or a tool result. */
export type PiContent =
  | { type: 'text'; text: string; [key: string]: unknown }
  | { type: 'image'; data?: string; mimeType?: string; [key: string]: unknown }
  | { type: string; [key: string]: unknown };

/** A message as pi keeps it (`AgentMessage`): `user`, `assistant`, `toolResult`, pi's own roles, or one this adapter does not know. */
export interface PiMessage {
  role: string;
  content?: unknown;
  [key: string]: unknown;
}

export interface PiContextUsage {
  tokens: number | null;
  contextWindow: number;
  percent: number | null;
}

export interface PiSessionManager {
  getSessionId(): string;
  getSessionFile(): string | undefined;
  buildSessionProjection?(): { messages: PiMessage[] };
}

export interface PiUi {
  notify(message: string, type?: 'info' | 'warning' | 'error'): void;
}

/** What every handler gets as its second argument (`ExtensionContext`). */
export interface PiContext {
  cwd: string;
  hasUI: boolean;
  ui: PiUi;
  sessionManager: PiSessionManager;
  model?: { id?: string; provider?: string; contextWindow?: number } | undefined;
  getContextUsage(): PiContextUsage | undefined;
  getSystemPrompt?(): string;
}

export interface PiCustomMessage {
  customType: string;
  content: string;
  display: boolean;
  details?: unknown;
}

/** `pi.on(event, handler)`: the handler's return value is the event's result (or nothing). */
export type PiHandler = (event: any, context: PiContext) => unknown;

/** The extension API object pi hands an extension's default export (`ExtensionAPI`). */
export interface PiExtensionApi {
  on(event: string, handler: PiHandler): unknown;
  sendMessage?(message: PiCustomMessage, options?: { deliverAs?: 'steer' | 'followUp' | 'nextTurn'; triggerTurn?: boolean }): void;
}
