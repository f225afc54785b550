import type { Logger, MergedOutcome, PointInput, PointName, PointPayload } from '@hookwise/core';
import { definedFields, emitIfListening, failOpen, silentLogger, type EmitOptions, type Engine } from '@hookwise/core/host';
import { fromAnthropicMessages, toAnthropicMessages } from '@hookwise/core/messages';

/**
 * A message as Roo Code and Cline keep their API history: the Anthropic Messages format
 * (`Anthropic.MessageParam` of @anthropic-ai/sdk is assignable to it).
 */
export interface AnthropicMessageLike {
  role: 'user' | 'assistant';
  content: string | ReadonlyArray<object>;
}

// The call types below take their fields from core's point table (`PointPayload`), so a field a
// point gains or changes reaches the binding's types without a second hand-written copy.

/**
 * Fields every task call may carry besides the task id (the points' common fields): `model`,
 * `cwd`, `contextTokens` (Roo and Cline know it), `contextWindow`, `transcriptPath`.
 */
export interface TaskCallBase
  extends Pick<PointPayload<'session:start'>, 'model' | 'cwd' | 'contextTokens' | 'contextWindow' | 'transcriptPath'> {
  /** The task's id; hookwise uses it as the session id, so state is kept per task. */
  taskId: string;
}

export interface ModelRequest<M extends AnthropicMessageLike = AnthropicMessageLike>
  extends TaskCallBase,
    Pick<PointPayload<'llm:before'>, 'intentId' | 'systemPrompt'> {
  /** The task's history in Anthropic form (converted to core's messages for `llm:before`). */
  messages: readonly M[];
}

export interface ModelRequestResult<M extends AnthropicMessageLike = AnthropicMessageLike> {
  /** What to send: `summary + "\n\n" + systemPrompt` when hooks gave a summary, else the original. */
  systemPrompt: string;
  /** What to send: the pruned history when a hook changed it, else the very array passed in. */
  messages: readonly M[];
  /** The text hooks asked to prepend, if any. */
  summary: string | undefined;
  /** The prompt as the task built it: keep counting context with this one (the summary is not history). */
  originalSystemPrompt: string;
  changed: { systemPrompt: boolean; messages: boolean };
}

export interface GuardResult {
  /** Set when a hook stops the action (the first block wins). */
  block?: { reason: string } | undefined;
  /** Text for the model. */
  context?: string | undefined;
  /** Text for the user. */
  notice?: string | undefined;
}

export interface TaskStart extends TaskCallBase {
  /** Default `startup`. */
  source?: PointPayload<'session:start'>['source'];
}
export interface UserMessage extends TaskCallBase, Pick<PointPayload<'prompt:submit'>, 'prompt' | 'command'> {}
export interface ToolUse extends TaskCallBase, Pick<PointPayload<'tool:before'>, 'toolName' | 'input' | 'toolUseId'> {}
export interface ToolResult extends ToolUse, Pick<PointPayload<'tool:after'>, 'output' | 'ok' | 'error' | 'durationMs'> {}
export interface SubtaskCompletion extends TaskCallBase, Pick<PointPayload<'phase:end'>, 'output' | 'phase' | 'agentType' | 'request'> {
  /** The sub-task's id (the point's `taskId`; `taskId` here is the parent's). */
  childTaskId?: PointPayload<'phase:end'>['taskId'];
}
export interface SubtaskResult {
  /** The output to hand to the parent: the hooks' hand-off summary, or the original. */
  output: string;
  changed: boolean;
  context?: string | undefined;
}
export interface CondenseStart extends TaskCallBase, Pick<PointPayload<'compact:before'>, 'trigger' | 'instructions'> {}
export interface CondenseStartResult extends GuardResult {
  /** Labels of what the hooks made survive (e.g. `/babysit`). */
  preserved: string[];
}
export interface CondenseEnd
  extends TaskCallBase,
    Pick<PointPayload<'compact:after'>, 'trigger' | 'tokensBefore' | 'tokensAfter' | 'summary'> {}
export interface TurnEnd extends TaskCallBase, Pick<PointPayload<'agent:stop'>, 'lastMessage'> {}
export interface TaskEnd extends TaskCallBase {
  /** Default `task ended`. */
  reason?: PointPayload<'session:end'>['reason'] | undefined;
}

/** What happened at one call, for status bars and notifications. */
export interface TaskBindingEvent {
  point: PointName;
  taskId: string;
  /** The merged outcome, when hooks ran. */
  outcome: MergedOutcome | undefined;
  contextTokens?: number | undefined;
  contextWindow?: number | undefined;
  toolName?: string | undefined;
}

export interface TaskBindingOptions {
  /**
   * The engine of the task's workspace, or a function giving it at each call. Undefined means
   * hookwise is not configured there: every call passes through and calls nothing.
   */
  engine: Engine | undefined | (() => Engine | undefined);
  /** Where the binding reports failures; defaults to the engine's logger. */
  logger?: Logger;
  /** Told about every call (errors in it are logged, never thrown). */
  onEvent?: (event: TaskBindingEvent) => void;
}

