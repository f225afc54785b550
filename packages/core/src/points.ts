import * as z from 'zod/mini';
import type { Message } from './messages/message-model.js';

/**
 * The lifecycle points of an agent session. Each has a kind, which says what its hooks may do:
 * - `observe`: look and add context or a notice; a `block` is ignored and reported;
 * - `guard`: may also block the action; the first block wins and ends the chain;
 * - `transform`: may also return a new `value`, passed on to the next hook.
 */
export type HookKind = 'observe' | 'guard' | 'transform';

/** Fields every point carries. */
const common = {
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
};

// Messages are checked shallowly: a deep schema over a 10k-message history would cost more
// than the hooks it guards.
const messageLike = z.custom<Message>(
  (value) => typeof value === 'object' && value !== null && typeof (value as { role?: unknown }).role === 'string' && Array.isArray((value as { parts?: unknown }).parts),
  { message: 'expected a message { role, parts[] }' },
);

const trigger = z.enum(['manual', 'auto']);
const optionalCount = z.optional(z.number().check(z.nonnegative()));

export const pointSchemas = {
  'session:start': z.looseObject({ ...common, source: z.enum(['startup', 'resume', 'clear', 'compact']) }),
  'prompt:submit': z.looseObject({
    ...common,
    prompt: z.string(),
    command: z.optional(z.object({ name: z.string(), args: z.string() })),
  }),
  'tool:before': z.looseObject({ ...common, toolName: z.string(), input: z.unknown(), toolUseId: z.optional(z.string()) }),
  'tool:after': z.looseObject({
    ...common,
    toolName: z.string(),
    input: z.unknown(),
    output: z.unknown(),
    ok: z.boolean(),
    error: z.optional(z.string()),
    durationMs: optionalCount,
    toolUseId: z.optional(z.string()),
  }),
  'llm:before': z.looseObject({
    ...common,
    systemPrompt: z.string(),
    messages: z.array(messageLike),
    intentId: z.optional(z.string()),
    taskId: z.optional(z.string()),
  }),
  'compact:before': z.looseObject({
    ...common,
    trigger,
    instructions: z.optional(z.string()),
  }),
  'compact:after': z.looseObject({
    ...common,
    trigger: z.optional(trigger),
    tokensBefore: optionalCount,
    tokensAfter: optionalCount,
    summary: z.optional(z.string()),
    /** Labels of what hooks preserved at the matching `compact:before` (filled in by the engine). */
    preserved: z.optional(z.array(z.string())),
  }),
  'phase:end': z.looseObject({
    ...common,
    output: z.string(),
    taskId: z.optional(z.string()),
    phase: z.optional(z.string()),
    agentType: z.optional(z.string()),
    /** The orchestrator's hand-off request, when known. */
    request: z.optional(z.string()),
    agentTranscriptPath: z.optional(z.string()),
  }),
  'agent:stop': z.looseObject({ ...common, lastMessage: z.optional(z.string()), stopHookActive: z.optional(z.boolean()) }),
  'session:end': z.looseObject({ ...common, reason: z.string() }),
} as const;

export type PointName = keyof typeof pointSchemas;
export type PointPayload<P extends PointName> = z.infer<(typeof pointSchemas)[P]>;
/** What a host passes to `emit`: the common `projectDir` / `host` may be left to the engine. */
export type PointInput<P extends PointName> = Omit<PointPayload<P>, 'projectDir' | 'host'> & { projectDir?: string; host?: string };

export const pointKinds = {
  'session:start': 'observe',
  'prompt:submit': 'guard',
  'tool:before': 'guard',
  'tool:after': 'observe',
  'llm:before': 'transform',
  'compact:before': 'guard',
  'compact:after': 'observe',
  'phase:end': 'transform',
  'agent:stop': 'guard',
  'session:end': 'observe',
} as const satisfies Record<PointName, HookKind>;

export type PointKind<P extends PointName> = (typeof pointKinds)[P];

/** The value a transforming point carries, and the payload field that holds it. */
export interface TransformValues {
  'llm:before': Message[];
  'phase:end': string;
}
export const transformFields = { 'llm:before': 'messages', 'phase:end': 'output' } as const satisfies Record<keyof TransformValues, string>;

export const pointNames = Object.keys(pointSchemas) as PointName[];

export function isPointName(value: unknown): value is PointName {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(pointSchemas, value);
}
