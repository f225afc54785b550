import { createHost, type Host, type HostSession, type ProjectEngineSeams } from '@hookwise/core/host';
import { parseSlashCommand, type Message } from '@hookwise/core/messages';
import { contentText, extendCompactionSummary, fromPiMessages, PiConversion } from './messages.js';
import type { PiContext, PiExtensionApi, PiMessage } from './pi-types.js';

/** The host name hookwise payloads and logs carry. */
export const HOST = 'pi';
/** The `customType` of the messages hookwise adds to a pi session, and its system prompt section. */
export const CUSTOM_TYPE = 'hookwise';
/** A notice's compact action in pi: its own command (never `ctx.compact()`, which aborts a running agent). */
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
  conversion: PiConversion;
}

type ToolEvent = { toolName?: unknown; toolCallId?: unknown; input?: unknown; content?: unknown; isError?: unknown };
type CompactEvent = { reason?: unknown; customInstructions?: unknown; preparation?: { tokensBefore?: unknown } };
const sourceOf = (reason: unknown): 'startup' | 'resume' | 'clear' =>
  reason === 'resume' || reason === 'reload' || reason === 'fork' ? 'resume' : reason === 'new' ? 'clear' : 'startup';
const callId = (id: unknown) => (typeof id === 'string' ? id : undefined);
const hidden = (content: string) => ({ message: { customType: CUSTOM_TYPE, content, display: false } });

/**
 * Registers hookwise's handlers on pi's events. Nothing is loaded here (pi loads extensions on
 * every start): the config and the engine load on the first event that needs them. Every handler
 * fails open: when hookwise is off or broken, or a hook throws or runs late, pi gets nothing back
 * and the failure is logged and written to the event log.
 */