/** What an extension's task loop calls at its lifecycle points. No call ever throws. */
export interface TaskBinding {
  /** True when hookwise is configured for this binding right now. */
  readonly enabled: boolean;
  taskStarted(input: TaskStart): Promise<{ context?: string | undefined }>;
  userMessage(input: UserMessage): Promise<GuardResult>;
  /** Before every model request (Roo's `attemptApiRequest`, before `createMessage`). */
  beforeModelRequest<M extends AnthropicMessageLike>(request: ModelRequest<M>): Promise<ModelRequestResult<M>>;
  beforeToolUse(input: ToolUse): Promise<GuardResult>;
  afterToolUse(input: ToolResult): Promise<GuardResult>;
  subtaskCompleted(input: SubtaskCompletion): Promise<SubtaskResult>;
  beforeCondense(input: CondenseStart): Promise<CondenseStartResult>;
  afterCondense(input: CondenseEnd): Promise<{ context?: string | undefined }>;
  turnEnded(input: TurnEnd): Promise<GuardResult>;
  taskEnded(input: TaskEnd): Promise<void>;
}

const SYSTEM_PROMPT_SEPARATOR = '\n\n';

function commonFields(input: TaskCallBase) {
  return definedFields({
    sessionId: input.taskId,
    model: input.model,
    cwd: input.cwd,
    contextTokens: input.contextTokens,
    contextWindow: input.contextWindow,
    transcriptPath: input.transcriptPath,
  });
}

/** Text of a `system` the hooks put into the messages (rare): it joins the summary rather than being lost. */
function systemText(system: string | ReadonlyArray<{ text?: unknown }> | undefined): string | undefined {
  if (system === undefined) return undefined;
  const text = typeof system === 'string' ? system : system.map((block) => (typeof block.text === 'string' ? block.text : '')).join('\n');
  return text.trim() === '' ? undefined : text;
}

/**
 * Binds hookwise to a task loop. Every call fails open: when hookwise is not configured, no
 * hook listens, the engine fails or a hook throws, the task gets back what it passed in and the
 * failure is logged with the task id (and intent id on model requests).
 */
