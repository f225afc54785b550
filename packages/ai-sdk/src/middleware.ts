import { parseSlashCommand, type Message } from '@hookwise/core/messages';
import { createBinding, type Binding, type HookwiseMiddlewareOptions } from './binding.js';
import { applyToPrompt, lastUserText, userMessageCount, withSystemText, type ConvertedPrompt, type PromptMessage } from './prompt.js';
import { contextTokensOf } from './usage.js';

/** What the middleware reads of a call's parameters; everything else passes through. */
export interface CallParams {
  prompt: readonly PromptMessage[];
  providerOptions?: unknown;
}

/** What the middleware reads of the model it wraps. */
export interface ModelInfo {
  modelId: string;
}

/** A tool as `generateText`'s `tools` take it; only `execute` is wrapped. */
export interface ToolLike {
  execute?: ((input: any, options: any) => unknown) | undefined;
}

/** What hookwise reads of a finished `generateText` / `streamText` / agent run. */
export interface FinishEvent {
  text?: string;
}

/** What the app's compaction gives back to hookwise (all optional). */
export interface CompactionReport {
  summary?: string;
  tokensAfter?: number;
}

export interface CompactOptions {
  trigger?: 'manual' | 'auto';
  /** The context before the compaction (default: the last call's usage). */
  tokensBefore?: number;
}

/** The helpers of one conversation: its tools, its `onFinish`, its compactions. */
export interface HookwiseSession {
  readonly sessionId: string;
  /** Pass to a call that should count for this conversation: `providerOptions: session.providerOptions`. */
  readonly providerOptions: { hookwise: { sessionId: string } };
  /** The tools with `execute` wrapped: `tool:before` may block a call, `tool:after` sees (and may replace) its output. */
  tools<T extends Record<string, ToolLike>>(tools: T): T;
  /** `onFinish` of `generateText`, `streamText` or an agent: the turn ended (`agent:stop`). */
  onFinish(event?: FinishEvent): Promise<void>;
  /**
   * A compaction the app performs: `compact:before` runs, `run` gets the text hooks want kept
   * (`instructions`: put it in the summarizer's prompt), then `compact:after`, whose context
   * goes into the system text of every later call. Returns what `run` returns.
   */
  compact<T extends CompactionReport | void>(
    run: (input: { instructions?: string }) => T | Promise<T>,
    options?: CompactOptions,
  ): Promise<T>;
  /** The conversation ended (`session:end`). */
  end(reason?: string): Promise<void>;
}

/**
 * A language model middleware for `wrapLanguageModel({ model, middleware })`, in ai 5, 6 and 7
 * (their middleware types differ only in a version field none reads at run time), plus the
 * helpers of its default conversation.
 */
export interface HookwiseMiddleware extends HookwiseSession {
  readonly specificationVersion: 'v3';
  transformParams<P extends CallParams>(options: { type: 'generate' | 'stream'; params: P; model: ModelInfo }): Promise<P>;
  wrapGenerate<R>(options: { doGenerate: () => PromiseLike<R>; params: CallParams; model: ModelInfo }): Promise<R>;
  wrapStream<R extends { stream: ReadableStream<any> }>(options: {
    doStream: () => PromiseLike<R>;
    params: CallParams;
    model: ModelInfo;
  }): Promise<R>;
  /** The helpers of another conversation served by the same middleware. */
  session(sessionId: string): HookwiseSession;
  /** Releases the engine (plugin resources, state locks). */
  dispose(): Promise<void>;
}

const isText = (text: unknown): text is string => typeof text === 'string' && text.trim() !== '';

/**
 * Whether the call asks Anthropic to clear tool results on its side (`@ai-sdk/anthropic`'s
 * `contextManagement` with a `clear_tool_uses_*` edit). Then hookwise leaves tool results to the
 * server: two clearings with different rules would each move the cached prefix.
 */
function serverClearsToolResults(params: CallParams): boolean {
  const edits = (params.providerOptions as { anthropic?: { contextManagement?: { edits?: unknown } } } | undefined)?.anthropic
    ?.contextManagement?.edits;
  return (
    Array.isArray(edits) &&
    edits.some(
      (edit) => typeof (edit as { type?: unknown })?.type === 'string' && (edit as { type: string }).type.startsWith('clear_tool_uses'),
    )
  );
}

