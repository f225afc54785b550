import * as z from 'zod/mini';
import type { Message } from './messages/message-model.js';

/**
 * The lifecycle points of an agent session. Each has a kind, which says what its hooks may do:
 * - `observe`: look and add context or a notice; a `block` is ignored and reported;
 * - `guard`: may also block the action; the first block wins and ends the chain;
 * - `transform`: may also return a new `value`, passed on to the next hook.
 */
export type HookKind = 'observe' | 'guard' | 'transform';

// Schemas are built on first use, one point at a time: a hook process emits one point, and
// building all ten payload schemas with zod costs more than the call that uses one of them.
const lazy = <T>(build: () => T): (() => T) => {
  let value: T | undefined;
  return () => (value ??= build());
};

/** Fields every point carries. */
const common = lazy(() => ({
  sessionId: z.string().check(z.minLength(1)),
  projectDir: z.string(),
  /** Which binding emitted it: `claude-code`, `vscode`, `agent-sdk`, `replay`, or a host's own name. */
  host: z.string(),
  cwd: z.optional(z.string()),
  transcriptPath: z.optional(z.string()),
  /** The model, when the host knows it. */
  model: z.optional(z.string()),
  /** Current context size in tokens, when the host knows it (VS Code-hosted agents do). */
  contextTokens: z.optional(z.number().check(z.nonnegative())),
  /** The model's context window in tokens, when the host knows it. */
  contextWindow: z.optional(z.number().check(z.positive())),
}));

// Messages are checked shallowly: a deep schema over a 10k-message history would cost more
// than the hooks it guards.
/** The shallow message check (internal: the engine runs it in a plain loop over long histories). */
export const isMessageLike = (value: unknown): value is Message =>
  typeof value === 'object' && value !== null && typeof (value as { role?: unknown }).role === 'string' && Array.isArray((value as { parts?: unknown }).parts);
const messageLike = () => z.custom<Message>(isMessageLike, { message: 'expected a message { role, parts[] }' });
const trigger = () => z.enum(['manual', 'auto']);
const optionalCount = () => z.optional(z.number().check(z.nonnegative()));

const builders = {
  'session:start': () => z.looseObject({ ...common(), source: z.enum(['startup', 'resume', 'clear', 'compact']) }),
  'prompt:submit': () => z.looseObject({
    ...common(),
    prompt: z.string(),
    command: z.optional(z.object({ name: z.string(), args: z.string() })),
  }),
  'tool:before': () => z.looseObject({ ...common(), toolName: z.string(), input: z.unknown(), toolUseId: z.optional(z.string()) }),
  'tool:after': () => z.looseObject({
    ...common(),
    toolName: z.string(),
    input: z.unknown(),
    output: z.unknown(),
    ok: z.boolean(),
    error: z.optional(z.string()),
    durationMs: optionalCount(),
    toolUseId: z.optional(z.string()),
  }),
  'llm:before': () => z.looseObject({
    ...common(),
    systemPrompt: z.string(),
    messages: z.array(messageLike()),
    intentId: z.optional(z.string()),
    taskId: z.optional(z.string()),
  }),
  'compact:before': () => z.looseObject({
    ...common(),
    trigger: trigger(),
    instructions: z.optional(z.string()),
  }),
  'compact:after': () => z.looseObject({
    ...common(),
    trigger: z.optional(trigger()),
    tokensBefore: optionalCount(),
    tokensAfter: optionalCount(),
    summary: z.optional(z.string()),
    /** Labels of what hooks preserved at the matching `compact:before` (filled in by the engine). */
    preserved: z.optional(z.array(z.string())),
  }),
  'phase:end': () => z.looseObject({
    ...common(),
    output: z.string(),
    taskId: z.optional(z.string()),
    phase: z.optional(z.string()),
    agentType: z.optional(z.string()),
    /** The orchestrator's hand-off request, when known. */
    request: z.optional(z.string()),
    agentTranscriptPath: z.optional(z.string()),
  }),
  'agent:stop': () => z.looseObject({ ...common(), lastMessage: z.optional(z.string()), stopHookActive: z.optional(z.boolean()) }),
  'session:end': () => z.looseObject({ ...common(), reason: z.string() }),
} as const;

