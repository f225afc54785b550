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
  [key: string]: unknown;
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
  [key: string]: unknown;
}

export interface ClineHooks {
  beforeRun(context: { snapshot?: ClineSnapshot }): Promise<{ stop?: boolean; reason?: string; appendContext?: string } | undefined>;
  beforeModel(context: {
    snapshot?: ClineSnapshot;
    request?: { systemPrompt?: string; messages?: ClineMessage[] };
  }): Promise<{ messages?: readonly ClineMessage[] } | undefined>;
  beforeTool(context: {
    snapshot?: ClineSnapshot;
    toolCall?: { toolCallId?: string; toolName?: string };
    input?: unknown;
  }): Promise<{ skip?: boolean; reason?: string; appendContext?: string } | undefined>;
  afterTool(context: {
    snapshot?: ClineSnapshot;
    toolCall?: { toolCallId?: string; toolName?: string };
    input?: unknown;
    result?: ClineToolResult;
  }): Promise<{ result?: ClineToolResult; appendContext?: string } | undefined>;
  afterRun(context: { snapshot?: ClineSnapshot; result?: unknown }): Promise<void>;
  onEvent(event: { type?: string; snapshot?: ClineSnapshot; metadata?: Record<string, unknown> }): Promise<void>;
}

/** A Cline plugin module's default export. */
export interface ClinePlugin {
  name: string;
  manifest: { capabilities: string[] };
  hooks: ClineHooks;
  setup(api: unknown, context?: ClineSetupContext): Promise<void>;
}
