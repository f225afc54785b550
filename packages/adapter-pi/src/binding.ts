import { createHost, type Engine, type Host, type HostSession, type ProjectEngineSeams } from '@hookwise/core/host';
import { describeEdits, estimateMessageTokens, parseSlashCommand, type Message } from '@hookwise/core/messages';
import { applyToPiMessages, extendCompactionSummary, fromPiMessages, pairingProblems, PiConversion } from './messages.js';
import type { PiContext, PiExtensionApi, PiMessage } from './pi-types.js';

/** The host name hookwise payloads and logs carry. */
export const HOST = 'pi';
/** The `customType` of the messages hookwise adds to a pi session, and its system prompt section. */
export const CUSTOM_TYPE = 'hookwise';
/** How the compact action of a notice reads in pi: its own command (never `ctx.compact()`, which aborts a running agent). */
const PI_WORDING = { compact: 'Type /compact to compact the context now.' };

/** Options of the extension (`createHookwiseExtension({ … })` in an extension file of your own). */
export interface HookwisePiOptions {
  /** The hookwise config, relative to the project; default: core's lookup of `hookwise.config.*`. */
  configFile?: string;
  /** Show notices with pi's `ctx.ui.notify` (default true; without a UI they go to stderr). They always go to the event log. */
  notify?: boolean;
}

/** What the binding needs from the outside; tests pass fakes, pi's process uses the real thing. */
export interface BindingDependencies extends ProjectEngineSeams {
  /** Where lines go when pi has no UI to show them (print and JSON modes); default stderr. */
  writeLine?: (line: string) => void;
}

/** What the binding keeps of a pi session besides the kit's bookkeeping. */
interface PiSession {
  /** The command the raw input named (`/review x`), for the prompt pi expands from it. */
  pendingCommand?: { name: string; args: string };
  /** The session's messages as core messages, the same objects from request to request where pi's are equal. */
  conversion: PiConversion;
  /** The llm:before context of the request being built (context → context_with_system). */
  requestContext?: string;
  compactTrigger?: 'manual' | 'auto';
}

const sourceOf = (reason: unknown): 'startup' | 'resume' | 'clear' =>
  reason === 'resume' || reason === 'reload' || reason === 'fork' ? 'resume' : reason === 'new' ? 'clear' : 'startup';
const texts = (...values: Array<string | undefined>): string[] =>
  values.filter((value): value is string => typeof value === 'string' && value.trim() !== '');

/** Text of a tool result's content blocks (what `tool:after` hooks see as the output). */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((block) =>
      typeof block === 'object' && block !== null && (block as { type?: unknown }).type === 'text'
        ? String((block as { text?: unknown }).text ?? '')
        : '',
    )
    .join('\n');
}

/**
 * Registers hookwise's handlers on pi's events. Nothing is loaded here — pi loads extensions for
 * every start — so the project's hookwise config and the engine are loaded on the first event
 * that needs them. Every handler fails open: when hookwise is not configured, its config is
 * broken, or a hook throws or runs late, pi gets nothing back (its own behaviour) and the
 * failure is logged and written to the event log.
 */