type Schemas = { readonly [P in keyof typeof builders]: ReturnType<(typeof builders)[P]> };

const built: { -readonly [P in keyof Schemas]?: Schemas[P] } = {};
const schemaOf = <P extends keyof Schemas>(point: P): Schemas[P] => (built[point] ??= builders[point]() as never) as Schemas[P];

/** What a transforming point's value must be; a hook's `value` that fails it is reported and ignored. */
interface TransformSpec<P extends keyof Schemas> {
  /** The payload field that holds the value, passed from hook to hook. */
  field: keyof z.infer<Schemas[P]> & string;
  /** Said in the failure report when a value is refused. */
  expected: string;
  accepts(value: unknown): boolean;
}

type PointSpec<P extends keyof Schemas> =
  | { kind: 'observe'; schema: Schemas[P] }
  | { kind: 'guard'; schema: Schemas[P] }
  | { kind: 'transform'; schema: Schemas[P]; transform: TransformSpec<P> };

/**
 * THE table of lifecycle points: for each, its payload schema, its kind and, on transforming
 * points, the payload field the hooks' `value` replaces. Every type below is derived from it.
 */
export const points = {
  'session:start': { kind: 'observe', get schema() { return schemaOf('session:start'); } },
  'prompt:submit': { kind: 'guard', get schema() { return schemaOf('prompt:submit'); } },
  'tool:before': { kind: 'guard', get schema() { return schemaOf('tool:before'); } },
  // A hook may replace the output before it enters the context (hosts that can apply it do:
  // Claude Code through PostToolUse `updatedToolOutput`, OpenCode through `tool.execute.after`).
  'tool:after': { kind: 'transform', get schema() { return schemaOf('tool:after'); }, transform: { field: 'output', expected: 'a tool output (any value but undefined)', accepts: (value) => value !== undefined } },
  'llm:before': { kind: 'transform', get schema() { return schemaOf('llm:before'); }, transform: { field: 'messages', expected: 'an array of messages', accepts: Array.isArray } },
  'compact:before': { kind: 'guard', get schema() { return schemaOf('compact:before'); } },
  'compact:after': { kind: 'observe', get schema() { return schemaOf('compact:after'); } },
  'phase:end': { kind: 'transform', get schema() { return schemaOf('phase:end'); }, transform: { field: 'output', expected: 'a string', accepts: (value) => typeof value === 'string' } },
  'agent:stop': { kind: 'guard', get schema() { return schemaOf('agent:stop'); } },
  'session:end': { kind: 'observe', get schema() { return schemaOf('session:end'); } },
} as const satisfies { [P in keyof Schemas]: PointSpec<P> };

type Points = typeof points;

export type PointName = keyof Points;
export type PointPayload<P extends PointName> = z.infer<Points[P]['schema']>;
/** What a host passes to `emit`: the common `projectDir` / `host` may be left to the engine. */
export type PointInput<P extends PointName> = Omit<PointPayload<P>, 'projectDir' | 'host'> & { projectDir?: string; host?: string };
export type PointKind<P extends PointName> = Points[P]['kind'];
/** The points whose hooks may block the action. */
export type GuardPoint = { [P in PointName]: Points[P]['kind'] extends 'guard' ? P : never }[PointName];
/** The points whose hooks may return a new `value`. */
export type TransformPoint = { [P in PointName]: Points[P] extends { transform: unknown } ? P : never }[PointName];
/** The payload field a transforming point's value replaces. */
export type TransformField<P extends TransformPoint> = Points[P] extends { transform: { field: infer F } } ? F : never;
/** The value a transforming point carries: the type of its transformed payload field. */
export type TransformValues = { [P in TransformPoint]: PointPayload<P>[TransformField<P> & keyof PointPayload<P>] };

export const pointNames = Object.keys(points) as PointName[];

export function isPointName(value: unknown): value is PointName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(points, value);
}
