import type { Logger, MergedNotice, MergedOutcome, PointInput, PointName } from '@hookwise/core';
import {
  createLevelLogger,
  DEFAULT_HOOK_TIMEOUT_MS,
  definedFields,
  emitIfListening,
  errorMessage,
  failOpen,
  keepingAlive,
  lazyProjectEngine,
  noticeText,
  type Engine,
  type ProjectEngine,
  type ProjectEngineSeams,
} from '@hookwise/core/host';
import { estimateMessageTokens, parseSlashCommand, type Message } from '@hookwise/core/messages';
import { applyToPiMessages, extendCompactionSummary, fromPiMessages, pairingProblems, PiConversion } from './messages.js';
import type { PiContext, PiExtensionApi, PiMessage } from './pi-types.js';

/** The host name hookwise payloads and logs carry. */
export const HOST = 'pi';
/** The `customType` of the messages hookwise adds to a pi session, and its system prompt section. */
export const CUSTOM_TYPE = 'hookwise';
/** Where the binding keeps what must outlive the process (what goes back after a compaction). */
const STATE_NAMESPACE = 'hookwise-pi';
/** Extra time on top of the engine's per-hook deadline before a whole call is abandoned. */
const DEADLINE_MARGIN_MS = 1_000;
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

interface SessionTracker {
  started: boolean;
  /** The command the raw input named (`/review x`), for the prompt pi expands from it. */
  pendingCommand?: { name: string; args: string };
  /** What `compact:before` hooks preserved: added to the summary pi wrote, in every request after it. */
  summaryAddition?: string;
  /** What `compact:after` hooks handed back: in the system prompt until the next compaction. */
  afterCompaction?: string;
  stateLoaded: boolean;
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
  const logger: Logger = createLevelLogger(
    (entry) => writeLog(entry.level, entry.text),
    () => projectEngine?.logLevel ?? 'warn',
  );

  // --- the engine, loaded once on first use (pi runs one project per process) ------------------

  // Its `hookTimeoutMs` and `logLevel` are the config's once the config is loaded.
  let projectEngine: ProjectEngine | undefined;
  function engine(directory: string): Promise<Engine | undefined> {
    const { loadConfig, createEngine } = dependencies;
    projectEngine ??= lazyProjectEngine({
      projectDir: directory,
      host: HOST,
      logger,
      configFile: options.configFile,
      loadConfig,
      createEngine,
    });
    return projectEngine();
  }

  // --- per-session knowledge --------------------------------------------------------------------

  const sessions = new Map<string, SessionTracker>();
  const sessionIdOf = (context: PiContext): string => context.sessionManager.getSessionId();
  const tracker = (context: PiContext): SessionTracker => {
    const id = sessionIdOf(context);
    let existing = sessions.get(id);
    if (!existing) {
      existing = { started: false, stateLoaded: false, conversion: new PiConversion() };
      sessions.set(id, existing);
    }
    return existing;
  };

  /** Fields every payload carries; the context size is pi's own figure (`getContextUsage()`). */
  const common = (context: PiContext) => {
    const usage = context.getContextUsage();
    return definedFields({
      sessionId: sessionIdOf(context),
      cwd: context.cwd,
      transcriptPath: context.sessionManager.getSessionFile(),
      model: context.model?.id,
      contextTokens: typeof usage?.tokens === 'number' && usage.tokens >= 0 ? usage.tokens : undefined,
      contextWindow: typeof usage?.contextWindow === 'number' && usage.contextWindow > 0 ? usage.contextWindow : undefined,
    });
  };

  /** A notice: always in the event log, and shown the way pi shows an extension's messages. */
  async function showNotice(current: Engine, context: PiContext, point: PointName, notice: MergedNotice): Promise<void> {
    const text = noticeText({ text: notice.statement, actions: notice.actions }, PI_WORDING);
    await current.services.eventLog
      .append({
        type: 'notice',
        sessionId: sessionIdOf(context),
        host: HOST,
        point,
        pluginName: notice.pluginName,
        hookName: notice.hookName,
        about: notice.about,
        text,
      })
      .catch((error: unknown) => logger.debug(`could not write a notice to the event log: ${errorMessage(error)}`));
    if (!notifyUser) return;
    try {
      if (context.hasUI) context.ui.notify(`hookwise: ${text}`, 'info');
      else writeLine(`[hookwise] ${text}`);
    } catch (error) {
      logger.debug(`could not show a notice: ${errorMessage(error)}`);
    }
  }