function sessionIdOf(params: CallParams, fallback: string): string {
  const named = (params.providerOptions as { hookwise?: { sessionId?: unknown } } | undefined)?.hookwise?.sessionId;
  return typeof named === 'string' && named !== '' ? named : fallback;
}

async function transform<P extends CallParams>(binding: Binding, params: P, model: ModelInfo): Promise<P> {
  const sessionId = sessionIdOf(params, binding.defaultSessionId);
  const result = await binding.host.guard('llm:before', sessionId, async () => {
    if (!(await binding.host.engine())) return params;
    const prompt = params.prompt;
    const session = binding.session(sessionId);
    const data = session.data;
    session.fields.model = model.modelId;
    const users = userMessageCount(prompt);
    session.addContext(await session.start(users > 1 ? 'resume' : 'startup'));
    // A prompt ending with a user message the last call did not end with is a new turn (a retry
    // of the same call is not); the count tells two equal prompts apart.
    const prompted = lastUserText(prompt);
    if (prompted !== undefined && (users !== data.userMessages || prompted !== data.lastPrompt)) {
      data.lastPrompt = prompted;
      // An AI SDK app has no command registry of its own: a prompt typed as `/name args` is passed
      // as a command, and plugins act only on commands they find a file for.
      const command = parseSlashCommand(prompted);
      const submitted = await session.emitUnblockable(
        'prompt:submit',
        () => ({ prompt: prompted, command }),
        'to stop this prompt, which a model middleware cannot do',
      );
      session.addContext(submitted?.context);
    }
    data.userMessages = users;
    // Converted only when a hook listens; kept to apply the outcome against.
    let converted: ConvertedPrompt | undefined;
    const outcome = await session.emit('llm:before', () => {
      converted = data.convert(prompt);
      return { systemPrompt: converted.systemPrompt, messages: converted.messages };
    });
    let next: PromptMessage[] = prompt as PromptMessage[];
    if (outcome?.value !== undefined && converted) {
      const applied = applyToPrompt(prompt, converted, outcome.value as Message[], {
        toolResults: !serverClearsToolResults(params),
        memo: data.applied,
      });
      if (applied.outputsLeft > 0)
        binding.host.logger.debug(
          `llm:before: ${applied.outputsLeft} tool output(s) left to the provider's own clearing (contextManagement)`,
        );
      if (applied.editsIgnored > 0)
        binding.host.logger.warn(
          `llm:before asked for ${applied.editsIgnored} edit(s) a prompt cannot take (added or dropped messages); they were left out`,
        );
      binding.host.logger.debug(
        `llm:before: ${applied.outputsReplaced} tool output(s) and ${applied.inputsReplaced} tool input(s) replaced`,
      );
      next = applied.prompt;
    }
    const texts = await session.requestTexts(outcome?.context);
    if (texts.length > 0) next = withSystemText(next, texts.join('\n\n'));
    return next === prompt ? params : { ...params, prompt: next };
  });
  return result ?? params;
}

