import type { PointName } from '@hookwise/core';
import { BASE_INPUT_FIELDS, createInputParser, hostEvents, type InputFields, type InputOf } from '@hookwise/core/command-hook';

/**
 * THE Gemini event map: the points each event feeds; `hookwise init` registers an event for the
 * points it feeds. PreCompress fires before every model request (0.61.0), compressing or not, so
 * it feeds nothing itself: the next event reads the session file and emits `compact:before` and
 * `compact:after` only for a compression that happened. Every later event can be that next one.
 */
export const EVENT_POINTS = {
  SessionStart: ['session:start'],
  BeforeAgent: ['prompt:submit', 'compact:after'],
  BeforeTool: ['tool:before', 'compact:before', 'compact:after'],
  AfterTool: ['tool:after', 'compact:before', 'compact:after'],
  PreCompress: ['compact:before', 'compact:after'],
  AfterAgent: ['agent:stop', 'compact:before', 'compact:after'],
  SessionEnd: ['session:end'],
} as const satisfies Record<string, readonly PointName[]>;

export type MappedEvent = keyof typeof EVENT_POINTS;

/** Every hook event Gemini CLI 0.61.0 knows (`HookEventName`): the mapped ones and these; another name is refused as unknown. */
const UNMAPPED = ['Notification', 'BeforeModel', 'AfterModel', 'BeforeToolSelection'] as const;
export type GeminiEvent = MappedEvent | (typeof UNMAPPED)[number];
export const { all: GEMINI_EVENTS, isEvent: isGeminiEvent, isMapped: isMappedEvent } = hostEvents(EVENT_POINTS, UNMAPPED);

/** The stdin fields hookwise reads ([ran] with 0.61.0), on any event; each event's own are required there. Unknown fields pass. */
const FIELDS = {
  ...BASE_INPUT_FIELDS,
  source: 'string?',
  reason: 'string?',
  prompt: 'string?',
  prompt_response: 'string?',
  stop_hook_active: 'boolean?',
  tool_name: 'string?',
  tool_input: 'unknown?',
  tool_response: 'unknown?',
  trigger: 'string?',
} as const;
const INPUT_FIELDS = {
  SessionStart: FIELDS,
  BeforeAgent: { ...FIELDS, prompt: 'string' },
  BeforeTool: { ...FIELDS, tool_name: 'string' },
  AfterTool: { ...FIELDS, tool_name: 'string' },
  PreCompress: FIELDS,
  AfterAgent: FIELDS,
  SessionEnd: FIELDS,
} as const satisfies Record<MappedEvent, InputFields>;

export type GeminiInput = InputOf<typeof FIELDS>;

const parser = createInputParser(INPUT_FIELDS);
export const parseHookInput = (event: MappedEvent, raw: unknown): { ok: true; data: GeminiInput } | { ok: false; message: string } =>
  parser.parse(event, raw);
