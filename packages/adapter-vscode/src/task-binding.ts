import type { Logger, MergedOutcome, PointInput, PointName, PointPayload } from '@hookwise/core';
import { definedFields, failOpen, silentLogger, type Host } from '@hookwise/core/host';
import { fromAnthropicMessages, toAnthropicMessages } from '@hookwise/core/messages';

/**
 * A message as Roo Code and Cline keep their API history: the Anthropic Messages format
 * (`Anthropic.MessageParam` of @anthropic-ai/sdk is assignable to it).
 */
export interface AnthropicMessageLike {
  role: 'user' | 'assistant';
  content: string | ReadonlyArray<object>;
}

// The call types take their fields from core's point table, so a point's change reaches them.

/** Fields every task call may carry besides the task id; the task's session keeps the latest of each. */
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
   * The host kit of the task's workspace (`createHost` of `@hookwise/core/host`), or a function
   * giving it at each call. Undefined means hookwise is off there: every call passes through.
   */
  host: Host | undefined | (() => Host | undefined);
  /** Where the binding reports its own failures; defaults to the host's logger. */
  logger?: Logger;
  /** Told about every call (errors in it are logged, never thrown). */
  onEvent?: (event: TaskBindingEvent) => void;
}

/** What an extension's task loop calls at its lifecycle points. No call ever throws. */
export interface TaskBinding {
  /** True when the binding has a host right now. */
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

const SEPARATOR = '\n\n';
const COMMON = ['model', 'cwd', 'contextTokens', 'contextWindow', 'transcriptPath'] as const;
type Call = TaskCallBase & { intentId?: string | undefined; toolName?: string | undefined };

const pick = (input: object, keys: readonly string[]): Record<string, unknown> =>
  definedFields(Object.fromEntries(keys.map((key) => [key, (input as Record<string, unknown>)[key]])));

const guardResult = (outcome: MergedOutcome | undefined): GuardResult =>
  definedFields({
    block: outcome?.block ? { reason: outcome.block.reason } : undefined,
    context: outcome?.context,
    notice: outcome?.notice,
  });

/**
 * Binds hookwise to a task loop through the host kit: a session per task, every point under
 * core's deadline, and fail-open — when hookwise is off, no hook listens, the engine fails or a
 * hook throws, the task gets back what it passed in and the failure is logged with the task id
 * (and intent id on model requests).
 */
export function createTaskBinding(options: TaskBindingOptions): TaskBinding {
  const resolveHost = (): Host | undefined =>
    failOpen(
      'hookwise: getting the host',
      () => (typeof options.host === 'function' ? options.host() : options.host),
      options.logger ?? silentLogger,
    );
  const loggerOf = (host: Host) => options.logger ?? host.logger;
  /** How failures of a call are named: the task id, and the intent on model requests. */
  const callName = (point: PointName, { taskId, intentId }: Call) =>
    point === 'llm:before'
      ? { label: `[Task#${taskId}, intent ${intentId ?? '(none)'}]`, details: { taskId, intentId: intentId ?? null } }
      : { label: `[Task#${taskId}]`, details: { taskId } };

  /** Emits `point` in the task's session with the call's `keys` (and `extra`); undefined when nothing ran. */
  async function run<P extends PointName>(
    point: P,
    input: Call,
    keys: readonly string[],
    extra: () => object = () => ({}),
    host = resolveHost(),
  ): Promise<MergedOutcome<P> | undefined> {
    if (!host) return undefined;
    const session = host.session(input.taskId);
    Object.assign(session.fields, pick(input, COMMON));
    const fields = () => ({ ...pick(input, keys), ...extra() }) as Partial<PointInput<P>>;
    const outcome = await session.emit(point, fields, callName(point, input));
    if (point === 'compact:after') session.fields.contextTokens = undefined; // stale until the task measures again
    if (point === 'session:end') host.forget(input.taskId);
    const event = { point, outcome, ...pick(input, ['taskId', 'contextTokens', 'contextWindow', 'toolName']) } as TaskBindingEvent;
    const listener = options.onEvent;
    if (listener) failOpen(`[Task#${input.taskId}] hookwise event listener`, () => listener(event), loggerOf(host));
    return outcome;
  }

  async function beforeModelRequest<M extends AnthropicMessageLike>(request: ModelRequest<M>): Promise<ModelRequestResult<M>> {
    const { systemPrompt, messages } = request;
    const result = (summary: string | undefined, next: readonly M[]): ModelRequestResult<M> => ({
      systemPrompt: summary ? `${summary}${SEPARATOR}${systemPrompt}` : systemPrompt,
      messages: next,
      summary: summary || undefined,
      originalSystemPrompt: systemPrompt,
      changed: { systemPrompt: !!summary, messages: next !== messages },
    });
    const call = { ...request, intentId: typeof request.intentId === 'string' && request.intentId !== '' ? request.intentId : undefined };
    const host = resolveHost();
    // No listener means no conversion: the kit builds the payload only for a point some hook listens on.
    const toCore = () => ({ messages: fromAnthropicMessages(messages as unknown as Parameters<typeof fromAnthropicMessages>[0]) });
    const outcome = await run('llm:before', call, ['systemPrompt', 'taskId', 'intentId'], toCore, host);
    if (!host || !outcome) return result(undefined, messages);
    const name = callName('llm:before', call);
    // Converting the outcome back may fail too: the request then goes on as it was.
    const changed = await host.guard(
      `${name.label} llm:before`,
      request.taskId,
      async () => {
        if (outcome.value === undefined) return result(outcome.context, messages);
        const converted = toAnthropicMessages(outcome.value);
        // A `system` the hooks put into the messages (rare) joins the summary rather than being lost.
        const { system } = converted;
        const extra = typeof system === 'string' ? system : system?.map((block) => block.text).join('\n');
        const summary = [outcome.context, extra?.trim() ? extra : undefined].filter((text) => text !== undefined).join(SEPARATOR);
        return result(summary, converted.messages as unknown as readonly M[]);
      },
      name,
    );
    return changed ?? result(undefined, messages);
  }

  return {
    get enabled() {
      return resolveHost() !== undefined;
    },
    async taskStarted(input) {
      const outcome = await run('session:start', input, [], () => ({ source: input.source ?? 'startup' }));
      return definedFields({ context: outcome?.context });
    },
    userMessage: async (input) => guardResult(await run('prompt:submit', input, ['prompt', 'command'])),
    beforeModelRequest,
    beforeToolUse: async (input) => guardResult(await run('tool:before', input, ['toolName', 'input', 'toolUseId'])),
    async afterToolUse(input) {
      const outcome = await run('tool:after', input, ['toolName', 'input', 'output', 'ok', 'error', 'durationMs', 'toolUseId']);
      // A tool that already ran cannot be blocked.
      return definedFields({ context: outcome?.context, notice: outcome?.notice });
    },
    async subtaskCompleted(input) {
      const outcome = await run('phase:end', input, ['output', 'phase', 'agentType', 'request'], () =>
        definedFields({ taskId: input.childTaskId }),
      );
      const value = outcome?.value;
      return definedFields({
        output: value ?? input.output,
        changed: value !== undefined && value !== input.output,
        context: outcome?.context,
      });
    },
    async beforeCondense(input) {
      const outcome = await run('compact:before', input, ['trigger', 'instructions']);
      return { ...guardResult(outcome), preserved: outcome?.preserved ?? [] };
    },
    async afterCondense(input) {
      // The loop keeps the hooks' context in its own history, so the kit's after-compaction store is not used.
      const outcome = await run('compact:after', input, ['trigger', 'tokensBefore', 'tokensAfter', 'summary']);
      return definedFields({ context: outcome?.context });
    },
    turnEnded: async (input) => guardResult(await run('agent:stop', input, ['lastMessage'])),
    async taskEnded(input) {
      await run('session:end', input, [], () => ({ reason: input.reason ?? 'task ended' }));
    },
  };
}
