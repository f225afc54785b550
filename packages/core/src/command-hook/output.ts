import type { EventResult } from './dispatch.js';

/**
 * Cuts `text` to at most `cap` characters with a visible marker (Claude Code saves a longer hook
 * output string to a file and gives the model a preview; the model should get the text).
 */
export function capText(text: string, cap: number): string {
  if (text.length <= cap) return text;
  const marker = `\n[… cut by hookwise: ${text.length - cap} more characters]`;
  let end = cap - marker.length;
  // Do not split a surrogate pair: half of one is invalid UTF-16 and breaks JSON consumers.
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end) + marker;
}

/** Which events of a host accept which of the JSON output fields hookwise emits (Claude Code's shape, which Codex shares). */
export interface HookOutputFormat {
  /** Events whose `hookSpecificOutput.additionalContext` reaches the model. */
  context: ReadonlySet<string>;
  /** Events that discard `systemMessage` (or all JSON). */
  noNotice: ReadonlySet<string>;
  /** Events with a top-level `decision` + `reason`. */
  decision: ReadonlySet<string>;
  /** The word of that top-level decision: `block` (Claude Code, Codex) unless the host says `deny`. */
  decisionWord?: 'block' | 'deny';
  /** Events where a block is `hookSpecificOutput.permissionDecision: "deny"` (PreToolUse). */
  deny: ReadonlySet<string>;
  /** The longest text a field may carry. */
  cap: number;
}

/** The JSON a command hook prints. Only fields hookwise emits. */
export type HookJsonOutput = {
  systemMessage?: string;
  decision?: 'block' | 'deny';
  reason?: string;
  hookSpecificOutput?: { hookEventName: string; [field: string]: unknown };
};

const nonEmpty = (text: string | undefined): text is string => typeof text === 'string' && text.trim() !== '';

/**
 * A result in the JSON form `event` accepts, emitting only fields that event has: context as
 * `hookSpecificOutput.additionalContext`, notice as `systemMessage`, block as
 * `permissionDecision: "deny"` or a top-level `decision`; `extra` fields join `hookSpecificOutput`.
 * Undefined when there is nothing to print.
 */
export function renderHookJson(
  event: string,
  result: EventResult,
  format: HookOutputFormat,
  extra?: Record<string, unknown>,
): HookJsonOutput | undefined {
  const output: HookJsonOutput = {};
  const specific: Record<string, unknown> = {};
  if (result.block && nonEmpty(result.block.reason)) {
    const reason = capText(result.block.reason, format.cap);
    if (format.deny.has(event)) {
      specific.permissionDecision = 'deny';
      specific.permissionDecisionReason = reason;
    } else if (format.decision.has(event)) {
      output.decision = format.decisionWord ?? 'block';
      output.reason = reason;
    }
  }
  if (nonEmpty(result.context) && format.context.has(event)) specific.additionalContext = capText(result.context, format.cap);
  if (extra) Object.assign(specific, extra);
  if (nonEmpty(result.notice) && !format.noNotice.has(event)) output.systemMessage = capText(result.notice, format.cap);
  if (Object.keys(specific).length > 0) output.hookSpecificOutput = { hookEventName: event, ...specific };
  return Object.keys(output).length > 0 ? output : undefined;
}
