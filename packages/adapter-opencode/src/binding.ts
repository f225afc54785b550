import { createHost, deadlineSignal, errorMessage, type ProjectEngineSeams } from '@hookwise/core/host';
import { describeEdits, type Message } from '@hookwise/core/messages';
import type { Hooks, PluginInput } from '@opencode-ai/plugin';
import type { Event } from '@opencode-ai/sdk';
import { applyToOpenCodeMessages, contextTokensOf, createOpenCodeConversion, type OpenCodeMessage } from './messages.js';

/** The host name hookwise payloads and logs carry. */
export const HOST = 'opencode';

/** Options given in `opencode.json`: `"plugin": [["<spec>", { "configFile": "hookwise.config.json" }]]`. */
export interface HookwiseOpenCodeOptions {
  /** The hookwise config, relative to the project; default: core's lookup of `hookwise.config.*`. */
  configFile?: string;
  /** Show notices as TUI toasts (default true); they always go to OpenCode's log. */
  toasts?: boolean;
}

/** What the binding keeps of an OpenCode session besides the kit's bookkeeping. */
interface OpenCodeSession {
  /** `providerID/modelID` of the session's model. */
  modelKey?: string;
  /** From `command.execute.before`, for the `chat.message` of the same prompt (which sees only the expanded template). */
  pendingCommand?: { name: string; args: string };
  /** Set by messages.transform for the system.transform of the same request (a title request has none). */
  request?: { context?: string | undefined };
  /** Calls already reported to tool:after (a failed one is reported from its part event). */
  reportedCalls: Set<string>;
  /** The session's requests as core messages, reusing those a request shares with the previous one. */
  convert: (messages: readonly OpenCodeMessage[]) => Message[];
}

/** Calls OpenCode's client without waiting: a closed client or a missing TUI must not become a failure. */
function attempt(call: () => unknown): void {
  try {
    void Promise.resolve(call()).catch(() => undefined);
  } catch {
    // Best effort, as above.
  }
}

const stringOr = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/**
 * The OpenCode hooks for one project, on core's host kit (every hook fails open). Nothing loads
 * here (OpenCode also loads plugins for `opencode export`): the config comes with the first hook
 * call that needs it. Kilo, an OpenCode fork, runs this binding too (`hostName` "kilo").
 */