  /**
   * Emits a point when a hook listens on it (session:start always). Never throws: a failure is
   * logged and gives undefined, and the whole point is bounded (the engine bounds each hook, the
   * signal the sum of several slow ones), so hookwise delays pi by at most one deadline.
   */
  async function emit<P extends PointName>(
    context: PiContext,
    point: P,
    payload: () => PointInput<P>,
  ): Promise<MergedOutcome<P> | undefined> {
    const current = await engine(context.cwd);
    if (!current) return undefined;
    // pi's print mode exits once its event loop is empty: kept alive until the deadline answers.
    const bound = (projectEngine?.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS) + DEADLINE_MARGIN_MS;
    const outcome = await keepingAlive(bound, () =>
      failOpen(point, () => emitIfListening(current, point, payload, { signal: AbortSignal.timeout(bound), label: `[${HOST}]` }), logger),
    );
    for (const notice of outcome?.notices ?? []) await showNotice(current, context, point, notice);
    return outcome;
  }

  /** Registers a handler whose failures are logged, never passed to pi; it gives pi undefined then. */
  const on = (event: string, body: (event: any, context: PiContext) => Promise<unknown>) =>
    pi.on(event, (piEvent: unknown, context: PiContext) => {
      lastContext = context;
      return failOpen(`pi ${event}`, () => body(piEvent, context), logger);
    });

  /** Adds text to the conversation as a hidden hookwise message (kept in the session, so the cached prefix stays). */
  function sendContext(text: string | undefined, deliverAs: 'steer' | 'nextTurn'): void {
    if (text === undefined || text.trim() === '' || !pi.sendMessage) return;
    pi.sendMessage({ customType: CUSTOM_TYPE, content: text, display: false }, { deliverAs });
  }

  async function ensureStarted(context: PiContext, source: 'startup' | 'resume' | 'clear'): Promise<string | undefined> {
    const session = tracker(context);
    if (session.started) return undefined;
    session.started = true;
    const outcome = await emit(context, 'session:start', () => ({ ...common(context), source }));
    return outcome?.context;
  }

  /** What went back after the last compaction, from memory or from the state store (a new process). */
  async function loadState(context: PiContext): Promise<SessionTracker> {
    const session = tracker(context);
    if (session.stateLoaded) return session;
    session.stateLoaded = true;
    const current = await engine(context.cwd);
    const stored = await current?.services.stateStore
      .read<{ summaryAddition?: unknown; afterCompaction?: unknown }>(sessionIdOf(context), STATE_NAMESPACE)
      .catch(() => undefined);
    if (typeof stored?.summaryAddition === 'string') session.summaryAddition ??= stored.summaryAddition;
    if (typeof stored?.afterCompaction === 'string') session.afterCompaction ??= stored.afterCompaction;
    return session;
  }

  async function storeState(context: PiContext, session: SessionTracker): Promise<void> {
    const current = await engine(context.cwd);
    await current?.services.stateStore
      .update(sessionIdOf(context), STATE_NAMESPACE, () =>
        definedFields({ summaryAddition: session.summaryAddition, afterCompaction: session.afterCompaction }),
      )
      .catch((error: unknown) => logger.warn(`could not keep the post-compaction context for later processes: ${errorMessage(error)}`));
  }

  // --- pi's events → lifecycle points -----------------------------------------------------------

  on('session_start', async (event: { reason?: unknown }, context) => {
    sendContext(await ensureStarted(context, sourceOf(event.reason)), 'nextTurn');
  });

  // The raw input, before pi expands a prompt template: the only place the command's name is seen.
  on('input', async (event: { text?: unknown; source?: unknown }, context) => {
    if (event.source === 'extension' || typeof event.text !== 'string') return undefined;
    const command = parseSlashCommand(event.text);
    tracker(context).pendingCommand = command ? { name: command.name, args: command.args } : undefined;
    return undefined;
  });

  on('before_agent_start', async (event: { prompt?: unknown; messageType?: unknown }, context) => {
    const session = tracker(context);
    const started = await ensureStarted(context, 'resume');
    if (event.messageType === 'custom')
      return started ? { message: { customType: CUSTOM_TYPE, content: started, display: false } } : undefined;
    const command = session.pendingCommand;
    session.pendingCommand = undefined;
    const prompt = typeof event.prompt === 'string' ? event.prompt : '';
    const outcome = await emit(context, 'prompt:submit', () => definedFields({ ...common(context), prompt, command }));
    if (outcome?.block) logger.warn(`a hook asked to stop this prompt, which pi does not allow here: ${outcome.block.reason}`);
    const added = texts(started, outcome?.context);
    // A hidden message after the prompt: the system prompt and the history before it stay as cached.
    return added.length > 0 ? { message: { customType: CUSTOM_TYPE, content: added.join('\n\n'), display: false } } : undefined;
  });

