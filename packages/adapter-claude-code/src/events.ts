import * as z from 'zod/mini';
import { points, type PointName } from '@hookwise/core';

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
  (Object.keys(points) as PointName[]).map((point) => [point, (Object.keys(EVENT_POINTS) as MappedEvent[]).filter((event) => (EVENT_POINTS[event] as readonly PointName[]).includes(point))]),
) as unknown as Record<PointName, readonly MappedEvent[]>;

// Optional strings Claude Code sometimes sends as null (custom_instructions on a bare /compact).
const optionalText = () => z.optional(z.nullable(z.string()));

/** Fields every event carries (BaseHookInput). Unknown fields pass through. */
const base = () => ({
  session_id: z.string(),
  transcript_path: z.optional(z.string()),
  cwd: z.optional(z.string()),
  hook_event_name: z.optional(z.string()),
  permission_mode: z.optional(z.string()),
  agent_id: z.optional(z.string()),
  agent_type: z.optional(z.string()),
});

const inputSchemaBuilders = {
  SessionStart: () => z.looseObject({ ...base(), source: z.optional(z.string()), model: z.optional(z.string()), context_tokens: z.optional(z.number()) }),
  UserPromptSubmit: () => z.looseObject({ ...base(), prompt: z.string() }),
  UserPromptExpansion: () => z.looseObject({
    ...base(),
    prompt: z.optional(z.string()),
    command_name: z.string(),
    command_args: z.optional(z.string()),
    expansion_type: z.optional(z.string()),
  }),
  PreToolUse: () => z.looseObject({ ...base(), tool_name: z.string(), tool_input: z.optional(z.unknown()), tool_use_id: z.optional(z.string()) }),
  PostToolUse: () => z.looseObject({
    ...base(),
    tool_name: z.string(),
    tool_input: z.optional(z.unknown()),
    tool_response: z.optional(z.unknown()),
    tool_use_id: z.optional(z.string()),
    duration_ms: z.optional(z.number()),
  }),
  PostToolUseFailure: () => z.looseObject({
    ...base(),
    tool_name: z.string(),
    tool_input: z.optional(z.unknown()),
    tool_use_id: z.optional(z.string()),
    error: z.optional(z.unknown()),
    duration_ms: z.optional(z.number()),
  }),
  PreCompact: () => z.looseObject({ ...base(), trigger: z.optional(z.string()), custom_instructions: optionalText() }),
  PostCompact: () => z.looseObject({ ...base(), trigger: z.optional(z.string()), compact_summary: optionalText() }),
  SubagentStop: () => z.looseObject({
    ...base(),
    stop_hook_active: z.optional(z.boolean()),
    agent_transcript_path: z.optional(z.string()),
    last_assistant_message: optionalText(),
  }),
  Stop: () => z.looseObject({ ...base(), stop_hook_active: z.optional(z.boolean()), last_assistant_message: optionalText() }),
  SessionEnd: () => z.looseObject({ ...base(), reason: z.optional(z.string()) }),
} as const satisfies Record<MappedEvent, unknown>;

type InputSchemas = { readonly [E in keyof typeof inputSchemaBuilders]: ReturnType<(typeof inputSchemaBuilders)[E]> };

// Built on first use, one event at a time: a hook process validates one event, and building
// the schemas of all eleven with zod costs more start-up time than the call that uses one.
const builtInputSchemas: { -readonly [E in MappedEvent]?: InputSchemas[E] } = {};
const inputSchemaOf = <E extends MappedEvent>(event: E): InputSchemas[E] => (builtInputSchemas[event] ??= inputSchemaBuilders[event]() as never) as InputSchemas[E];

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