export function createTaskBinding(options: TaskBindingOptions): TaskBinding {
  const resolveEngine = (): Engine | undefined =>
    failOpen(
      'hookwise: getting the engine',
      () => (typeof options.engine === 'function' ? options.engine() : options.engine),
      options.logger ?? silentLogger,
    );
  const loggerOf = (engine: Engine | undefined): Logger => options.logger ?? engine?.services.logger ?? silentLogger;

  const tell = (event: TaskBindingEvent, engine: Engine | undefined) => {
    const listener = options.onEvent;
    if (listener) failOpen(`[Task#${event.taskId}] hookwise event listener`, () => listener(event), loggerOf(engine));
  };

  /**
   * How this call is named in failure lines, the engine's (each hook) and the binding's (the
   * point): the task id, and the intent on model requests.
   */
  const callName = (point: PointName, taskId: string, intentId: string | undefined): Required<Pick<EmitOptions, 'label' | 'details'>> => ({
    label: point === 'llm:before' ? `[Task#${taskId}, intent ${intentId ?? '(none)'}]` : `[Task#${taskId}]`,
    details: { taskId, ...(point === 'llm:before' ? { intentId: intentId ?? null } : {}) },
  });

  /**
   * Emits `point` when a hook listens on it (`session:start` always: the engine records it as the
   * last session, which plugin commands default to). Returns undefined when nothing ran,
   * including when the engine itself failed (logged with the stack).
   */
  async function run<P extends PointName>(
    point: P,
    input: TaskCallBase & { intentId?: string | undefined; toolName?: string | undefined },
    payload: () => PointInput<P>,
    engine = resolveEngine(),
  ): Promise<MergedOutcome<P> | undefined> {
    if (!engine) return undefined;
    const name = callName(point, input.taskId, input.intentId);
    // The engine logs each hook's failure itself, once, with this label; here only its own failure.
    const outcome = await failOpen(
      `${name.label} ${point}`,
      () => emitIfListening(engine, point, payload, name),
      loggerOf(engine),
      name.details,
    );
    tell(
      definedFields({
        point,
        taskId: input.taskId,
        outcome: outcome as MergedOutcome | undefined,
        contextTokens: input.contextTokens,
        contextWindow: input.contextWindow,
        toolName: input.toolName,
      }) as TaskBindingEvent,
      engine,
    );
    return outcome;
  }

  const guardResult = (outcome: MergedOutcome | undefined): GuardResult =>
    definedFields({
      block: outcome?.block ? { reason: outcome.block.reason } : undefined,
      context: outcome?.context,
      notice: outcome?.notice,
    });

  async function beforeModelRequest<M extends AnthropicMessageLike>(request: ModelRequest<M>): Promise<ModelRequestResult<M>> {
    const original: ModelRequestResult<M> = {
      systemPrompt: request.systemPrompt,
      messages: request.messages,
      summary: undefined,
      originalSystemPrompt: request.systemPrompt,
      changed: { systemPrompt: false, messages: false },
    };
    const intentId = typeof request.intentId === 'string' && request.intentId !== '' ? request.intentId : undefined;
    const engine = resolveEngine();
    if (!engine) return original;
    // Point 6 and cost: no listener means no conversion and no call at all.
    const outcome = await run(
      'llm:before',
      { ...request, intentId },
      () => ({
        ...commonFields(request),
        systemPrompt: request.systemPrompt,
        messages: fromAnthropicMessages(request.messages as unknown as Parameters<typeof fromAnthropicMessages>[0]),
        taskId: request.taskId,
        ...(intentId !== undefined ? { intentId } : {}),
      }),
      engine,
    );
    if (!outcome) return original;
    const name = callName('llm:before', request.taskId, intentId);
    // Converting the outcome back may fail too: the request then goes on as it was.
    const result = failOpen(
      `${name.label} llm:before`,
      () => {
        let nextMessages = request.messages;
        let summary = outcome.context;
        if (outcome.value !== undefined) {
          const converted = toAnthropicMessages(outcome.value);
          nextMessages = converted.messages as unknown as readonly M[];
          const extra = systemText(converted.system as string | ReadonlyArray<{ text?: unknown }> | undefined);
          if (extra !== undefined) summary = summary === undefined ? extra : `${summary}${SYSTEM_PROMPT_SEPARATOR}${extra}`;
        }
        const hasSummary = typeof summary === 'string' && summary.length > 0;
        return {
          systemPrompt: hasSummary ? `${summary}${SYSTEM_PROMPT_SEPARATOR}${request.systemPrompt}` : request.systemPrompt,
          messages: nextMessages,
          summary: hasSummary ? summary : undefined,
          originalSystemPrompt: request.systemPrompt,
          changed: { systemPrompt: hasSummary, messages: nextMessages !== request.messages },
        };
      },
      loggerOf(engine),
      name.details,
    );
    return result ?? original;
  }

  return {
    get enabled() {
      return resolveEngine() !== undefined;
    },

    async taskStarted(input) {
      const outcome = await run('session:start', input, () => ({ ...commonFields(input), source: input.source ?? 'startup' }));
      return definedFields({ context: outcome?.context });
    },

    async userMessage(input) {
      const outcome = await run('prompt:submit', input, () =>
        definedFields({ ...commonFields(input), prompt: input.prompt, command: input.command }),
      );
      return guardResult(outcome);
    },

    beforeModelRequest,

    async beforeToolUse(input) {
      const outcome = await run('tool:before', input, () =>
        definedFields({ ...commonFields(input), toolName: input.toolName, input: input.input, toolUseId: input.toolUseId }),
      );
      return guardResult(outcome);
    },

    async afterToolUse(input) {
      const outcome = await run('tool:after', input, () =>
        definedFields({
          ...commonFields(input),
          toolName: input.toolName,
          input: input.input,
          output: input.output,
          ok: input.ok,
          error: input.error,
          durationMs: input.durationMs,
          toolUseId: input.toolUseId,
        }),
      );
      // A tool that already ran cannot be blocked.
      return definedFields({ context: outcome?.context, notice: outcome?.notice });
    },

    async subtaskCompleted(input) {
      const outcome = await run('phase:end', input, () =>
        definedFields({
          ...commonFields(input),
          output: input.output,
          taskId: input.childTaskId,
          phase: input.phase,
          agentType: input.agentType,
          request: input.request,
        }),
      );
      const value = outcome?.value;
      return definedFields({
        output: value ?? input.output,
        changed: value !== undefined && value !== input.output,
        context: outcome?.context,
      });
    },

    async beforeCondense(input) {
      const outcome = await run('compact:before', input, () =>
        definedFields({ ...commonFields(input), trigger: input.trigger, instructions: input.instructions }),
      );
      return { ...guardResult(outcome), preserved: outcome?.preserved ?? [] };
    },

    async afterCondense(input) {
      const outcome = await run('compact:after', input, () =>
        definedFields({
          ...commonFields(input),
          trigger: input.trigger,
          tokensBefore: input.tokensBefore,
          tokensAfter: input.tokensAfter,
          summary: input.summary,
        }),
      );
      return definedFields({ context: outcome?.context });
    },

    async turnEnded(input) {
      const outcome = await run('agent:stop', input, () => definedFields({ ...commonFields(input), lastMessage: input.lastMessage }));
      return guardResult(outcome);
    },

    async taskEnded(input) {
      await run('session:end', input, () => ({ ...commonFields(input), reason: input.reason ?? 'task ended' }));
    },
  };
}
