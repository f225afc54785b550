import * as z from 'zod/mini';
import { points, type PointName, type SchemaLike } from '@hookwise/core';
import { parseWith } from '@hookwise/core/host';

/**
 * Every hook event Claude Code 2.1.330 knows (`HOOK_EVENTS` of the Agent SDK 0.3.330). An event
 * outside this list is reported as unknown; an event inside it that no lifecycle point maps to
 * is a silent no-op.
 */
export const CLAUDE_CODE_EVENTS = [
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PostToolBatch',
  'Notification',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'SessionStart',
  'SessionEnd',
  'Stop',
  'StopFailure',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'PostCompact',
  'PreModelSwitch',
  'PostModelSwitch',
  'PermissionRequest',
  'PermissionDenied',
  'Setup',
  'TeammateIdle',
  'TaskCreated',
  'TaskCompleted',
  'Elicitation',
  'ElicitationResult',
  'ConfigChange',
  'WorktreeCreate',
  'WorktreeRemove',
  'InstructionsLoaded',
  'CwdChanged',
  'FileChanged',
  'DirectoryAdded',
  'MessageDisplay',
] as const;

export type ClaudeCodeEvent = (typeof CLAUDE_CODE_EVENTS)[number];

export function isClaudeCodeEvent(value: unknown): value is ClaudeCodeEvent {
  return typeof value === 'string' && (CLAUDE_CODE_EVENTS as readonly string[]).includes(value);
}

/**
 * THE Claude Code event map: which lifecycle points each event feeds; `hookwise init`
 * registers an event for the points it feeds (POINT_EVENTS is derived from this table).
 * SessionStart with `source: "compact"` also feeds `compact:after` (decided per payload);
 * PostCompact feeds it too (it does not fire in every mode, anthropics/claude-code#78760), and
 * core's engine runs one compaction's hooks once. PostToolUse feeds `phase:end` because a
 * sub-agent's hand-off summary reaches the orchestrator there. `prompt:submit` needs both prompt
 * events: Claude Code sends `/x` through UserPromptSubmit and, only when it really runs the
 * command, UserPromptExpansion; the binding holds a slash prompt back until it knows which, so
 * it still runs once per prompt.
 */
export const EVENT_POINTS = {
  SessionStart: ['session:start', 'compact:after'],
  UserPromptSubmit: ['prompt:submit'],
  UserPromptExpansion: ['prompt:submit'],
  PreToolUse: ['tool:before'],
  PostToolUse: ['tool:after', 'phase:end'],
  PostToolUseFailure: ['tool:after'],
  PreCompact: ['compact:before'],
  PostCompact: ['compact:after'],
  SubagentStop: ['phase:end'],
  Stop: ['agent:stop'],
  SessionEnd: ['session:end'],
} as const satisfies Partial<Record<ClaudeCodeEvent, readonly PointName[]>>;

export type MappedEvent = keyof typeof EVENT_POINTS;

export function isMappedEvent(value: unknown): value is MappedEvent {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(EVENT_POINTS, value);
}

/** The events `hookwise init` registers for plugins listening on a point: derived from EVENT_POINTS. */
export const POINT_EVENTS: Record<PointName, readonly MappedEvent[]> = Object.fromEntries(
  (Object.keys(points) as PointName[]).map((point) => [
    point,
    (Object.keys(EVENT_POINTS) as MappedEvent[]).filter((event) => (EVENT_POINTS[event] as readonly PointName[]).includes(point)),
  ]),
) as unknown as Record<PointName, readonly MappedEvent[]>;

/**
 * What each field of an event's input must be: `string` (required), `string?`, `number?`,
 * `boolean?`, `text?` (an optional string Claude Code sometimes sends as null, e.g.
 * custom_instructions on a bare /compact) or `unknown?`. Unknown fields pass through.
 * THE description of the inputs: the zod schemas (for the messages of bad input) and the
 * quick check a hook call makes (see {@link parseHookInput}) are both made from it.
 */
type FieldKind = 'string' | 'string?' | 'number?' | 'boolean?' | 'text?' | 'unknown?';

/** Fields every event carries (BaseHookInput). */
const BASE_FIELDS = {
  session_id: 'string',
  transcript_path: 'string?',
  cwd: 'string?',
  hook_event_name: 'string?',
  permission_mode: 'string?',
  agent_id: 'string?',
  agent_type: 'string?',
} as const;

const INPUT_FIELDS = {
  SessionStart: { ...BASE_FIELDS, source: 'string?', model: 'string?', context_tokens: 'number?' },
  UserPromptSubmit: { ...BASE_FIELDS, prompt: 'string' },
  UserPromptExpansion: { ...BASE_FIELDS, prompt: 'string?', command_name: 'string', command_args: 'string?', expansion_type: 'string?' },
  PreToolUse: { ...BASE_FIELDS, tool_name: 'string', tool_input: 'unknown?', tool_use_id: 'string?' },
  PostToolUse: {
    ...BASE_FIELDS,
    tool_name: 'string',
    tool_input: 'unknown?',
    tool_response: 'unknown?',
    tool_use_id: 'string?',
    duration_ms: 'number?',
  },
  PostToolUseFailure: {
    ...BASE_FIELDS,
    tool_name: 'string',
    tool_input: 'unknown?',
    tool_use_id: 'string?',
    error: 'unknown?',
    duration_ms: 'number?',
  },
  PreCompact: { ...BASE_FIELDS, trigger: 'string?', custom_instructions: 'text?' },
  PostCompact: { ...BASE_FIELDS, trigger: 'string?', compact_summary: 'text?' },
  SubagentStop: { ...BASE_FIELDS, stop_hook_active: 'boolean?', agent_transcript_path: 'string?', last_assistant_message: 'text?' },
  Stop: { ...BASE_FIELDS, stop_hook_active: 'boolean?', last_assistant_message: 'text?' },
  SessionEnd: { ...BASE_FIELDS, reason: 'string?' },
} as const satisfies Record<MappedEvent, Readonly<Record<string, FieldKind>>>;