export function registerHookwise(pi: PiExtensionApi, options: HookwisePiOptions = {}, dependencies: BindingDependencies = {}): void {
  const { writeLine = (line: string) => process.stderr.write(`${line}\n`), ...seams } = dependencies;
  /** The context of the latest event: where log lines and notices are shown. */
  let lastContext: PiContext | undefined;
  /** A line in pi's UI when it has one (warnings, errors and notices), else on stderr. */
  const show = (text: string, level: 'error' | 'warn' | 'info' | 'debug', notice = false) => {
    try {
      if (!lastContext?.hasUI) writeLine(notice ? `[hookwise] ${text}` : `[hookwise] ${level}: ${text}`);
      else if (notice || level === 'error' || level === 'warn')
        lastContext.ui.notify(`hookwise: ${text}`, level === 'warn' ? 'warning' : level === 'error' ? 'error' : 'info');
    } catch {
      // Best effort: a closed UI must not turn a log line into a failure.
    }
  };

  // pi runs one project per process, known from the first event; the engine loads on first use.
  let host: Host<PiSession> | undefined;
  const hostFor = (context: PiContext): Host<PiSession> =>
    (host ??= createHost<PiSession>({
      host: HOST,
      projectDir: context.cwd,
      log: (entry) => show(entry.text, entry.level),
      noticeWording: PI_WORDING,
      ...(options.notify !== false ? { notify: (notice) => show(notice.hostText, 'info', true) } : {}),
      // pi's print mode exits once its event loop is empty: kept alive until the deadline answers.
      keepAlive: true,
      ...(options.configFile ? { configFile: options.configFile } : {}),
      ...seams,
      session: () => ({ conversion: new PiConversion() }),
    }));

  /** The session of this event; its payloads carry pi's own figures (`getContextUsage()`). */
  const tracker = (context: PiContext): HostSession<PiSession> => {
    const session = hostFor(context).session(context.sessionManager.getSessionId());
    session.usage = () => {
      const usage = context.getContextUsage();
      return {
        transcriptPath: context.sessionManager.getSessionFile(),
        model: context.model?.id,
        contextTokens: typeof usage?.tokens === 'number' && usage.tokens >= 0 ? usage.tokens : undefined,
        contextWindow: typeof usage?.contextWindow === 'number' && usage.contextWindow > 0 ? usage.contextWindow : undefined,
      };
    };
    return session;
  };

  /** A handler whose failures are logged, never passed to pi (it gets undefined then). */
  const on = (event: string, body: (event: any, session: HostSession<PiSession>, context: PiContext) => Promise<unknown>) =>
    pi.on(event, (piEvent: unknown, context: PiContext) => {
      lastContext = context;
      return hostFor(context).guard(`pi ${event}`, undefined, () => body(piEvent, tracker(context), context));
    });

  /** Adds text as a hidden hookwise message (kept in the session, so the cached prefix stays). */
  const sendContext = (text: string | undefined, deliverAs: 'steer' | 'nextTurn') => {
    if (text?.trim()) pi.sendMessage?.(hidden(text).message, { deliverAs });
  };

  on('session_start', async (event: { reason?: unknown }, session) => {
    sendContext(await session.start(sourceOf(event.reason)), 'nextTurn');
  });

  // The raw input, before pi expands a prompt template: the only place the command's name is seen.
  on('input', async (event: { text?: unknown; source?: unknown }, session) => {
    if (event.source === 'extension' || typeof event.text !== 'string') return;
    session.pendingCommand = parseSlashCommand(event.text);
  });

  on('before_agent_start', async (event: { prompt?: unknown; messageType?: unknown }, session) => {
    const started = await session.start('resume');
    if (event.messageType === 'custom') return started ? hidden(started) : undefined;
    const command = session.takeCommand();
    const prompt = typeof event.prompt === 'string' ? event.prompt : '';
    const asked = 'to stop this prompt, which pi does not allow here';
    const outcome = await session.emitUnblockable('prompt:submit', () => ({ prompt, command }), asked);
    const added = [started, outcome?.context].filter((text): text is string => !!text?.trim());
    // A hidden message after the prompt: the system prompt and the history before it stay as cached.
    return added.length > 0 ? hidden(added.join('\n\n')) : undefined;
  });

  on('context', async (event: { messages?: unknown }, session, context) => {
    if (!Array.isArray(event.messages)) return undefined;
    const original = event.messages as PiMessage[];
    const kept = await session.restore();
    let converted: Message[] = [];
    // Converted only when a hook listens; the hooks' context goes to context_with_system.
    const outcome = await session.beforeRequest(() => ({
      systemPrompt: context.getSystemPrompt?.() ?? '',
      messages: (converted = session.data.conversion.convert(original)),
    }));
    let messages = original;
    if (outcome?.value !== undefined) {
      const applied = session.data.conversion.apply(original, converted, outcome.value);
      const logger = hostFor(context).logger;
      if (applied.editsIgnored > 0) logger.warn(`llm:before: ${applied.editsIgnored} edit(s) pi has no place for were left out`);
      logger.debug(`llm:before: ${applied.outputsReplaced} tool output(s), ${applied.inputsReplaced} tool input(s) replaced`);
      messages = applied.messages;
    }
    if (kept.summaryAddition) messages = extendCompactionSummary(messages, kept.summaryAddition) ?? messages;
    return messages === original ? undefined : { messages };
  });

  // What went back after the last compaction and the llm:before context, as a `hookwise` section of
  // pi's head system message: both change only with a compaction or the plugins' state, so the cache holds.
  on('context_with_system', async (event: { messages?: unknown }, session) => {
    const added = await session.requestTexts();
    const head = Array.isArray(event.messages) ? (event.messages[0] as PiMessage | undefined) : undefined;
    if (added.length === 0 || head?.role !== 'system') return undefined;
    const text = added.join('\n\n');
    const sections = head['sections'];
    const next =
      typeof sections === 'object' && sections !== null
        ? { ...head, sections: { ...sections, [CUSTOM_TYPE]: text } }
        : { ...head, content: `${typeof head.content === 'string' ? head.content : ''}\n\n<${CUSTOM_TYPE}>\n${text}\n</${CUSTOM_TYPE}>` };
    return { messages: [next, ...(event.messages as PiMessage[]).slice(1)] };
  });

  on('tool_call', async (event: ToolEvent, session) => {
    if (typeof event.toolName !== 'string') return undefined;
    const toolName = event.toolName;
    const outcome = await session.emit('tool:before', () => ({ toolName, input: event.input, toolUseId: callId(event.toolCallId) }));
    sendContext(outcome?.context, 'steer');
    // A deliberate block by a hook (not a failure): pi reports the reason as the tool's result.
    return outcome?.block ? { block: true, reason: `hookwise: ${outcome.block.reason}` } : undefined;
  });

  on('tool_result', async (event: ToolEvent, session) => {
    if (typeof event.toolName !== 'string') return undefined;
    const toolName = event.toolName;
    const output = contentText(event.content);
    const ok = event.isError !== true;
    const outcome = await session.emit('tool:after', () => ({
      toolName,
      input: event.input,
      output,
      ok,
      error: ok ? undefined : output,
      toolUseId: callId(event.toolCallId),
    }));
    sendContext(outcome?.context, 'steer');
    // tool:after transforms the output; pi persists what is returned here (hook-prune's arrival trim).
    const value = (outcome as { value?: unknown } | undefined)?.value;
    return typeof value === 'string' && value !== output ? { content: [{ type: 'text', text: value }] } : undefined;
  });

  on('session_before_compact', async (event: CompactEvent, session) => {
    const trigger = (session.compactTrigger = event.reason === 'manual' ? 'manual' : 'auto');
    const tokensBefore = event.preparation?.tokensBefore;
    const outcome = await session.emit('compact:before', () => ({
      trigger,
      instructions: typeof event.customInstructions === 'string' ? event.customInstructions : undefined,
      contextTokens: typeof tokensBefore === 'number' && tokensBefore >= 0 ? tokensBefore : session.common().contextTokens,
    }));
    if (outcome?.block) {
      host?.logger.warn(`a hook stopped this compaction: ${outcome.block.reason}`);
      return { cancel: true };
    }
    // pi 1.5.2 never reads customInstructions back from this event: the preserved block is added
    // to the summary pi writes, in every request after the compaction.
    await session.keep({ summaryAddition: outcome?.context });
  });

  on('session_compact', async (event: { compactionEntry?: { summary?: unknown; tokensBefore?: unknown } }, session, context) => {
    const entry = event.compactionEntry ?? {};
    // Right after a compaction pi knows no size yet: tokensAfter is the engine's count of what pi sends next.
    const projected = context.sessionManager.buildSessionProjection?.().messages;
    await session.compacted({
      contextTokens: undefined,
      trigger: session.compactTrigger ?? 'auto',
      tokensBefore: typeof entry.tokensBefore === 'number' ? entry.tokensBefore : undefined,
      tokensAfter: Array.isArray(projected) ? await hostFor(context).countTokens(fromPiMessages(projected)) : undefined,
      summary: typeof entry.summary === 'string' ? entry.summary : undefined,
    });
  });

  on('agent_settled', async (_event, session) => {
    // pi has no way to keep an agent going from here: a block is reported, a context waits for the next prompt.
    const asked = 'the agent to go on, which pi does not allow here';
    sendContext((await session.emitUnblockable('agent:stop', () => ({}), asked, 'info'))?.context, 'nextTurn');
  });

  on('session_shutdown', async (event: { reason?: unknown }, session) => {
    await session.end(typeof event.reason === 'string' ? event.reason : 'quit');
    if (event.reason === 'quit') await host?.dispose();
  });
}