function observeUsage(binding: Binding, params: CallParams, usage: unknown, providerMetadata: unknown): void {
  const tokens = contextTokensOf(usage, providerMetadata);
  if (tokens !== undefined) binding.session(sessionIdOf(params, binding.defaultSessionId)).fields.contextTokens = tokens;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function wrapTools<T extends Record<string, ToolLike>>(binding: Binding, sessionId: string, tools: T): T {
  const wrapped: Record<string, ToolLike> = {};
  for (const [toolName, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (typeof execute !== 'function') {
      wrapped[toolName] = tool;
      continue;
    }
    wrapped[toolName] = {
      ...tool,
      execute: async (input: unknown, executeOptions: { toolCallId?: string } | undefined) => {
        const toolUseId = executeOptions?.toolCallId;
        const session = binding.session(sessionId);
        const common = () => ({ toolName, input, ...(toolUseId ? { toolUseId } : {}) });
        const before = await session.emit('tool:before', common);
        // A deliberate block: the SDK sends a thrown error to the model as the tool's result.
        if (before?.block) throw new Error(`hookwise: ${before.block.reason}`);
        const startedAt = Date.now();
        let output: unknown;
        try {
          output = await execute(input, executeOptions);
        } catch (error) {
          await session.emit('tool:after', () => ({
            ...common(),
            output: errorText(error),
            ok: false,
            error: errorText(error),
            durationMs: Date.now() - startedAt,
          }));
          throw error;
        }
        // A streaming tool (an async iterable) reaches the SDK as it is: its parts are the app's.
        if (output !== null && typeof output === 'object' && Symbol.asyncIterator in output) return output;
        const after = await session.emit('tool:after', () => ({ ...common(), output, ok: true, durationMs: Date.now() - startedAt }));
        session.addContext(after?.context);
        // A replaced output enters the history; a tool with its own `toModelOutput` keeps its output's type.
        if (after?.value !== undefined && (typeof output === 'string' || !('toModelOutput' in tool))) return after.value;
        return output;
      },
    };
  }
  return wrapped as T;
}

function sessionHelpers(binding: Binding, sessionId: string): HookwiseSession {
  return {
    sessionId,
    providerOptions: { hookwise: { sessionId } },
    tools: (tools) => wrapTools(binding, sessionId, tools),
    onFinish: async (event) => {
      const session = binding.session(sessionId);
      await session.guard('agent:stop', async () => {
        const lastMessage = typeof event?.text === 'string' && event.text !== '' ? event.text : undefined;
        const outcome = await session.emitUnblockable(
          'agent:stop',
          () => ({ lastMessage }),
          'the agent to go on, which onFinish cannot do',
        );
        session.addContext(outcome?.context);
      });
    },
    compact: async (run, compactOptions = {}) => {
      const trigger = compactOptions.trigger ?? 'manual';
      const session = binding.session(sessionId);
      const tokensBefore = compactOptions.tokensBefore ?? session.fields.contextTokens;
      const before = await session.emitUnblockable(
        'compact:before',
        () => ({ trigger, contextTokens: tokensBefore }),
        'to stop this compaction; the app decides, and compacts',
      );
      const report = await run(isText(before?.context) ? { instructions: before.context } : {});
      await session.guard('compact:after', async () => {
        const figures = (report ?? {}) as CompactionReport;
        const tokensAfter = typeof figures.tokensAfter === 'number' ? figures.tokensAfter : undefined;
        // The context measured before the compaction no longer describes the conversation.
        await session.compacted({
          trigger,
          tokensBefore,
          tokensAfter,
          contextTokens: tokensAfter,
          summary: typeof figures.summary === 'string' ? figures.summary : undefined,
        });
      });
      return report;
    },
    end: async (reason = 'ended') => {
      await binding.session(sessionId).emit('session:end', () => ({ reason }));
      binding.host.forget(sessionId);
    },
  };
}

/**
 * hookwise as an AI SDK language model middleware: `wrapLanguageModel({ model, middleware:
 * hookwiseMiddleware() })`. Before every model call (`generateText`, `streamText`, agents, every
 * step of a tool loop) `llm:before` runs on the prompt — hook-prune's placeholders and the system
 * text hooks add reach the provider only; the app's messages keep their originals. Per-call usage
 * is the context size later points carry. The config (or the inline plugins) loads on the first
 * call; every failure is reported and the call goes on unchanged.
 */
export function hookwiseMiddleware(options: HookwiseMiddlewareOptions = {}): HookwiseMiddleware {
  const binding = createBinding(options);
  const helpers = sessionHelpers(binding, binding.defaultSessionId);
  return {
    ...helpers,
    specificationVersion: 'v3',
    transformParams: ({ params, model }) => transform(binding, params, model),
    wrapGenerate: async ({ doGenerate, params }) => {
      const result = await doGenerate();
      const { usage, providerMetadata } = (result ?? {}) as { usage?: unknown; providerMetadata?: unknown };
      observeUsage(binding, params, usage, providerMetadata);
      return result;
    },
    wrapStream: async ({ doStream, params }) => {
      const result = await doStream();
      // The stream passes through unchanged; its `finish` part carries the call's usage.
      const observed = result.stream.pipeThrough(
        new TransformStream({
          transform(part: { type?: string; usage?: unknown; providerMetadata?: unknown }, controller) {
            if (part?.type === 'finish') observeUsage(binding, params, part.usage, part.providerMetadata);
            controller.enqueue(part);
          },
        }),
      );
      return { ...result, stream: observed };
    },
    session: (sessionId) => sessionHelpers(binding, sessionId),
    dispose: () => binding.host.dispose(),
  };
}
