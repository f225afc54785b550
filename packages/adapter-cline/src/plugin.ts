import { createHost, emitLlmBefore, type Host, type HostSession, type PartConversion, type ProjectEngineSeams } from '@hookwise/core/host';
import { parseSlashCommand } from '@hookwise/core/messages';
import type { AgentExtension, AgentMessage as ClineMessage, AgentRuntimeHooks, AgentRuntimeStateSnapshot } from '@cline/shared';
import { clineConversion, compactionOf, estimatedTokens, outputText, withHookwiseText } from './messages.js';

/** The host name hookwise payloads and logs carry. */
export const HOST = 'cline';
/** Each hook's deadline: Cline gives a hook 3 s and fails the run past it; the kit adds a second at most. */
export const CLINE_HOOK_TIMEOUT_MS = 1_000;

/** The hooks hookwise declares (no `onEvent`: Cline awaits it for every streamed chunk). */
export type ClineHooks = Required<Pick<AgentRuntimeHooks, 'beforeRun' | 'beforeModel' | 'beforeTool' | 'afterTool' | 'afterRun'>>;
/** A Cline plugin module's default export (Cline's `AgentPlugin`) with hookwise's hooks. */
export type ClinePlugin = AgentExtension & { hooks: ClineHooks; setup: NonNullable<AgentExtension['setup']> };

export interface HookwiseClineOptions {
  /** The hookwise config, relative to the project; default: core's lookup of `hookwise.config.*`. */
  configFile?: string;
  /** Each hook's deadline in ms (default 1000); keep it well under Cline's 3 s. */
  hookTimeoutMs?: number;
}

/** What the plugin needs from the outside; tests pass fakes. */
export interface PluginDependencies extends ProjectEngineSeams {
  /** Where log lines and notices go (default: the sandbox's stderr). */
  writeLine?: (line: string) => void;
}

interface ClineSession {
  conversion: PartConversion<ClineMessage>;
}

/** The non-empty texts joined, or undefined. */
const joined = (...values: Array<string | undefined>): string | undefined =>
  values.filter((value) => value?.trim()).join('\n\n') || undefined;

/** Cline 3.0.65 stores a prompt as `<user_input mode="act">…</user_input>`: hooks see what was typed. */
const USER_INPUT = /^\s*<user_input\b[^>]*>([\s\S]*)<\/user_input>\s*$/;

/** The newest user text of the transcript: the prompt of the run. */
function promptOf(snapshot: AgentRuntimeStateSnapshot | undefined): string {
  for (const message of (snapshot?.messages ?? []).toReversed()) {
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    const text = message.content.flatMap((part) => (part.type === 'text' && typeof part.text === 'string' ? [part.text] : [])).join('\n');
    if (text.trim() !== '') return USER_INPUT.exec(text)?.[1] ?? text;
  }
  return '';
}

/**
 * The Cline plugin. Cline imports it in its plugin sandbox once per session and calls its hooks
 * with a JSON copy of each context; the config is loaded in `setup` (within Cline's import limit).
 * Cline does not fail open: every hook answers within the kit's deadline and never throws.
 */
