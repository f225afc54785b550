import type { MergedNotice } from '@hookwise/core';
import { createHost, deadlineSignal, errorMessage, type HostSession, type ProjectEngineSeams } from '@hookwise/core/host';
import { describeEdits, type Message } from '@hookwise/core/messages';
import type { Hooks, PluginInput } from '@opencode-ai/plugin';
import type { Event, Message as OpenCodeInfo, Part as OpenCodePart } from '@opencode-ai/sdk';
import { applyToOpenCodeMessages, contextTokensOf, createOpenCodeConversion, type OpenCodeMessage } from './messages.js';

/** The host name hookwise payloads and logs carry. */
export const HOST = 'opencode';
const SERVICE = 'hookwise';
const TOAST_TIMEOUT_MS = 3_000;

/** Options given in `opencode.json`: `"plugin": [["<spec>", { "configFile": "hookwise.config.json" }]]`. */
export interface HookwiseOpenCodeOptions {
  /** The hookwise config, relative to the project; default: core's lookup of `hookwise.config.*`. */
  configFile?: string;
  /** Show notices as TUI toasts (default true); they always go to OpenCode's log. */
  toasts?: boolean;
}

/** What the binding needs from the outside (core's config loading and engine); tests pass fakes. */
export type BindingDependencies = ProjectEngineSeams;

/** What the binding keeps of an OpenCode session besides the kit's bookkeeping. */
interface OpenCodeSession {
  /** `providerID/modelID` of the session's model. */
  modelKey?: string;
  /** Set by `command.execute.before`, consumed by the `chat.message` of the same prompt. */
  pendingCommand?: { name: string; args: string };
  /** `llm:before` context of the request being built (messages.transform → system.transform). */
  requestContext?: string;
  /** True between messages.transform and the system.transform of the same request (title requests have none). */
  awaitingSystem: boolean;
  compacting: boolean;
  compactTrigger?: 'manual' | 'auto';
  /** compact:after in flight: the next request waits for its context. */
  compactAfter?: Promise<void>;
  /** Calls already reported to tool:after (errors come from part events). */
  reportedCalls: Set<string>;
  /** The session's requests as core messages, reusing those a request shares with the previous one. */
  convert: (messages: readonly OpenCodeMessage[]) => Message[];
}

/**
 * A notice as one toast: its text, then what it offers. A toast has no buttons, so each action
 * is shown as what to run: a plugin command through the CLI, a compaction through OpenCode's
 * own `/compact`.
 */
function noticeText(notice: MergedNotice): string {
  const offers = notice.actions.map((action) =>
    'command' in action ? `${action.label}: hookwise ${[action.command, ...(action.args ?? [])].join(' ')}` : `${action.label}: /compact`,
  );
  return offers.length > 0 ? `${notice.text}\n${offers.join(' · ')}` : notice.text;
}

/**
 * Builds the OpenCode hooks for one project. Nothing is loaded here — OpenCode also loads plugins
 * for commands such as `opencode export`, so setup stays free of work and side effects; the
 * project's hookwise config and the engine are loaded on the first hook call that needs them.
 * Every hook fails open: when hookwise is not configured, its config is broken, or a hook throws
 * or runs late, OpenCode gets back what it passed in and the failure is logged. Kilo, an OpenCode
 * fork with the same hooks, runs this binding too (`hostName` "kilo", @hookwise/adapter-kilo).
 */