type Fields = Readonly<Record<string, FieldKind>>;

type SchemaOfKind = {
  string: z.ZodMiniString;
  'string?': z.ZodMiniOptional<z.ZodMiniString>;
  'number?': z.ZodMiniOptional<z.ZodMiniNumber>;
  'boolean?': z.ZodMiniOptional<z.ZodMiniBoolean>;
  'text?': z.ZodMiniOptional<z.ZodMiniNullable<z.ZodMiniString>>;
  'unknown?': z.ZodMiniOptional<z.ZodMiniUnknown>;
};

const schemaOfKind: { [K in FieldKind]: () => SchemaOfKind[K] } = {
  string: () => z.string(),
  'string?': () => z.optional(z.string()),
  'number?': () => z.optional(z.number()),
  'boolean?': () => z.optional(z.boolean()),
  'text?': () => z.optional(z.nullable(z.string())),
  'unknown?': () => z.optional(z.unknown()),
};

const schemaOf = <F extends Fields>(fields: F) =>
  z.looseObject(
    Object.fromEntries(Object.entries(fields).map(([name, kind]) => [name, schemaOfKind[kind]()])) as {
      -readonly [K in keyof F]: SchemaOfKind[F[K]];
    },
  );

/** Whether a value passes a field kind, as its zod schema would judge it (z.number() takes finite numbers only). */
function fits(kind: FieldKind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'string?':
      return value === undefined || typeof value === 'string';
    case 'number?':
      return value === undefined || (typeof value === 'number' && Number.isFinite(value));
    case 'boolean?':
      return value === undefined || typeof value === 'boolean';
    case 'text?':
      return value === undefined || value === null || typeof value === 'string';
    case 'unknown?':
      return true;
  }
}

type InputSchemas = { readonly [E in MappedEvent]: ReturnType<typeof schemaOf<(typeof INPUT_FIELDS)[E]>> };

// Built on first use, one event at a time, and only for input the quick check refused (to word
// what is wrong): building zod schemas costs a hook call more start-up time than the call itself.
const builtInputSchemas: { -readonly [E in MappedEvent]?: InputSchemas[E] } = {};
const inputSchemaOf = <E extends MappedEvent>(event: E): InputSchemas[E] =>
  (builtInputSchemas[event] ??= schemaOf(INPUT_FIELDS[event]) as never) as InputSchemas[E];

/** The input schema of each mapped event (unknown fields pass through), built when first read. */
export const inputSchemas = {
  get SessionStart() {
    return inputSchemaOf('SessionStart');
  },
  get UserPromptSubmit() {
    return inputSchemaOf('UserPromptSubmit');
  },
  get UserPromptExpansion() {
    return inputSchemaOf('UserPromptExpansion');
  },
  get PreToolUse() {
    return inputSchemaOf('PreToolUse');
  },
  get PostToolUse() {
    return inputSchemaOf('PostToolUse');
  },
  get PostToolUseFailure() {
    return inputSchemaOf('PostToolUseFailure');
  },
  get PreCompact() {
    return inputSchemaOf('PreCompact');
  },
  get PostCompact() {
    return inputSchemaOf('PostCompact');
  },
  get SubagentStop() {
    return inputSchemaOf('SubagentStop');
  },
  get Stop() {
    return inputSchemaOf('Stop');
  },
  get SessionEnd() {
    return inputSchemaOf('SessionEnd');
  },
};

export type HookInputOf<E extends MappedEvent> = z.infer<(typeof inputSchemas)[E]>;
export type AnyHookInput = HookInputOf<MappedEvent>;

/**
 * An event's input, checked: a plain object whose fields fit {@link INPUT_FIELDS} is taken as it
 * is, with no zod schema built (the common case, and the one a hook call pays for at start-up);
 * anything else goes through the event's zod schema, whose message says what is wrong.
 */
export function parseHookInput<E extends MappedEvent>(
  event: E,
  raw: unknown,
): { ok: true; data: HookInputOf<E> } | { ok: false; message: string } {
  if (typeof raw === 'object' && raw !== null && !Array.isArray(raw)) {
    const record = raw as Record<string, unknown>;
    const fields: Fields = INPUT_FIELDS[event];
    let fitsAll = true;
    for (const name in fields) {
      if (!fits(fields[name]!, Object.prototype.hasOwnProperty.call(record, name) ? record[name] : undefined)) {
        fitsAll = false;
        break;
      }
    }
    if (fitsAll) return { ok: true, data: record as HookInputOf<E> };
  }
  const parsed = parseWith<HookInputOf<E>>(inputSchemas[event] as unknown as SchemaLike<HookInputOf<E>, unknown>, raw);
  return parsed.ok ? { ok: true, data: parsed.data } : { ok: false, message: parsed.message };
}
