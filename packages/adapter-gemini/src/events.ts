import type { PointName } from '@hookwise/core';

/** Every hook event Gemini CLI 0.61.0 knows (`HookEventName`): another name is refused as unknown. */
export const GEMINI_EVENTS = [
  'SessionStart',
  'BeforeAgent',
  'BeforeTool',
  'AfterTool',
  'PreCompress',
  'AfterAgent',
  'SessionEnd',
  'Notification',
  'BeforeModel',
  'AfterModel',
  'BeforeToolSelection',
] as const;
export type GeminiEvent = (typeof GEMINI_EVENTS)[number];

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
} as const satisfies Partial<Record<GeminiEvent, readonly PointName[]>>;
export type MappedEvent = keyof typeof EVENT_POINTS;

export const isGeminiEvent = (value: string): value is GeminiEvent => (GEMINI_EVENTS as readonly string[]).includes(value);
export const isMappedEvent = (value: string): value is MappedEvent => Object.prototype.hasOwnProperty.call(EVENT_POINTS, value);

/** The events to register for plugins listening on `points`, in Gemini's order (SessionStart always). */
export function eventsForPoints(points: Iterable<PointName>): MappedEvent[] {
  const wanted = new Set<PointName>(points);
  return (Object.keys(EVENT_POINTS) as MappedEvent[]).filter(
    (event) => event === 'SessionStart' || (EVENT_POINTS[event] as readonly PointName[]).some((point) => wanted.has(point)),
  );
}

/** The stdin fields hookwise reads ([ran] with 0.61.0); unknown fields pass. */
export interface GeminiInput {
  session_id: string;
  transcript_path?: string;
  cwd?: string;
  hook_event_name?: string;
  source?: string;
  reason?: string;
  prompt?: string;
  prompt_response?: string;
  stop_hook_active?: boolean;
  tool_name?: string;
  tool_input?: unknown;
  tool_response?: unknown;
  trigger?: string;
}

const REQUIRED: Partial<Record<MappedEvent, readonly string[]>> = {
  BeforeAgent: ['prompt'],
  BeforeTool: ['tool_name'],
  AfterTool: ['tool_name'],
};
const STRINGS = ['session_id', 'transcript_path', 'cwd', 'source', 'reason', 'prompt', 'prompt_response', 'tool_name', 'trigger'];

/** Checks an event's stdin: strings where hookwise reads strings, the event's own fields present. */
export function parseInput(
  event: MappedEvent,
  raw: Record<string, unknown>,
): { ok: true; data: GeminiInput } | { ok: false; message: string } {
  for (const name of ['session_id', ...(REQUIRED[event] ?? [])])
    if (typeof raw[name] !== 'string') return { ok: false, message: `${name}: expected a string` };
  for (const name of STRINGS)
    if (raw[name] !== undefined && typeof raw[name] !== 'string') return { ok: false, message: `${name}: expected a string` };
  return { ok: true, data: raw as unknown as GeminiInput };
}