export function createHooks(
  input: Pick<PluginInput, 'client' | 'directory'>,
  options: HookwiseOpenCodeOptions = {},
  dependencies: BindingDependencies = {},
  hostName: string = HOST,
): Hooks {
  const directory = input.directory;
  const client = input.client;
  const showToasts = options.toasts !== false;

  /** One line in OpenCode's own log (service `hookwise`); never stdout, which `opencode run` prints. */
  const writeLog = (lineLevel: 'error' | 'warn' | 'info' | 'debug', message: string) => {
    try {
      void Promise.resolve(client.app.log({ body: { service: SERVICE, level: lineLevel, message } })).catch(() => undefined);
    } catch {
      // The log is best effort: a closed client must not turn logging into a failure.
    }
  };

  /** A notice: always in the log, and as a TUI toast unless turned off. */
  function toast(message: string, variant: 'info' | 'warning' | 'error' = 'info'): void {
    writeLog(variant === 'info' ? 'info' : 'warn', `notice: ${message}`);
    if (!showToasts) return;
    try {
      void Promise.resolve(
        client.tui.showToast({ body: { title: 'hookwise', message, variant, duration: 8_000 }, signal: deadlineSignal(TOAST_TIMEOUT_MS) }),
      ).catch(() => undefined);
    } catch {
      // No TUI (opencode run, a server without one): the log line above is what remains.
    }
  }

  // The engine is loaded on the first hook call that needs it; its config sets the log level and deadline.
  const host = createHost<OpenCodeSession>({
    host: hostName,
    projectDir: directory,
    log: (entry) => writeLog(entry.level, entry.text),
    notify: (notice) => toast(noticeText(notice)),
    ...(options.configFile ? { configFile: options.configFile } : {}),
    ...dependencies,
    onError: (report) => {
      if (report.kind === 'config')
        toast(`the hookwise config could not be loaded; hookwise is off (see the log): ${errorMessage(report.error)}`, 'warning');
    },
    session: () => ({ awaitingSystem: false, compacting: false, reportedCalls: new Set(), convert: createOpenCodeConversion() }),
  });
  const logger = host.logger;
  /** Context windows by `providerID/modelID`, from the model OpenCode hands to system.transform. */
  const windows = new Map<string, number>();

  const tracker = (sessionId: string): HostSession<OpenCodeSession> => {
    const session = host.session(sessionId);
    session.usage ??= () => ({ contextWindow: session.data.modelKey ? windows.get(session.data.modelKey) : undefined });
    return session;
  };
  const setModel = (sessionId: string, model: { providerID: string; modelID: string }) => {
    const session = tracker(sessionId);
    session.data.modelKey = `${model.providerID}/${model.modelID}`;
    session.fields.model = model.modelID;
  };

  /** Runs an OpenCode hook's body; whatever it throws is logged, never passed to OpenCode. */
  const guarded = (hook: string, body: () => Promise<void>): Promise<void> => host.guard(hook, undefined, body);

  async function ensureStarted(sessionId: string, source: 'startup' | 'resume'): Promise<void> {
    const session = tracker(sessionId);
    session.addContext(await session.start(source));
  }

  async function reportToolCall(
    sessionId: string,
    call: { tool: string; callID: string; input: unknown; output: string; ok: boolean; error?: string },
  ) {
    const session = tracker(sessionId);
    session.data.reportedCalls.add(call.callID);
    return session.emit('tool:after', () => ({
      toolName: call.tool,
      input: call.input,
      output: call.output,
      ok: call.ok,
      error: call.error,
      toolUseId: call.callID,
    }));
  }

  /**
   * compact:after, once per compaction: from `experimental.compaction.autocontinue` (awaited by
   * OpenCode before the next request, automatic compactions only) or the `session.compacted`
   * event (manual ones), whichever comes first.
   */
  function compactionDone(sessionId: string): Promise<void> {
    const session = tracker(sessionId);
    const data = session.data;
    if (!data.compacting) return data.compactAfter ?? Promise.resolve();
    data.compacting = false;
    const trigger = data.compactTrigger;
    data.compactTrigger = undefined;
    data.compactAfter = session.guard('compact:after', async () => {
      const outcome = await session.emit('compact:after', () => ({ trigger }));
      // The context measured before the compaction no longer describes the session.
      session.fields.contextTokens = undefined;
      if (outcome?.context) await session.keep({ afterCompaction: outcome.context });
    }) as Promise<void>;
    return data.compactAfter;
  }

  async function onEvent(event: Event): Promise<void> {
    switch (event.type) {
      case 'session.created':
        await ensureStarted(event.properties.info.id, 'startup');
        return;
      case 'message.updated': {
        const info: OpenCodeInfo = event.properties.info;
        if (info.role === 'user') return setModel(info.sessionID, info.model);
        if (info.time.completed === undefined) return;
        const tokens = contextTokensOf(info);
        if (tokens !== undefined) tracker(info.sessionID).fields.contextTokens = tokens;
        return;
      }
      case 'message.part.updated': {
        const part: OpenCodePart = event.properties.part;
        if (part.type === 'compaction') tracker(part.sessionID).data.compactTrigger = part.auto ? 'auto' : 'manual';
        // tool.execute.after only runs for tools that succeeded; a failed call is counted from its part.
        else if (part.type === 'tool' && part.state.status === 'error' && !tracker(part.sessionID).data.reportedCalls.has(part.callID)) {
          await reportToolCall(part.sessionID, {
            tool: part.tool,
            callID: part.callID,
            input: part.state.input,
            output: part.state.error,
            ok: false,
            error: part.state.error,
          });
        }
        return;
      }
      case 'session.compacted':
        await compactionDone(event.properties.sessionID);
        return;
      case 'session.idle': {
        const sessionId = event.properties.sessionID;
        // A compaction that failed never reports back; the next request must not wait for it.
        tracker(sessionId).data.compacting = false;
        await tracker(sessionId).emit('agent:stop');
        return;
      }
      case 'session.deleted': {
        const sessionId = event.properties.info.id;
        await tracker(sessionId).emit('session:end', () => ({ reason: 'deleted' }));
        host.forget(sessionId);
        return;
      }
      default:
        return;
    }
  }

  return {
    // Optional chaining: the label is built outside the guard, and Kilo (this binding's other host) does not fail open.
    event: ({ event }) => guarded(`event ${event?.type}`, () => onEvent(event)),

    'command.execute.before': (commandInput) =>
      guarded('command.execute.before', async () => {
        // chat.message only sees the expanded template; remember which command it came from.
        tracker(commandInput.sessionID).data.pendingCommand = { name: commandInput.command, args: commandInput.arguments ?? '' };
      }),

    'chat.message': (messageInput, output) =>
      guarded('chat.message', async () => {
        const sessionId = messageInput.sessionID;
        const session = tracker(sessionId);
        if (messageInput.model) setModel(sessionId, messageInput.model);
        await ensureStarted(sessionId, 'resume');
        const command = session.data.pendingCommand;
        session.data.pendingCommand = undefined;
        const prompt = output.parts
          .filter((part): part is Extract<OpenCodePart, { type: 'text' }> => part.type === 'text' && !part.synthetic && !part.ignored)
          .map((part) => part.text)
          .join('\n');
        const outcome = await session.emit('prompt:submit', () => ({ prompt, command }));
        if (outcome?.block)
          toast(`a hook asked to stop this prompt, which OpenCode does not allow here: ${outcome.block.reason}`, 'warning');
        session.addContext(outcome?.context);
      }),

    'tool.execute.before': async (toolInput, output) => {
      let reason: string | undefined;
      await guarded('tool.execute.before', async () => {
        const outcome = await tracker(toolInput.sessionID).emit('tool:before', () => ({
          toolName: toolInput.tool,
          input: output.args,
          toolUseId: toolInput.callID,
        }));
        reason = outcome?.block?.reason;
      });
      // A deliberate block by a hook (not a failure): OpenCode reports a thrown error as the tool's result.
      if (reason !== undefined) throw new Error(`hookwise: ${reason}`);
    },

    'tool.execute.after': (toolInput, output) =>
      guarded('tool.execute.after', async () => {
        const sessionId = toolInput.sessionID;
        const session = tracker(sessionId);
        const outcome = await reportToolCall(sessionId, {
          tool: toolInput.tool,
          callID: toolInput.callID,
          input: toolInput.args,
          output: output.output,
          ok: true,
        });
        // tool:after transforms the output (hosts that can apply it do): OpenCode keeps what we write here.
        const value = (outcome as { value?: unknown } | undefined)?.value;
        if (typeof value === 'string') output.output = value;
        session.addContext(outcome?.context);
        if (toolInput.tool === 'task') {
          // The task tool returns a sub-agent's result to its orchestrator: a phase ends.
          const args = (toolInput.args ?? {}) as { description?: unknown; prompt?: unknown; subagent_type?: unknown };
          const metadata = (output.metadata ?? {}) as { sessionId?: unknown };
          const handoff = await session.emit('phase:end', () => ({
            output: output.output,
            taskId: typeof metadata.sessionId === 'string' ? metadata.sessionId : undefined,
            phase: typeof args.description === 'string' ? args.description : undefined,
            agentType: typeof args.subagent_type === 'string' ? args.subagent_type : undefined,
            request: typeof args.prompt === 'string' ? args.prompt : undefined,
          }));
          if (typeof handoff?.value === 'string') output.output = handoff.value;
          session.addContext(handoff?.context);
        }
      }),

    'experimental.chat.messages.transform': (_transformInput, output) =>
      guarded('experimental.chat.messages.transform', async () => {
        const messages = output.messages as OpenCodeMessage[];
        const sessionId = messages[messages.length - 1]?.info.sessionID;
        if (sessionId === undefined) return;
        const session = tracker(sessionId);
        session.data.awaitingSystem = true;
        session.data.requestContext = undefined;
        // Converted only when a hook listens; kept to apply the outcome against.
        let before: Message[] = [];
        const outcome = await session.emit('llm:before', () => {
          before = session.data.convert(messages);
          return { systemPrompt: '', messages: before };
        });
        if (!outcome) return;
        if (outcome.context) session.data.requestContext = outcome.context;
        if (outcome.value === undefined) return;
        const applied = applyToOpenCodeMessages(messages, outcome.value, before);
        if (applied.partsIgnored > 0)
          logger.warn(`llm:before added ${applied.partsIgnored} part(s) OpenCode has no place for; they were left out`);
        // In place: OpenCode reads the same array back. The parts are copies, so its stored session keeps the originals.
        messages.splice(0, messages.length, ...applied.messages);
        logger.debug(`llm:before: ${describeEdits(applied)}`);
      }),

    'experimental.chat.system.transform': (systemInput, output) =>
      guarded('experimental.chat.system.transform', async () => {
        const model = systemInput.model as { id?: string; providerID?: string; limit?: { context?: number } } | undefined;
        if (model?.providerID && model.id && typeof model.limit?.context === 'number' && model.limit.context > 0)
          windows.set(`${model.providerID}/${model.id}`, model.limit.context);
        const sessionId = systemInput.sessionID;
        if (sessionId === undefined) return;
        const session = tracker(sessionId);
        const data = session.data;
        // Only requests that went through messages.transform are the conversation (a title request is not).
        if (!data.awaitingSystem) return;
        data.awaitingSystem = false;
        const requestContext = data.requestContext;
        data.requestContext = undefined;
        if (data.compactAfter) await host.within(data.compactAfter);
        // The compaction request carries hookwise's block in its prompt (data.compacting), not here.
        if (data.compacting) return;
        const texts = await session.requestTexts(requestContext);
        if (texts.length > 0) output.system.push(texts.join('\n\n'));
      }),

    'experimental.session.compacting': (compactInput, output) =>
      guarded('experimental.session.compacting', async () => {
        const sessionId = compactInput.sessionID;
        const session = tracker(sessionId);
        session.data.compacting = true;
        const outcome = await session.emitUnblockable(
          'compact:before',
          () => ({ trigger: session.data.compactTrigger ?? 'auto' }),
          'to stop this compaction, which OpenCode does not allow',
        );
        // Appended to the compaction prompt: the summarizer reads it last.
        if (outcome?.context) output.context.push(outcome.context);
      }),

    'experimental.compaction.autocontinue': (continueInput) =>
      guarded('experimental.compaction.autocontinue', () => compactionDone(continueInput.sessionID)),

    dispose: () => host.dispose(),
  };
}
