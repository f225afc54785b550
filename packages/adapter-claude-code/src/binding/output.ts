import type { MergedOutcome } from '@hookwise/core';
import {
  capText as capKitText,
  noticeIn,
  renderHookJson,
  type EventResult as KitEventResult,
  type HookOutputFormat,
} from '@hookwise/core/command-hook';
import type { MappedEvent } from './events.js';

// Claude Code's word for the compact action: its own slash command.
export const CLAUDE_CODE_WORDING = { compact: 'Consider /compact now.' };

/** Claude Code saves any hook output string longer than this to a file and gives the model a preview. */
export const OUTPUT_CHARACTER_CAP = 10_000;

/** Cuts `text` to fewer than {@link OUTPUT_CHARACTER_CAP} characters with a visible marker (see the kit's `capText`). */
export const capText = (text: string, cap = OUTPUT_CHARACTER_CAP - 1): string => capKitText(text, cap);

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

/** What the plugins decided, in host-neutral terms (`updatedToolOutput`: PostToolUse's replacement, which Claude Code 2.1.330 checks against the tool's output schema). */
export type EventResult = KitEventResult;

/**
 * The notices of an outcome as the user sees them. Under Claude Code: each plugin's statement,
 * then its offers in Claude Code's terms (plugins word no host's commands), joined the way the
 * engine joins them. Under the Agent SDK, where the app decides what a slash command does, the
 * engine's host-neutral text.
 */
export function noticeOf(merged: Pick<MergedOutcome, 'notice' | 'notices'> | undefined, host: string): string | undefined {
  return noticeIn(merged, host === 'claude-code' ? CLAUDE_CODE_WORDING : undefined);
}

/** What to print: one JSON object, plain text (PreCompact only), or nothing. */
export type RenderedOutput = { kind: 'json'; value: HookJsonOutput } | { kind: 'text'; value: string } | { kind: 'none' };

/** Which events accept which output fields. */
const FORMAT: HookOutputFormat = {
  // PreCompact's context is plain stdout (below); SubagentStop's goes to the orchestrator instead.
  context: new Set<MappedEvent>([
    'SessionStart',
    'UserPromptSubmit',
    'UserPromptExpansion',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'Stop',
  ]),
  noNotice: new Set<MappedEvent>(['PreCompact', 'PostCompact', 'SessionEnd']),
  decision: new Set<MappedEvent>(['UserPromptSubmit', 'UserPromptExpansion', 'Stop', 'PreCompact']),
  deny: new Set<MappedEvent>(['PreToolUse']),
  cap: OUTPUT_CHARACTER_CAP - 1,
};

const nonEmpty = (text: string | undefined): text is string => typeof text === 'string' && text.trim() !== '';

/**
 * Maps a result to the form `event` accepts, emitting only fields that event has (see the kit's
 * `renderHookJson`); on PreCompact the context is plain stdout (Claude Code adds it to the
 * compaction instructions) unless a block was decided; updatedToolOutput on PostToolUse only.
 */
export function renderOutput(event: MappedEvent, result: EventResult): RenderedOutput {
  if (event === 'PreCompact' && nonEmpty(result.context) && !(result.block && nonEmpty(result.block.reason)))
    // Text that starts like JSON would be parsed as (invalid) hook JSON instead of used as instructions.
    return {
      kind: 'text',
      value: capText(result.context.trimStart().startsWith('{') ? `Compaction instructions:\n${result.context}` : result.context),
    };
  const extra =
    event === 'PostToolUse' && result.updatedToolOutput !== undefined
      ? { updatedToolOutput: capStrings(result.updatedToolOutput) }
      : undefined;
  const value = renderHookJson(event, result, FORMAT, extra);
  return value ? { kind: 'json', value: value as HookJsonOutput } : { kind: 'none' };
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
