// The parts of Cline's plugin API (@cline/core 0.0.86, cline 3.0.65) hookwise reads, typed
// structurally: Cline hands each hook a JSON copy of its context, so only plain data arrives.

/** A part of an `AgentMessage`: text, reasoning, image, file, tool-call, tool-result. */
export interface ClinePart {
  type: string;
  text?: unknown;
  toolCallId?: unknown;
  toolName?: unknown;
  input?: unknown;
  output?: unknown;
  isError?: unknown;
  [key: string]: unknown;
}

export interface ClineMessage {
  id: string;
  role: string;
  content: ClinePart[];
  metadata?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ClineSnapshot {
  agentId?: string;
  conversationId?: string;
  messages?: ClineMessage[];
}

export interface ClineToolResult {
  output?: unknown;
  isError?: boolean;
  [key: string]: unknown;
}

/** What `setup(api, context)` is given. */
export interface ClineSetupContext {
  session?: { sessionId?: string };
  workspaceInfo?: { rootPath?: string };
}

/** The fields of the hooks' contexts hookwise reads (each hook gets some of them; `type` and `metadata`: `onEvent`). */
export interface ClineHookContext {
  snapshot?: ClineSnapshot;
  request?: { systemPrompt?: string; messages?: ClineMessage[] };
  toolCall?: { toolCallId?: string; toolName?: string };
  input?: unknown;
  result?: ClineToolResult;
  type?: string;
  metadata?: Record<string, unknown>;
}

/** What a hook may give back (each hook reads its own fields). */
export interface ClineHookResult {
  messages?: readonly ClineMessage[];
  result?: ClineToolResult;
  appendContext?: string;
  stop?: boolean;
  skip?: boolean;
  reason?: string;
}

export type ClineHooks = Record<
  'beforeRun' | 'beforeModel' | 'beforeTool' | 'afterTool' | 'afterRun' | 'onEvent',
  (context: ClineHookContext) => Promise<ClineHookResult | undefined>
>;

/** A Cline plugin module's default export. */
export interface ClinePlugin {
  name: string;
  manifest: { capabilities: string[] };
  hooks: ClineHooks;
  setup(api: unknown, context?: ClineSetupContext): Promise<void>;
}
