/**
 * The part of pi's extension API (`@earendil-works/pi-coding-agent` 1.5.2,
 * `dist/core/extensions/types.d.ts`) this adapter uses, written structurally: hookwise installs
 * and type-checks without pi's package (about 160 MB), and tolerates any field pi leaves out or adds.
 */

/** A message as pi keeps it (`AgentMessage`): `user`, `assistant`, `toolResult`, pi's own roles, or one this adapter does not know. */
export interface PiMessage {
  role: string;
  content?: unknown;
  [key: string]: unknown;
}

/** What every handler gets as its second argument (`ExtensionContext`). */
export interface PiContext {
  cwd: string;
  hasUI: boolean;
  ui: { notify(message: string, type?: 'info' | 'warning' | 'error'): void };
  sessionManager: { getSessionId(): string; getSessionFile(): string | undefined; buildSessionProjection?(): { messages: PiMessage[] } };
  model?: { id?: string; provider?: string; contextWindow?: number } | undefined;
  getContextUsage(): { tokens: number | null; contextWindow: number; percent: number | null } | undefined;
  getSystemPrompt?(): string;
}

/** `pi.on(event, handler)`: the handler's return value is the event's result (or nothing). */
export type PiHandler = (event: any, context: PiContext) => unknown;

/** The extension API object pi hands an extension's default export (`ExtensionAPI`). */
export interface PiExtensionApi {
  on(event: string, handler: PiHandler): unknown;
  sendMessage?(
    message: { customType: string; content: string; display: boolean; details?: unknown },
    options?: { deliverAs?: 'steer' | 'followUp' | 'nextTurn'; triggerTurn?: boolean },
  ): void;
}
