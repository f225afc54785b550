import { createHost, type Host, type HostSession, type ProjectEngineSeams } from '@hookwise/core/host';
import { parseSlashCommand, type AppliedPartMemo } from '@hookwise/core/messages';
import type { ClineHookContext, ClineHookResult, ClineHooks, ClineMessage, ClinePlugin, ClineSnapshot } from './cline-types.js';
import {
  applyToClineMessages,
  COMPACTION_REASONS,
  createClineConverter,
  outputText,
  withHookwiseText,
  type ConvertedMessages,
} from './messages.js';

/** The host name hookwise payloads and logs carry. */
export const HOST = 'cline';
/**
 * Each hook's deadline. Cline gives a plugin hook 3 s (no setting) and fails the run on a
 * timeout; the kit adds a second at most, so hookwise answers within about 2 s.
 */
export const CLINE_HOOK_TIMEOUT_MS = 1_000;

export interface HookwiseClineOptions {
  /** The hookwise config, relative to the project; default: core's lookup of `hookwise.config.*`. */
  configFile?: string;
  /** Each hook's deadline in ms (default 1000); keep it well under Cline's 3 s. */
  hookTimeoutMs?: number;
}

/** What the plugin needs from the outside; tests pass fakes, Cline's sandbox uses the real thing. */
export interface PluginDependencies extends ProjectEngineSeams {
  /** Where log lines and notices go (default: the sandbox's stderr). */
  writeLine?: (line: string) => void;
}

interface ClineSession {
  convert: ReturnType<typeof createClineConverter>;
  memo: AppliedPartMemo<ClineMessage>;
  /** The handling of a compaction under way: the next request waits for it. */
  compacting?: Promise<unknown>;
}

/** The non-empty texts joined, or undefined. */
const joined = (...values: Array<string | undefined>): string | undefined =>
  values.filter((value) => typeof value === 'string' && value.trim() !== '').join('\n\n') || undefined;
const number = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** Cline 3.0.65 stores a prompt as `<user_input mode="act">…</user_input>`: hooks see what was typed. */
const USER_INPUT = /^\s*<user_input\b[^>]*>([\s\S]*)<\/user_input>\s*$/;

/** The newest user text of the transcript: the prompt of the run. */
function promptOf(snapshot: ClineSnapshot | undefined): string {
  const messages = snapshot?.messages ?? [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role !== 'user' || !Array.isArray(message.content)) continue;
    const text = message.content
      .filter((part) => part.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text as string)
      .join('\n');
    if (text.trim() !== '') return USER_INPUT.exec(text)?.[1] ?? text;
  }
  return '';
}

/**
 * The Cline plugin. Cline imports it in its plugin sandbox once per session and calls its hooks
 * with a JSON copy of each context. The project's hookwise config is loaded in `setup` (Cline's
 * import limit, not a hook's 3 s, pays for it). Cline does not fail open, so every hook answers
 * within the kit's deadline and never throws: a failure is logged and Cline goes on unchanged.
 */