  on('context', async (event: { messages?: unknown }, context) => {
    if (!Array.isArray(event.messages)) return undefined;
    const original = event.messages as PiMessage[];
    const session = await loadState(context);
    session.requestContext = undefined;
    let messages: PiMessage[] = original;
    // Converted only when a hook listens.
    const outcome = await emit(context, 'llm:before', () => ({
      ...common(context),
      systemPrompt: context.getSystemPrompt?.() ?? '',
      messages: session.conversion.convert(original),
    }));
    session.requestContext = outcome?.context;
    if (outcome?.value !== undefined) {
      const applied = applyToPiMessages(original, outcome.value as Message[]);
      const problems = pairingProblems(applied.messages);
      if (problems.length > 0)
        logger.warn(`llm:before: an edit would break tool-call pairing (${problems[0]}); the request goes unchanged`);
      else {
        if (applied.messagesIgnored > 0)
          logger.warn(`llm:before added ${applied.messagesIgnored} message(s) pi has no place for; they were left out`);
        logger.debug(
          `llm:before: ${applied.outputsReplaced} tool output(s) replaced, ${applied.textsReplaced} text(s) replaced, ${applied.messagesDropped} message(s) left out`,
        );
        messages = applied.messages;
      }
    }
    if (session.summaryAddition) messages = extendCompactionSummary(messages, session.summaryAddition) ?? messages;
    return messages === original ? undefined : { messages };
  });

  // The system prompt of this request: what went back after the last compaction and the
  // llm:before context, as a `hookwise` section of pi's head system message. Both change only
  // when a compaction or the plugins' state does, so the prompt is the same from call to call.
  on('context_with_system', async (event: { messages?: unknown }, context) => {
    const session = tracker(context);
    const added = texts(session.afterCompaction, session.requestContext);
    session.requestContext = undefined;
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
    const outcome = await emit(context, 'tool:before', () =>
      definedFields({
        ...common(context),
        toolName: event.toolName as string,
        input: event.input,
        toolUseId: typeof event.toolCallId === 'string' ? event.toolCallId : undefined,
      }),
    );
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
      const outcome = await emit(context, 'tool:after', () =>
        definedFields({
          ...common(context),
          toolName: event.toolName as string,
          input: event.input,
          output,
          ok,
          error: ok ? undefined : output,
          toolUseId: typeof event.toolCallId === 'string' ? event.toolCallId : undefined,
        }),
      );
      sendContext(outcome?.context, 'steer');
      // tool:after transforms the output; pi persists what is returned here (hook-prune's arrival trim).
      const value = (outcome as { value?: unknown } | undefined)?.value;
      return typeof value === 'string' && value !== output ? { content: [{ type: 'text', text: value }] } : undefined;
    },
  );

  on(
    'session_before_compact',
    async (event: { reason?: unknown; customInstructions?: unknown; preparation?: { tokensBefore?: unknown } }, context) => {
      const session = await loadState(context);
      const trigger = event.reason === 'manual' ? 'manual' : 'auto';
      session.compactTrigger = trigger;
      const tokensBefore = event.preparation?.tokensBefore;
      const outcome = await emit(context, 'compact:before', () =>
        definedFields({
          ...common(context),
          trigger,
          instructions: typeof event.customInstructions === 'string' ? event.customInstructions : undefined,
          contextTokens: typeof tokensBefore === 'number' && tokensBefore >= 0 ? tokensBefore : common(context).contextTokens,
        }),
      );
      if (outcome?.block) {
        logger.warn(`a hook stopped this compaction: ${outcome.block.reason}`);
        return { cancel: true };
      }
      // pi 1.5.2 never reads customInstructions back from this event: the preserved block is added
      // to the summary pi writes, in every request after the compaction.
      session.summaryAddition = outcome?.context;
      return undefined;
    },
  );

  on('session_compact', async (event: { compactionEntry?: { summary?: unknown; tokensBefore?: unknown } }, context) => {
    const session = await loadState(context);
    const trigger = session.compactTrigger ?? 'auto';
    session.compactTrigger = undefined;
    const entry = event.compactionEntry ?? {};
    const current = await engine(context.cwd);
    const outcome = await emit(context, 'compact:after', () =>
      definedFields({
        ...common(context),
        // Right after a compaction pi knows no size yet (tokens is null): the payload says what hookwise estimates.
        contextTokens: undefined,
        trigger,
        tokensBefore: typeof entry.tokensBefore === 'number' ? entry.tokensBefore : undefined,
        tokensAfter: current ? estimateContext(context, current) : undefined,
        summary: typeof entry.summary === 'string' ? entry.summary : undefined,
      }),
    );
    session.afterCompaction = outcome?.context;
    await storeState(context, session);
  });

  on('session_compact_failed', async (_event, context) => {
    tracker(context).compactTrigger = undefined;
  });

  on('agent_settled', async (_event, context) => {
    const outcome = await emit(context, 'agent:stop', () => common(context));
    // pi has no way to keep an agent going from here: a block is reported, a context waits for the next prompt.
    if (outcome?.block) logger.info(`a hook asked the agent to go on, which pi does not allow here: ${outcome.block.reason}`);
    sendContext(outcome?.context, 'nextTurn');
  });

  on('session_shutdown', async (event: { reason?: unknown }, context) => {
    await emit(context, 'session:end', () => ({ ...common(context), reason: typeof event.reason === 'string' ? event.reason : 'quit' }));
    sessions.delete(sessionIdOf(context));
    if (event.reason === 'quit') await projectEngine?.dispose();
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