export function registerHookwise(pi: PiExtensionApi, options: HookwisePiOptions = {}, dependencies: BindingDependencies = {}): void {
  const writeLine = dependencies.writeLine ?? ((line: string) => process.stderr.write(`${line}\n`));
  const notifyUser = options.notify !== false;
  /** The context of the latest event: where log lines and notices are shown. */
  let lastContext: PiContext | undefined;

  /** A log line: shown in pi's UI when it has one (warnings and errors only), else on stderr. */
  const writeLog = (lineLevel: 'error' | 'warn' | 'info' | 'debug', message: string) => {
    try {
      const context = lastContext;
      if (context?.hasUI) {
        if (lineLevel === 'error' || lineLevel === 'warn')
          context.ui.notify(`hookwise: ${message}`, lineLevel === 'error' ? 'error' : 'warning');
      } else writeLine(`[hookwise] ${lineLevel}: ${message}`);
    } catch {
      // Logging is best effort: a closed UI must not turn a log line into a failure.
    }
  };

  // pi runs one project per process, known from the first event; the engine loads on first use.
  let host: Host<PiSession> | undefined;
  const hostFor = (context: PiContext): Host<PiSession> =>
    (host ??= createHost<PiSession>({
      host: HOST,
      projectDir: context.cwd,
      log: (entry) => writeLog(entry.level, entry.text),
      noticeWording: PI_WORDING,
      ...(notifyUser
        ? {
            notify: (notice) =>
              lastContext?.hasUI
                ? lastContext.ui.notify(`hookwise: ${notice.hostText}`, 'info')
                : writeLine(`[hookwise] ${notice.hostText}`),
          }
        : {}),
      // pi's print mode exits once its event loop is empty: kept alive until the deadline answers.
      keepAlive: true,
      ...(options.configFile ? { configFile: options.configFile } : {}),
      ...(dependencies.loadConfig ? { loadConfig: dependencies.loadConfig } : {}),
      ...(dependencies.createEngine ? { createEngine: dependencies.createEngine } : {}),
      session: () => ({ conversion: new PiConversion() }),
    }));
  const engine = (context: PiContext): Promise<Engine | undefined> => hostFor(context).engine();
  const logger = {
    warn: (message: string) => host?.logger.warn(message),
    debug: (message: string) => host?.logger.debug(message),
  };

  /** The session of this event; its payloads carry pi's own figures (`getContextUsage()`). */
  const tracker = (context: PiContext): HostSession<PiSession> => {
    const session = hostFor(context).session(context.sessionManager.getSessionId());
    session.usage = () => {
      const usage = context.getContextUsage();
      return {
        cwd: context.cwd,
        transcriptPath: context.sessionManager.getSessionFile(),
        model: context.model?.id,
        contextTokens: typeof usage?.tokens === 'number' && usage.tokens >= 0 ? usage.tokens : undefined,
        contextWindow: typeof usage?.contextWindow === 'number' && usage.contextWindow > 0 ? usage.contextWindow : undefined,
      };
    };
    return session;
  };

  /** Registers a handler whose failures are logged, never passed to pi; it gives pi undefined then. */
  const on = (event: string, body: (event: any, context: PiContext) => Promise<unknown>) =>
    pi.on(event, (piEvent: unknown, context: PiContext) => {
      lastContext = context;
      return hostFor(context).guard(`pi ${event}`, undefined, () => body(piEvent, context));
    });

  /** Adds text to the conversation as a hidden hookwise message (kept in the session, so the cached prefix stays). */
  function sendContext(text: string | undefined, deliverAs: 'steer' | 'nextTurn'): void {
    if (text === undefined || text.trim() === '' || !pi.sendMessage) return;
    pi.sendMessage({ customType: CUSTOM_TYPE, content: text, display: false }, { deliverAs });
  }

  // --- pi's events → lifecycle points -----------------------------------------------------------

  on('session_start', async (event: { reason?: unknown }, context) => {
    sendContext(await tracker(context).start(sourceOf(event.reason)), 'nextTurn');
  });

  // The raw input, before pi expands a prompt template: the only place the command's name is seen.
  on('input', async (event: { text?: unknown; source?: unknown }, context) => {
    if (event.source === 'extension' || typeof event.text !== 'string') return undefined;
    const command = parseSlashCommand(event.text);
    tracker(context).data.pendingCommand = command ? { name: command.name, args: command.args } : undefined;
    return undefined;
  });

  on('before_agent_start', async (event: { prompt?: unknown; messageType?: unknown }, context) => {
    const session = tracker(context);
    const started = await session.start('resume');
    if (event.messageType === 'custom')
      return started ? { message: { customType: CUSTOM_TYPE, content: started, display: false } } : undefined;
    const command = session.data.pendingCommand;
    session.data.pendingCommand = undefined;
    const prompt = typeof event.prompt === 'string' ? event.prompt : '';
    const outcome = await session.emitUnblockable(
      'prompt:submit',
      () => ({ prompt, command }),
      'to stop this prompt, which pi does not allow here',
    );
    const added = texts(started, outcome?.context);
    // A hidden message after the prompt: the system prompt and the history before it stay as cached.
    return added.length > 0 ? { message: { customType: CUSTOM_TYPE, content: added.join('\n\n'), display: false } } : undefined;
  });

  on('context', async (event: { messages?: unknown }, context) => {
    if (!Array.isArray(event.messages)) return undefined;
    const original = event.messages as PiMessage[];
    const session = tracker(context);
    const kept = await session.restore();
    session.data.requestContext = undefined;
    let messages: PiMessage[] = original;
    // Converted only when a hook listens.
    const outcome = await session.emit('llm:before', () => ({
      systemPrompt: context.getSystemPrompt?.() ?? '',
      messages: session.data.conversion.convert(original),
    }));
    session.data.requestContext = outcome?.context;
    if (outcome?.value !== undefined) {
      const applied = applyToPiMessages(original, outcome.value as Message[]);
      const problems = pairingProblems(applied.messages);
      if (problems.length > 0)
        logger.warn(`llm:before: an edit would break tool-call pairing (${problems[0]}); the request goes unchanged`);
      else {
        if (applied.messagesIgnored > 0)
          logger.warn(`llm:before added ${applied.messagesIgnored} message(s) pi has no place for; they were left out`);
        logger.debug(`llm:before: ${describeEdits(applied)}`);
        messages = applied.messages;
      }
    }
    if (kept.summaryAddition) messages = extendCompactionSummary(messages, kept.summaryAddition) ?? messages;
    return messages === original ? undefined : { messages };
  });

  // The system prompt of this request: what went back after the last compaction and the
  // llm:before context, as a `hookwise` section of pi's head system message. Both change only
  // when a compaction or the plugins' state does, so the prompt is the same from call to call.
  on('context_with_system', async (event: { messages?: unknown }, context) => {
    const session = tracker(context);
    const added = await session.requestTexts(session.data.requestContext);
    session.data.requestContext = undefined;
    if (added.length === 0 || !Array.isArray(event.messages)) return undefined;
    const messages = event.messages as PiMessage[];
    const head = messages[0];
    if (head?.role !== 'system') return undefined;
    const text = added.join('\n\n');
    const sections = head['sections'];
    const next =
      typeof sections === 'object' && sections !== null
        ? { ...head, sections: { ...(sections as Record<string, unknown>), [CUSTOM_TYPE]: text } }
        : { ...head, content: `${typeof head.content === 'string' ? head.content : ''}\n\n<${CUSTOM_TYPE}>\n${text}\n</${CUSTOM_TYPE}>` };
    return { messages: [next, ...messages.slice(1)] };
  });

  on('tool_call', async (event: { toolName?: unknown; toolCallId?: unknown; input?: unknown }, context) => {
    if (typeof event.toolName !== 'string') return undefined;
    const outcome = await tracker(context).emit('tool:before', () => ({
      toolName: event.toolName as string,
      input: event.input,
      toolUseId: typeof event.toolCallId === 'string' ? event.toolCallId : undefined,
    }));
    sendContext(outcome?.context, 'steer');
    // A deliberate block by a hook (not a failure): pi reports the reason as the tool's result.
    return outcome?.block ? { block: true, reason: `hookwise: ${outcome.block.reason}` } : undefined;
  });

  on(
    'tool_result',
    async (event: { toolName?: unknown; toolCallId?: unknown; input?: unknown; content?: unknown; isError?: unknown }, context) => {
      if (typeof event.toolName !== 'string') return undefined;
      const output = contentText(event.content);
      const ok = event.isError !== true;
      const outcome = await tracker(context).emit('tool:after', () => ({
        toolName: event.toolName as string,
        input: event.input,
        output,
        ok,
        error: ok ? undefined : output,
        toolUseId: typeof event.toolCallId === 'string' ? event.toolCallId : undefined,
      }));
      sendContext(outcome?.context, 'steer');
      // tool:after transforms the output; pi persists what is returned here (hook-prune's arrival trim).
      const value = (outcome as { value?: unknown } | undefined)?.value;
      return typeof value === 'string' && value !== output ? { content: [{ type: 'text', text: value }] } : undefined;
    },
  );

  on(
    'session_before_compact',
    async (event: { reason?: unknown; customInstructions?: unknown; preparation?: { tokensBefore?: unknown } }, context) => {
      const session = tracker(context);
      const trigger = event.reason === 'manual' ? 'manual' : 'auto';
      session.data.compactTrigger = trigger;
      const tokensBefore = event.preparation?.tokensBefore;
      const outcome = await session.emit('compact:before', () => ({
        trigger,
        instructions: typeof event.customInstructions === 'string' ? event.customInstructions : undefined,
        contextTokens: typeof tokensBefore === 'number' && tokensBefore >= 0 ? tokensBefore : session.common().contextTokens,
      }));
      if (outcome?.block) {
        logger.warn(`a hook stopped this compaction: ${outcome.block.reason}`);
        return { cancel: true };
      }
      // pi 1.5.2 never reads customInstructions back from this event: the preserved block is added
      // to the summary pi writes, in every request after the compaction.
      await session.keep({ summaryAddition: outcome?.context });
      return undefined;
    },
  );

  on('session_compact', async (event: { compactionEntry?: { summary?: unknown; tokensBefore?: unknown } }, context) => {
    const session = tracker(context);
    const trigger = session.data.compactTrigger ?? 'auto';
    session.data.compactTrigger = undefined;
    const entry = event.compactionEntry ?? {};
    const current = await engine(context);
    await session.compacted({
      // Right after a compaction pi knows no size yet (tokens is null): the payload says what hookwise estimates.
      contextTokens: undefined,
      trigger,
      tokensBefore: typeof entry.tokensBefore === 'number' ? entry.tokensBefore : undefined,
      tokensAfter: current ? estimateContext(context, current) : undefined,
      summary: typeof entry.summary === 'string' ? entry.summary : undefined,
    });
  });

  on('session_compact_failed', async (_event, context) => {
    tracker(context).data.compactTrigger = undefined;
  });

  on('agent_settled', async (_event, context) => {
    // pi has no way to keep an agent going from here: a block is reported, a context waits for the next prompt.
    const outcome = await tracker(context).emitUnblockable(
      'agent:stop',
      () => ({}),
      'the agent to go on, which pi does not allow here',
      'info',
    );
    sendContext(outcome?.context, 'nextTurn');
  });

  on('session_shutdown', async (event: { reason?: unknown }, context) => {
    await tracker(context).emit('session:end', () => ({ reason: typeof event.reason === 'string' ? event.reason : 'quit' }));
    hostFor(context).forget(context.sessionManager.getSessionId());
    if (event.reason === 'quit') await host?.dispose();
  });
}

/** The context after a compaction, counted the engine's way over what pi will send next. */
function estimateContext(context: PiContext, current: Engine): number | undefined {
  const projection = context.sessionManager.buildSessionProjection?.();
  if (!projection || !Array.isArray(projection.messages)) return undefined;
  const count = (text: string) => current.services.tokenCounter.count(text);
  let total = 0;
  for (const message of fromPiMessages(projection.messages)) total += estimateMessageTokens(message, count);
  return total;
}