export function createHookwisePlugin(options: HookwiseClineOptions = {}, dependencies: PluginDependencies = {}): ClinePlugin {
  const writeLine = dependencies.writeLine ?? ((line: string) => process.stderr.write(`${line}\n`));
  let projectDir: string | undefined;
  let sessionId: string | undefined;
  let host: Host<ClineSession> | undefined;
  const hostOf = (): Host<ClineSession> =>
    (host ??= createHost<ClineSession>({
      host: HOST,
      projectDir: projectDir ?? process.cwd(),
      log: (entry) => writeLine(`[hookwise] ${entry.level}: ${entry.text}`),
      // No UI reaches the sandbox: notices go to its stderr (Cline's log) and the event log.
      notify: (notice) => writeLine(`[hookwise] ${notice.hostText}`),
      hookTimeoutMs: options.hookTimeoutMs ?? CLINE_HOOK_TIMEOUT_MS,
      ...(options.configFile ? { configFile: options.configFile } : {}),
      ...(dependencies.loadConfig ? { loadConfig: dependencies.loadConfig } : {}),
      ...(dependencies.createEngine ? { createEngine: dependencies.createEngine } : {}),
      session: () => ({ convert: createClineConverter(), memo: new WeakMap() }),
    }));
  const sessionOf = (snapshot: ClineSnapshot | undefined): HostSession<ClineSession> =>
    hostOf().session(sessionId ?? snapshot?.conversationId ?? snapshot?.agentId ?? 'cline');

  /** A hook that never throws and answers within one deadline (undefined: Cline's own behaviour). */
  const guarded =
    (name: string, body: (context: ClineHookContext) => Promise<ClineHookResult | undefined | void>) =>
    async (context: ClineHookContext): Promise<ClineHookResult | undefined> => {
      try {
        const kit = hostOf();
        return (await kit.within(kit.guard(`cline ${name}`, sessionId, () => body(context)))) ?? undefined;
      } catch {
        return undefined;
      }
    };

  const hooks: ClineHooks = {
    beforeRun: guarded('beforeRun', async ({ snapshot }) => {
      const session = sessionOf(snapshot);
      const started = await session.start((snapshot?.messages?.length ?? 0) > 1 ? 'resume' : 'startup');
      const prompt = promptOf(snapshot);
      const command = parseSlashCommand(prompt);
      const outcome = await session.emit('prompt:submit', () => ({
        prompt,
        ...(command ? { command: { name: command.name, args: command.args } } : {}),
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
      if (session.data.compacting) await hostOf().within(session.data.compacting);
      // Converted only when a hook listens.
      let converted: ConvertedMessages | undefined;
      const outcome = await session.emit('llm:before', () => ({
        systemPrompt: request?.systemPrompt ?? '',
        messages: (converted = session.data.convert(original)).messages,
      }));
      let messages: readonly ClineMessage[] = original;
      if (outcome?.value !== undefined && converted) {
        const applied = applyToClineMessages(original, converted, outcome.value, session.data.memo);
        if (applied.editsIgnored > 0)
          hostOf().logger.debug(`llm:before: ${applied.editsIgnored} edit(s) Cline has no place for were left out`);
        messages = applied.messages;
      }
      // What hooks handed back at the last compaction and the llm:before context: this request only.
      messages = withHookwiseText(messages, await session.requestTexts(outcome?.context));
      return messages === original ? undefined : { messages };
    }),

    beforeTool: guarded('beforeTool', async ({ snapshot, toolCall, input }) => {
      if (typeof toolCall?.toolName !== 'string') return undefined;
      const outcome = await sessionOf(snapshot).emit('tool:before', () => ({
        toolName: toolCall.toolName!,
        input,
        toolUseId: toolCall.toolCallId,
      }));
      if (outcome?.block) return { skip: true, reason: `hookwise: ${outcome.block.reason}` };
      return outcome?.context ? { appendContext: outcome.context } : undefined;
    }),

    afterTool: guarded('afterTool', async ({ snapshot, toolCall, input, result }) => {
      if (typeof toolCall?.toolName !== 'string') return undefined;
      const output = outputText(result?.output);
      const ok = result?.isError !== true;
      const outcome = await sessionOf(snapshot).emit('tool:after', () => ({
        toolName: toolCall.toolName!,
        input,
        output,
        ok,
        error: ok ? undefined : output,
        toolUseId: toolCall.toolCallId,
      }));
      // tool:after transforms the output; Cline stores what is returned here.
      const value = (outcome as { value?: unknown } | undefined)?.value;
      const answer: ClineHookResult = {
        ...(typeof value === 'string' && value !== output ? { result: { ...result, output: value } } : {}),
        ...(outcome?.context ? { appendContext: outcome.context } : {}),
      };
      return Object.keys(answer).length > 0 ? answer : undefined;
    }),

    afterRun: guarded('afterRun', async ({ snapshot }) => {
      // Cline's run has ended: a block cannot keep it going; a context waits for the next request.
      const session = sessionOf(snapshot);
      const outcome = await session.emitUnblockable('agent:stop', () => ({}), 'the agent to go on, which Cline does not allow', 'info');
      session.addContext(outcome?.context);
    }),

    onEvent: guarded('onEvent', async ({ type, snapshot, metadata = {} }) => {
      if (type !== 'status-notice' || !COMPACTION_REASONS.has(String(metadata['reason']))) return;
      const session = sessionOf(snapshot);
      const trigger = metadata['reason'] === 'manual_compaction' ? 'manual' : 'auto';
      // Cline's summarizer takes no instructions from a plugin and a compaction cannot be stopped:
      // compact:before observes; what compact:after hands back goes into every later request.
      const handling =
        metadata['phase'] === 'started'
          ? session.emitUnblockable('compact:before', () => ({ trigger }), 'to stop this compaction, which Cline does not allow')
          : metadata['phase'] === 'completed'
            ? session.compacted({
                trigger,
                tokensBefore: number(metadata['tokensBefore']),
                tokensAfter: number(metadata['tokensAfter']),
                contextTokens: number(metadata['tokensAfter']),
              })
            : undefined;
      session.data.compacting = handling;
      await handling;
      if (session.data.compacting === handling) session.data.compacting = undefined;
    }),
  };

  return {
    name: 'hookwise',
    manifest: { capabilities: ['hooks'] },
    hooks,
    async setup(_api, context) {
      try {
        projectDir ??= context?.workspaceInfo?.rootPath;
        sessionId ??= context?.session?.sessionId;
        await hostOf().engine();
      } catch {
        // The engine reports its own failures; a hook finds hookwise off then.
      }
    },
  };
}
