import type * as z from 'zod/mini';
import type { Message } from './messages/message-model.js';
import {
  array,
  boolean,
  custom,
  fastParseOf,
  looseObject,
  number,
  object,
  oneOf,
  optional,
  string,
  unknown,
  type FastParse,
} from './payload-parse.js';

/**
 * The lifecycle points of an agent session. Each has a kind, which says what its hooks may do:
 * - `observe`: look and add context or a notice; a `block` is ignored and reported;
 * - `guard`: may also block the action; the first block wins and ends the chain;
 * - `transform`: may also return a new `value`, passed on to the next hook.
 */
export type HookKind = 'observe' | 'guard' | 'transform';

// Each payload is described once, with the parts of payload-parse.ts: the engine checks a
// payload with their plain-code parse, and a point's zod schema is built only when a host asks
// for it (`pointSchema` in `@hookwise/core/host`, to word a bad payload). This module loads no
// zod, so the main entry stays cheap to import. Descriptions are made on first use, one point
// at a time: a hook process emits one or two points.

/** Fields every point carries. */
const common = () => ({
  sessionId: string(1),
  projectDir: string(),
  /** Which binding emitted it: `claude-code`, `vscode`, `agent-sdk`, `replay`, or a host's own name. */
  host: string(),
  cwd: optional(string()),
  transcriptPath: optional(string()),
  /** The model, when the host knows it. */
  model: optional(string()),
  /** Current context size in tokens, when the host knows it (VS Code-hosted agents do). */
  contextTokens: optional(number('nonnegative')),
  /** The model's context window in tokens, when the host knows it. */
  contextWindow: optional(number('positive')),
  /**
   * Where the host read the sizes it passes (`contextTokens`; on compact:after `tokensBefore` /
   * `tokensAfter`): a model response's `usage`, or the compaction boundary it recorded. Absent
   * when the host measured them itself.
   */
  contextSource: optional(oneOf(['usage', 'compact-boundary'])),
});

// Messages are checked shallowly: a deep schema over a 10k-message history would cost more
// than the hooks it guards.
/** The shallow message check (internal: the engine runs it in a plain loop over long histories). */
export const isMessageLike = (value: unknown): value is Message =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { role?: unknown }).role === 'string' &&
  Array.isArray((value as { parts?: unknown }).parts);
const messageLike = () => custom<Message>(isMessageLike, 'expected a message { role, parts[] }');
const trigger = () => oneOf(['manual', 'auto']);
const optionalCount = () => optional(number('nonnegative'));

const builders = {
  'session:start': () => looseObject({ ...common(), source: oneOf(['startup', 'resume', 'clear', 'compact']) }),
  'prompt:submit': () =>
    looseObject({
      ...common(),
      prompt: string(),
      command: optional(object({ name: string(), args: string() })),
    }),
  'tool:before': () => looseObject({ ...common(), toolName: string(), input: unknown(), toolUseId: optional(string()) }),
  'tool:after': () =>
    looseObject({
      ...common(),
      toolName: string(),
      input: unknown(),
      output: unknown(),
      ok: boolean(),
      error: optional(string()),
      durationMs: optionalCount(),
      toolUseId: optional(string()),
    }),
  'llm:before': () =>
    looseObject({
      ...common(),
      systemPrompt: string(),
      messages: array(messageLike()),
      intentId: optional(string()),
      taskId: optional(string()),
    }),
  'compact:before': () =>
    looseObject({
      ...common(),
      trigger: trigger(),
      instructions: optional(string()),
    }),
  'compact:after': () =>
    looseObject({
      ...common(),
      trigger: optional(trigger()),
      tokensBefore: optionalCount(),
      tokensAfter: optionalCount(),
      /** The host's id of this compaction (Claude Code: the `compact_boundary` line's uuid). */
      compactionId: optional(string()),
      summary: optional(string()),
      /** Labels of what hooks preserved at the matching `compact:before` (filled in by the engine). */
      preserved: optional(array(string())),
    }),
  'phase:end': () =>
    looseObject({
      ...common(),
      output: string(),
      taskId: optional(string()),
      phase: optional(string()),
      agentType: optional(string()),
      /** The orchestrator's hand-off request, when known. */
      request: optional(string()),
      agentTranscriptPath: optional(string()),
    }),
  'agent:stop': () => looseObject({ ...common(), lastMessage: optional(string()), stopHookActive: optional(boolean()) }),
  'session:end': () => looseObject({ ...common(), reason: string() }),
} as const;

type Payloads = { readonly [P in keyof typeof builders]: ReturnType<(typeof builders)[P]> };
/** The zod schema of each point's payload (built by point-schemas.ts). */
export type PointSchemas = { readonly [P in keyof Payloads]: ReturnType<Payloads[P]['schema']> };
type Schemas = PointSchemas;

const described: { -readonly [P in keyof Payloads]?: Payloads[P] } = {};
/** A point's payload description (internal: point-schemas.ts builds its zod schema from it). */
export const payloadOf = <P extends keyof Payloads>(point: P): Payloads[P] =>
  (described[point] ??= builders[point]() as never) as Payloads[P];
const parsers: { -readonly [P in keyof Payloads]?: FastParse } = {};

/**
 * The plain-code parse of a point's payload (internal, for the engine): zod's result for every
 * payload it accepts, undefined for one zod must judge (then parse with `pointSchema(point)`).
 */
export const payloadParserOf = (point: keyof Payloads): FastParse => (parsers[point] ??= fastParseOf(payloadOf(point)));

/** What a transforming point's value must be; a hook's `value` that fails it is reported and ignored. */
interface TransformSpec<P extends keyof Schemas> {
  /** The payload field that holds the value, passed from hook to hook. */
  field: keyof z.infer<Schemas[P]> & string;
  /** Said in the failure report when a value is refused. */
  expected: string;
  accepts(value: unknown): boolean;
}

type PointSpec<P extends keyof Schemas> = { kind: 'observe' } | { kind: 'guard' } | { kind: 'transform'; transform: TransformSpec<P> };

/**
 * THE table of lifecycle points: for each, its kind and, on transforming points, the payload
 * field the hooks' `value` replaces. With the payload descriptions above, every type below is
 * derived from it.
 */
export const points = {
  'session:start': { kind: 'observe' },
  'prompt:submit': { kind: 'guard' },
  'tool:before': { kind: 'guard' },
  // A hook may replace the output before it enters the context (hosts that can apply it do:
  // Claude Code through PostToolUse `updatedToolOutput`, OpenCode through `tool.execute.after`).
  'tool:after': {
    kind: 'transform',
    transform: { field: 'output', expected: 'a tool output (any value but undefined)', accepts: (value) => value !== undefined },
  },
  'llm:before': { kind: 'transform', transform: { field: 'messages', expected: 'an array of messages', accepts: Array.isArray } },
  'compact:before': { kind: 'guard' },
  'compact:after': { kind: 'observe' },
  'phase:end': { kind: 'transform', transform: { field: 'output', expected: 'a string', accepts: (value) => typeof value === 'string' } },
  'agent:stop': { kind: 'guard' },
  'session:end': { kind: 'observe' },
} as const satisfies { [P in keyof Schemas]: PointSpec<P> };

type Points = typeof points;

export type PointName = keyof Points;
export type PointPayload<P extends PointName> = z.infer<Schemas[P]>;
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