export function createHooks(
  input: Pick<PluginInput, 'client' | 'directory'>,
  options: HookwiseOpenCodeOptions = {},
  /** Core's config loading and engine; tests pass fakes. */
  dependencies: ProjectEngineSeams = {},
  hostName: string = HOST,
): Hooks {
  /** One line in OpenCode's own log (service `hookwise`); never stdout, which `opencode run` prints. */
  const writeLog = (level: 'error' | 'warn' | 'info' | 'debug', message: string) =>
    attempt(() => input.client.app.log({ body: { service: 'hookwise', level, message } }));
  /** A notice: always in the log, and as a TUI toast unless turned off. */
  const toast = (message: string, variant: 'info' | 'warning' = 'info') => {
    writeLog(variant === 'info' ? 'info' : 'warn', `notice: ${message}`);
    if (options.toasts !== false)
      attempt(() =>
        input.client.tui.showToast({ body: { title: 'hookwise', message, variant, duration: 8_000 }, signal: deadlineSignal(3_000) }),
      );
  };

  const host = createHost<OpenCodeSession>({
    host: hostName,
    projectDir: input.directory,
    log: (entry) => writeLog(entry.level, entry.text),
    // A toast has no buttons: an offer is shown as what to run.
    noticeWording: { compact: 'Type /compact to compact the context now.' },
    notify: (notice) => toast(notice.hostText),
    ...(options.configFile ? { configFile: options.configFile } : {}),
    ...dependencies,
    onError: (report) => {
      if (report.kind === 'config')
        toast(`the hookwise config could not be loaded; hookwise is off (see the log): ${errorMessage(report.error)}`, 'warning');
    },
    session: () => ({ reportedCalls: new Set(), convert: createOpenCodeConversion() }),
  });
  /** Context windows by `providerID/modelID`, from the model OpenCode hands to system.transform. */
  const windows = new Map<string, number>();

  const tracker = (sessionId: string) => {
    const session = host.session(sessionId);
    session.usage ??= () => ({ contextWindow: windows.get(session.data.modelKey ?? '') });
    return session;
  };
  const setModel = (sessionId: string, model: { providerID: string; modelID: string }) => {
    const session = tracker(sessionId);
    session.data.modelKey = `${model.providerID}/${model.modelID}`;
    session.fields.model = model.modelID;
  };
  /** Runs an OpenCode hook's body; whatever it throws is logged, never passed to OpenCode. */
  const guarded = (hook: string, body: () => Promise<void>): Promise<void> => host.guard(hook, undefined, body);
  const toolAfter = (sessionId: string, call: { tool: string; callID: string; input: unknown; output: string; error?: string }) => {
    const session = tracker(sessionId);
    session.data.reportedCalls.add(call.callID);
    const { tool: toolName, callID: toolUseId, input, output, error } = call;
    return session.emit('tool:after', () => ({ toolName, input, output, ok: error === undefined, error, toolUseId }));
  };

  async function onEvent(event: Event): Promise<void> {
    if (event.type === 'session.created') {
      const session = tracker(event.properties.info.id);
      session.addContext(await session.start('startup'));
    } else if (event.type === 'message.updated') {
      const info = event.properties.info;
      if (info.role === 'user') return setModel(info.sessionID, info.model);
      const tokens = info.time.completed === undefined ? undefined : contextTokensOf(info);
      if (tokens !== undefined) tracker(info.sessionID).fields.contextTokens = tokens;
    } else if (event.type === 'message.part.updated') {
      const part = event.properties.part;
      if (part.type === 'compaction') tracker(part.sessionID).compaction.trigger = part.auto ? 'auto' : 'manual';
      // tool.execute.after only runs for tools that succeeded; a failed call is reported from its part.
      else if (part.type === 'tool' && part.state.status === 'error' && !tracker(part.sessionID).data.reportedCalls.has(part.callID)) {
        const { input, error } = part.state;
        await toolAfter(part.sessionID, { tool: part.tool, callID: part.callID, input, output: error, error });
      }
    } else if (event.type === 'session.compacted') await tracker(event.properties.sessionID).compaction.end();
    else if (event.type === 'session.idle') {
      const session = tracker(event.properties.sessionID);
      // A compaction that failed never reports back; the next request must not wait for it.
      session.compaction.running = false;
      await session.emit('agent:stop');
    } else if (event.type === 'session.deleted') {
      await tracker(event.properties.info.id).end('deleted');
    }
  }

  return {
    // Optional chaining: the label is built outside the guard, and Kilo (this binding's other host) does not fail open.
    event: ({ event }) => guarded(`event ${event?.type}`, () => onEvent(event)),

    'command.execute.before': (commandInput) =>
      guarded('command.execute.before', async () => {
        tracker(commandInput.sessionID).data.pendingCommand = { name: commandInput.command, args: commandInput.arguments ?? '' };
      }),

    'chat.message': (messageInput, output) =>
      guarded('chat.message', async () => {
        const session = tracker(messageInput.sessionID);
        if (messageInput.model) setModel(messageInput.sessionID, messageInput.model);
        session.addContext(await session.start('resume'));
        const command = session.data.pendingCommand;
        session.data.pendingCommand = undefined;
        const prompt = output.parts
          .flatMap((part) => (part.type === 'text' && !part.synthetic && !part.ignored ? [part.text] : []))
          .join('\n');
        const outcome = await session.emit('prompt:submit', () => ({ prompt, command }));
        if (outcome?.block)
          toast(`a hook asked to stop this prompt, which OpenCode does not allow here: ${outcome.block.reason}`, 'warning');
        session.addContext(outcome?.context);
      }),

    'tool.execute.before': async (toolInput, output) => {
      const outcome = await host.guard('tool.execute.before', undefined, () =>
        tracker(toolInput.sessionID).emit('tool:before', () => ({
          toolName: toolInput.tool,
          input: output.args,
          toolUseId: toolInput.callID,
        })),
      );
      // A deliberate block by a hook (not a failure): OpenCode reports a thrown error as the tool's result.
      if (outcome?.block) throw new Error(`hookwise: ${outcome.block.reason}`);
    },

    'tool.execute.after': (toolInput, output) =>
      guarded('tool.execute.after', async () => {
        const session = tracker(toolInput.sessionID);
        const { tool, callID, args } = toolInput;
        const outcome = await toolAfter(toolInput.sessionID, { tool, callID, input: args, output: output.output });
        // tool:after transforms the output (hosts that can apply it do): OpenCode keeps what we write here.
        const value = (outcome as { value?: unknown } | undefined)?.value;
        if (typeof value === 'string') output.output = value;
        session.addContext(outcome?.context);
        if (tool !== 'task') return;
        // The task tool returns a sub-agent's result to its orchestrator: a phase ends.
        const task = (args ?? {}) as Record<string, unknown>;
        const handoff = await session.emit('phase:end', () => ({
          output: output.output,
          taskId: stringOr((output.metadata as { sessionId?: unknown } | undefined)?.sessionId),
          phase: stringOr(task['description']),
          agentType: stringOr(task['subagent_type']),
          request: stringOr(task['prompt']),
        }));
        if (typeof handoff?.value === 'string') output.output = handoff.value;
        session.addContext(handoff?.context);
      }),

    'experimental.chat.messages.transform': (_transformInput, output) =>
      guarded('experimental.chat.messages.transform', async () => {
        const messages = output.messages as OpenCodeMessage[];
        const sessionId = messages.at(-1)?.info.sessionID;
        if (sessionId === undefined) return;
        const session = tracker(sessionId);
        const request: { context?: string | undefined } = {};
        session.data.request = request;
        // Converted only when a hook listens; kept to apply the outcome against.
        let before: Message[] = [];
        const outcome = await session.emit('llm:before', () => ({ systemPrompt: '', messages: (before = session.data.convert(messages)) }));
        request.context = outcome?.context;
        if (outcome?.value === undefined) return;
        const applied = applyToOpenCodeMessages(messages, outcome.value, before);
        if (applied.partsIgnored > 0)
          host.logger.warn(`llm:before added ${applied.partsIgnored} part(s) OpenCode has no place for; they were left out`);
        // In place: OpenCode reads the same array back. The parts are copies, so its stored session keeps the originals.
        messages.splice(0, messages.length, ...applied.messages);
        host.logger.debug(`llm:before: ${describeEdits(applied)}`);
      }),

    'experimental.chat.system.transform': (systemInput, output) =>
      guarded('experimental.chat.system.transform', async () => {
        const model = systemInput.model as { id?: string; providerID?: string; limit?: { context?: number } } | undefined;
        const window = model?.limit?.context;
        if (model?.providerID && model.id && typeof window === 'number' && window > 0)
          windows.set(`${model.providerID}/${model.id}`, window);
        if (systemInput.sessionID === undefined) return;
        const session = tracker(systemInput.sessionID);
        const { request } = session.data;
        // Only requests that went through messages.transform are the conversation (a title request is not).
        if (!request) return;
        session.data.request = undefined;
        await session.compaction.settled();
        // The compaction request carries hookwise's block in its prompt (compact:before), not here.
        if (session.compaction.running) return;
        const texts = await session.requestTexts(request.context);
        if (texts.length > 0) output.system.push(texts.join('\n\n'));
      }),

    'experimental.session.compacting': (compactInput, output) =>
      guarded('experimental.session.compacting', async () => {
        const context = await tracker(compactInput.sessionID).compaction.begin('to stop this compaction, which OpenCode does not allow');
        // Appended to the compaction prompt: the summarizer reads it last.
        if (context) output.context.push(context);
      }),

    // compact:after runs once: from here (automatic compactions, awaited by OpenCode) or `session.compacted`.
    'experimental.compaction.autocontinue': (continueInput) =>
      guarded('experimental.compaction.autocontinue', () => tracker(continueInput.sessionID).compaction.end()),

    dispose: () => host.dispose(),
  };
}
