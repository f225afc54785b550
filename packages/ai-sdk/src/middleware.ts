import { emitLlmBefore, runCompaction, runTool } from '@hookwise/core/host';
import { parseSlashCommand } from '@hookwise/core/messages';
import { createBinding, type Binding, type HookwiseMiddlewareOptions } from './binding.js';
import { lastUserText, systemPromptOf, withSystemText, type PromptMessage } from './prompt.js';
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
 * A language model middleware for `wrapLanguageModel` in ai 5, 6 and 7 (their types differ only in
 * a version field none reads at run time), plus the helpers of its default conversation.
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

/**
 * Whether Anthropic clears tool results on its side (`contextManagement` with a `clear_tool_uses_*`
 * edit): then hookwise leaves them, as two clearings would each move the cached prefix.
 */
function serverClearsToolResults(params: CallParams): boolean {
  const options = params.providerOptions as { anthropic?: { contextManagement?: { edits?: unknown } } } | undefined;
  const edits = options?.anthropic?.contextManagement?.edits;
  return Array.isArray(edits) && edits.some((edit) => String((edit as { type?: unknown } | null)?.type).startsWith('clear_tool_uses'));
}

function sessionIdOf(params: CallParams, fallback: string): string {
  const named = (params.providerOptions as { hookwise?: { sessionId?: unknown } } | undefined)?.hookwise?.sessionId;
  return typeof named === 'string' && named !== '' ? named : fallback;
}

async function transform<P extends CallParams>(binding: Binding, params: P, model: ModelInfo): Promise<P> {
  const sessionId = sessionIdOf(params, binding.defaultSessionId);
  const result = await binding.host.guard('llm:before', sessionId, async () => {
    if (!(await binding.host.engine())) return params;
    const { prompt } = params;
    const session = binding.host.session(sessionId);
    const data = session.data;
    session.fields.model = model.modelId;
    const users = prompt.filter((message) => message.role === 'user').length;
    session.addContext(await session.start(users > 1 ? 'resume' : 'startup'));
    // A prompt ending with a new user message is a new turn (a retry is not; the count tells two equal prompts apart).
    const prompted = lastUserText(prompt);
    if (prompted !== undefined && (users !== data.userMessages || prompted !== data.lastPrompt)) {
      data.lastPrompt = prompted;
      // No command registry here: `/name args` is passed as a command; plugins act on those they find a file for.
      const command = parseSlashCommand(prompted);
      const submitted = await session.emitUnblockable(
        'prompt:submit',
        () => ({ prompt: prompted, command }),
        'to stop this prompt, which a model middleware cannot do',
      );
      session.addContext(submitted?.context);
    }
    data.userMessages = users;
    const edited = await emitLlmBefore(
      session,
      data.conversion,
      { systemPrompt: systemPromptOf(prompt), messages: prompt },
      { toolResults: !serverClearsToolResults(params), logger: binding.host.logger },
    );
    let next = edited.messages;
    const texts = await session.requestTexts(edited.context);
    if (texts.length > 0) next = withSystemText(next, texts.join('\n\n'));
    return next === prompt ? params : { ...params, prompt: next };
  });
  return result ?? params;
}

function observeUsage(binding: Binding, params: CallParams, result: { usage?: unknown; providerMetadata?: unknown } | undefined): void {
  const tokens = contextTokensOf(result?.usage, result?.providerMetadata);
  if (tokens !== undefined) binding.host.session(sessionIdOf(params, binding.defaultSessionId)).fields.contextTokens = tokens;
}

const isStream = (output: unknown): boolean => output !== null && typeof output === 'object' && Symbol.asyncIterator in output;

function wrapTools<T extends Record<string, ToolLike>>(binding: Binding, sessionId: string, tools: T): T {
  const wrapped: Record<string, ToolLike> = {};
  for (const [toolName, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    wrapped[toolName] =
      typeof execute !== 'function'
        ? tool
        : {
            ...tool,
            execute: async (input: unknown, executeOptions: { toolCallId?: string } | undefined) => {
              const call = { toolName, input, toolUseId: executeOptions?.toolCallId || undefined };
              // A streaming tool (an async iterable) reaches the SDK as it is: its parts are the app's.
              const ran = await runTool(binding.host.session(sessionId), call, () => execute(input, executeOptions), isStream);
              // A deliberate block: the SDK sends a thrown error to the model as the tool's result.
              if ('blocked' in ran) throw new Error(`hookwise: ${ran.blocked}`);
              // A replaced output enters the history; a tool with its own `toModelOutput` keeps its output's type.
              const keepsType = typeof ran.output !== 'string' && 'toModelOutput' in tool;
              return ran.replaced === undefined || keepsType ? ran.output : ran.replaced;
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
      const session = binding.host.session(sessionId);
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
    compact: (run, { trigger = 'manual', tokensBefore } = {}) => {
      const session = binding.host.session(sessionId);
      const compaction = { trigger, tokensBefore: tokensBefore ?? session.fields.contextTokens };
      return runCompaction(session, compaction, (instructions) => run(instructions === undefined ? {} : { instructions }));
    },
    end: async (reason = 'ended') => {
      await binding.host.session(sessionId).end(reason);
    },
  };
}

/**
 * hookwise as an AI SDK language model middleware. Before every model call (every step of a tool
 * loop) `llm:before` runs on the prompt: what hooks change reaches the provider only, the app's
 * messages keep their originals. Each call's usage is the context size later points carry. The
 * config loads on the first call; every failure is reported and the call goes on unchanged.
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
      observeUsage(binding, params, result as { usage?: unknown; providerMetadata?: unknown } | undefined);
      return result;
    },
    wrapStream: async ({ doStream, params }) => {
      const result = await doStream();
      // The stream passes through unchanged; its `finish` part carries the call's usage.
      const observed = result.stream.pipeThrough(
        new TransformStream({
          transform(part: { type?: string; usage?: unknown; providerMetadata?: unknown }, controller) {
            if (part?.type === 'finish') observeUsage(binding, params, part);
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
