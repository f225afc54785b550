import { points, type PointName } from '@hookwise/core';
import { BASE_INPUT_FIELDS, createInputParser, type InputFields, type InputOf } from '@hookwise/core/command-hook';

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

/** What each field of an event's input must be (see the command-hook kit's {@link FieldKind}); THE description of the inputs. */
const BASE_FIELDS = BASE_INPUT_FIELDS;

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
} as const satisfies Record<MappedEvent, InputFields>;

const parser = createInputParser(INPUT_FIELDS);

/** The input schema of each mapped event (unknown fields pass through), built when first read. */
export const inputSchemas = Object.defineProperties(
  {},
  Object.fromEntries(
    (Object.keys(INPUT_FIELDS) as MappedEvent[]).map((event) => [event, { enumerable: true, get: () => parser.schemaFor(event) }]),
  ),
) as { readonly [E in MappedEvent]: ReturnType<typeof parser.schemaFor<E>> };

export type HookInputOf<E extends MappedEvent> = InputOf<(typeof INPUT_FIELDS)[E]>;
export type AnyHookInput = HookInputOf<MappedEvent>;

/**
 * An event's input, checked: a plain object whose fields fit {@link INPUT_FIELDS} is taken as it
 * is; anything else goes through the event's zod schema, whose message says what is wrong.
 */
export const parseHookInput = <E extends MappedEvent>(
  event: E,
  raw: unknown,
): { ok: true; data: HookInputOf<E> } | { ok: false; message: string } => parser.parse(event, raw);