export function createHookwisePlugin(options: HookwiseClineOptions = {}, dependencies: PluginDependencies = {}): ClinePlugin {
  const writeLine = dependencies.writeLine ?? ((line: string) => process.stderr.write(`${line}\n`));
  let projectDir: string | undefined;
  let sessionId: string | undefined;
  let host: Host<ClineSession> | undefined;
  const hostOf = (): Host<ClineSession> =>
    (host ??= createHost<ClineSession>({
      ...dependencies,
      host: HOST,
      projectDir: projectDir ?? process.cwd(),
      log: (entry) => writeLine(`[hookwise] ${entry.level}: ${entry.text}`),
      // No UI reaches the sandbox: notices go to its stderr (Cline's log) and the event log.
      notify: (notice) => writeLine(`[hookwise] ${notice.hostText}`),
      hookTimeoutMs: options.hookTimeoutMs ?? CLINE_HOOK_TIMEOUT_MS,
      ...(options.configFile ? { configFile: options.configFile } : {}),
      session: () => ({ conversion: clineConversion() }),
    }));
  const sessionOf = (snapshot: AgentRuntimeStateSnapshot | undefined): HostSession<ClineSession> =>
    hostOf().session(sessionId ?? snapshot?.conversationId ?? snapshot?.agentId ?? 'cline');

  /** A hook that never throws and answers within one deadline (undefined: Cline's own behaviour). */
  const guarded = <K extends keyof ClineHooks>(name: K, body: (context: Parameters<ClineHooks[K]>[0]) => ReturnType<ClineHooks[K]>) =>
    (async (context: never) =>
      (await hostOf().within(hostOf().guard(`cline ${name}`, sessionId, async () => body(context)))) ?? undefined) as ClineHooks[K];

  const hooks: ClineHooks = {
    beforeRun: guarded('beforeRun', async ({ snapshot }) => {
      const session = sessionOf(snapshot);
      const started = await session.start((snapshot?.messages?.length ?? 0) > 1 ? 'resume' : 'startup');
      const prompt = promptOf(snapshot);
      const command = parseSlashCommand(prompt);
      const outcome = await session.emit('prompt:submit', () => ({
        prompt,
        command: command && { name: command.name, args: command.args },
      }));
      if (outcome?.block) return { stop: true, reason: `hookwise: ${outcome.block.reason}` };
      // Cline adds it after the prompt as a `<hook_context>` message, kept in the session.
      const appendContext = joined(started, outcome?.context);
      return appendContext ? { appendContext } : undefined;
    }),

    beforeModel: guarded('beforeModel', async ({ snapshot, request }) => {
      const original = request?.messages;
      if (!Array.isArray(original)) return undefined;
      const session = sessionOf(snapshot);
      const systemPrompt = request?.systemPrompt ?? '';
      // Seen in the first request after it (no `onEvent`: Cline awaits it for every streamed
      // chunk); Cline's summarizer takes nothing from a plugin, so compact:before only observes.
      const { key, ...compaction } = compactionOf(original) ?? {};
      if (key)
        await session.compactedEarlier(key, () => {
          const tokensAfter = estimatedTokens(systemPrompt, original);
          return { ...compaction, tokensAfter, contextTokens: tokensAfter };
        });
      const { messages: edited, context } = await emitLlmBefore(
        session,
        session.data.conversion,
        { systemPrompt, messages: original },
        { logger: hostOf().logger },
      );
      // What hooks handed back at the last compaction and the llm:before context: this request only.
      const messages = withHookwiseText(edited, await session.requestTexts(context));
      return messages === original ? undefined : { messages };
    }),

    beforeTool: guarded('beforeTool', async ({ snapshot, toolCall, input }) => {
      if (typeof toolCall?.toolName !== 'string') return undefined;
      const fields = { toolName: toolCall.toolName, input, toolUseId: toolCall.toolCallId };
      const outcome = await sessionOf(snapshot).emit('tool:before', () => fields);
      if (outcome?.block) return { skip: true, reason: `hookwise: ${outcome.block.reason}` };
      return outcome?.context ? { appendContext: outcome.context } : undefined;
    }),

    afterTool: guarded('afterTool', async ({ snapshot, toolCall, input, result }) => {
      if (typeof toolCall?.toolName !== 'string') return undefined;
      const output = outputText(result?.output);
      const ok = result?.isError !== true;
      const fields = { toolName: toolCall.toolName, input, output, ok, error: ok ? undefined : output, toolUseId: toolCall.toolCallId };
      const outcome = await sessionOf(snapshot).emit('tool:after', () => fields);
      // tool:after transforms the output; Cline stores what is returned here.
      const value = (outcome as { value?: unknown } | undefined)?.value;
      const changed = typeof value === 'string' && value !== output;
      if (!changed && !outcome?.context) return undefined;
      return {
        ...(changed ? { result: { ...result, output: value } } : {}),
        ...(outcome?.context ? { appendContext: outcome.context } : {}),
      };
    }),

    afterRun: guarded('afterRun', async ({ snapshot }) => {
      // Cline's run has ended: a block cannot keep it going; a context waits for the next request.
      const session = sessionOf(snapshot);
      const outcome = await session.emitUnblockable('agent:stop', () => ({}), 'the agent to go on, which Cline does not allow', 'info');
      session.addContext(outcome?.context);
    }),
  };

  return {
    name: 'hookwise',
    manifest: { capabilities: ['hooks'] },
    hooks,
    async setup(_api, context) {
      projectDir ??= context?.workspaceInfo?.rootPath;
      sessionId ??= context?.session?.sessionId;
      // The engine reports its own failures; a hook finds hookwise off then.
      await hostOf().engine();
    },
  };
}
