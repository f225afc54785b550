import type { PointName } from '@hookwise/core';
import { BASE_INPUT_FIELDS, createInputParser, hostEvents, type InputFields, type InputOf } from '@hookwise/core/command-hook';

/**
 * THE Codex event map: which lifecycle points each event feeds; `hookwise init` registers an
 * event for the points it feeds. SessionStart with source `compact` also feeds `compact:after`:
 * Codex's compaction drops every earlier hook context, and only what SessionStart(compact) adds
 * reaches the model, so PostCompact's context is kept for it (core's engine runs one
 * compaction's hooks once). No event lets a hook rewrite the request (no `llm:before`).
 */
export const EVENT_POINTS = {
  SessionStart: ['session:start', 'compact:after'],
  UserPromptSubmit: ['prompt:submit'],
  PreToolUse: ['tool:before'],
  PostToolUse: ['tool:after'],
  PreCompact: ['compact:before'],
  PostCompact: ['compact:after'],
  SubagentStop: ['phase:end'],
  Stop: ['agent:stop'],
  SessionEnd: ['session:end'],
} as const satisfies Record<string, readonly PointName[]>;

export type MappedEvent = keyof typeof EVENT_POINTS;

/** Every hook event Codex CLI 0.169.0 knows (the hook schemas in its binary): the mapped ones and these. */
const UNMAPPED = ['PermissionRequest', 'SubagentStart', 'Interrupt', 'PreModelRequest', 'PostModelRequest'] as const;
export type CodexEvent = MappedEvent | (typeof UNMAPPED)[number];
export const { all: CODEX_EVENTS, isEvent: isCodexEvent, isMapped: isMappedEvent } = hostEvents(EVENT_POINTS, UNMAPPED);

/** What each event's stdin carries (Codex 0.169.0's hook schemas); unknown fields pass through. */
const BASE = { ...BASE_INPUT_FIELDS, model: 'string?', turn_id: 'string?' } as const;
const INPUT_FIELDS = {
  SessionStart: { ...BASE, source: 'string?' },
  UserPromptSubmit: { ...BASE, prompt: 'string' },
  PreToolUse: { ...BASE, tool_name: 'string', tool_input: 'unknown?', tool_use_id: 'string?' },
  PostToolUse: { ...BASE, tool_name: 'string', tool_input: 'unknown?', tool_response: 'unknown?', tool_use_id: 'string?' },
  PreCompact: { ...BASE, trigger: 'string?' },
  PostCompact: { ...BASE, trigger: 'string?' },
  SubagentStop: { ...BASE, agent_transcript_path: 'string?', last_assistant_message: 'text?', stop_hook_active: 'boolean?' },
  Stop: { ...BASE, stop_hook_active: 'boolean?', last_assistant_message: 'text?' },
  SessionEnd: { ...BASE, reason: 'string?' },
} as const satisfies Record<MappedEvent, InputFields>;

export type HookInputOf<E extends MappedEvent> = InputOf<(typeof INPUT_FIELDS)[E]>;
export type AnyHookInput = HookInputOf<MappedEvent>;

const parser = createInputParser(INPUT_FIELDS);
export const parseHookInput = <E extends MappedEvent>(
  event: E,
  raw: unknown,
): { ok: true; data: HookInputOf<E> } | { ok: false; message: string } => parser.parse(event, raw);
