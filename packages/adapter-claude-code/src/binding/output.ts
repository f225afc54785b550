import { joinText, type MergedOutcome } from '@hookwise/core';
import { noticeText } from '@hookwise/core/host';
import type { MappedEvent } from './events.js';

// Claude Code's word for the compact action: its own slash command.
const CLAUDE_CODE_WORDING = { compact: 'Consider /compact now.' };

/** Claude Code saves any hook output string longer than this to a file and gives the model a preview. */
export const OUTPUT_CHARACTER_CAP = 10_000;

/**
 * Cuts `text` to fewer than {@link OUTPUT_CHARACTER_CAP} characters with a visible marker, so
 * what the model gets is the text and not a file path with a preview.
 */
export function capText(text: string, cap = OUTPUT_CHARACTER_CAP - 1): string {
  if (text.length <= cap) return text;
  const marker = `\n[… cut by hookwise: ${text.length - cap} more characters]`;
  let end = cap - marker.length;
  // Do not split a surrogate pair: half of one is invalid UTF-16 and breaks JSON consumers.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end) + marker;
}

/** The JSON a command hook prints (and an Agent SDK callback returns). Only fields hookwise emits. */
export type HookJsonOutput = {
  systemMessage?: string;
  decision?: 'block';
  reason?: string;
  hookSpecificOutput?: HookSpecificOutput;
};

export type HookSpecificOutput =
  | { hookEventName: 'SessionStart'; additionalContext?: string }
  | { hookEventName: 'UserPromptSubmit'; additionalContext?: string }
  | { hookEventName: 'UserPromptExpansion'; additionalContext?: string }
  | { hookEventName: 'PreToolUse'; additionalContext?: string; permissionDecision?: 'deny'; permissionDecisionReason?: string }
  | { hookEventName: 'PostToolUse'; additionalContext?: string; updatedToolOutput?: unknown }
  | { hookEventName: 'PostToolUseFailure'; additionalContext?: string }
  | { hookEventName: 'Stop'; additionalContext?: string }
  | { hookEventName: 'SubagentStop'; additionalContext?: string };

/** What the plugins decided, in host-neutral terms. */
export interface EventResult {
  context?: string | undefined;
  notice?: string | undefined;
  block?: { reason: string } | undefined;
  /**
   * PostToolUse: the replacement of the tool's output (a `tool:after` transform, or a
   * sub-agent's hand-off summary). Claude Code 2.1.330 checks it against the tool's output
   * schema and keeps the original when it does not match, so it must have the output's shape.
   */
  updatedToolOutput?: unknown;
}

/**
 * The notices of an outcome as the user sees them. Under Claude Code: each plugin's statement,
 * then its offers in Claude Code's terms (plugins word no host's commands), joined the way the
 * engine joins them. Under the Agent SDK, where the app decides what a slash command does, the
 * engine's host-neutral text.
 */
export function noticeOf(merged: Pick<MergedOutcome, 'notice' | 'notices'> | undefined, host: string): string | undefined {
  if (host !== 'claude-code') return merged?.notice;
  let text: string | undefined;
  for (const notice of merged?.notices ?? [])
    text = joinText(text, noticeText({ text: notice.statement, actions: notice.actions }, CLAUDE_CODE_WORDING), 'notice');
  return text;
}

/** What to print: one JSON object, plain text (PreCompact only), or nothing. */
export type RenderedOutput = { kind: 'json'; value: HookJsonOutput } | { kind: 'text'; value: string } | { kind: 'none' };

/** Events whose `hookSpecificOutput.additionalContext` reaches the model. */
const CONTEXT_EVENTS = new Set<MappedEvent>([
  'SessionStart',
  'UserPromptSubmit',
  'UserPromptExpansion',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'Stop',
]);
/** Events that discard `systemMessage` (or all JSON). */
const NO_NOTICE_EVENTS = new Set<MappedEvent>(['PreCompact', 'PostCompact', 'SessionEnd']);
/** Events with a top-level `decision: "block"`. */
const DECISION_EVENTS = new Set<MappedEvent>(['UserPromptSubmit', 'UserPromptExpansion', 'Stop', 'PreCompact']);

const nonEmpty = (text: string | undefined): text is string => typeof text === 'string' && text.trim() !== '';

/**
 * Maps a result to the form `event` accepts, emitting only fields that event has:
 * - context: `hookSpecificOutput.additionalContext`; on PreCompact plain stdout (Claude Code
 *   adds it to the compaction instructions); dropped on PostCompact, SessionEnd and
 *   SubagentStop (the host routes a sub-agent's context to the orchestrator instead);
 * - notice: `systemMessage`, except where Claude Code discards it;
 * - block: `permissionDecision: "deny"` on PreToolUse, `decision: "block"` where the event has it;
 * - updatedToolOutput: PostToolUse only.
 */
export function renderOutput(event: MappedEvent, result: EventResult): RenderedOutput {
  const output: HookJsonOutput = {};
  const specific: Record<string, unknown> = {};

  if (result.block && nonEmpty(result.block.reason)) {
    const reason = capText(result.block.reason);
    if (event === 'PreToolUse') {
      specific.permissionDecision = 'deny';
      specific.permissionDecisionReason = reason;
    } else if (DECISION_EVENTS.has(event)) {
      output.decision = 'block';
      output.reason = reason;
    }
  }

  if (nonEmpty(result.context)) {
    if (event === 'PreCompact') {
      // A block has already been decided above; instructions would be moot then.
      // Text that starts like JSON would be parsed as (invalid) hook JSON instead of used as instructions.
      if (output.decision === undefined)
        return {
          kind: 'text',
          value: capText(result.context.trimStart().startsWith('{') ? `Compaction instructions:\n${result.context}` : result.context),
        };
    } else if (CONTEXT_EVENTS.has(event)) {
      specific.additionalContext = capText(result.context);
    }
  }

  if (event === 'PostToolUse' && result.updatedToolOutput !== undefined) specific.updatedToolOutput = capStrings(result.updatedToolOutput);

  if (nonEmpty(result.notice) && !NO_NOTICE_EVENTS.has(event)) output.systemMessage = capText(result.notice);

  if (Object.keys(specific).length > 0) output.hookSpecificOutput = { hookEventName: event, ...specific } as HookSpecificOutput;
  return Object.keys(output).length > 0 ? { kind: 'json', value: output } : { kind: 'none' };
}

/**
 * Caps every string inside a JSON-like value (a replaced tool output), keeping the shape: the
 * same keys and types, so the host's schema check still passes.
 */
function capStrings(value: unknown): unknown {
  if (typeof value === 'string') return capText(value);
  if (Array.isArray(value)) return value.map(capStrings);
  if (typeof value === 'object' && value !== null)
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, capStrings(inner)]));
  return value;
}

/** The bytes to write on stdout: exactly one JSON object, plain text, or nothing. */
export function serializeOutput(rendered: RenderedOutput): string {
  if (rendered.kind === 'json') return JSON.stringify(rendered.value);
  if (rendered.kind === 'text') return rendered.value;
  return '';
}
