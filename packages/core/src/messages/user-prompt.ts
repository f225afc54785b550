import type { Message } from './message-model.js';

// Text Claude Code writes into user messages that the user did not type: the printed output of a
// local command (`/context`, `/cost`), the caveat before it, the marker of an interrupted turn,
// and reminders it attaches.
const SYNTHETIC_TEXT = /^\s*(?:<local-command-(?:stdout|stderr|caveat)>|\[Request interrupted by user|<system-reminder>)/;
// Any character `trim` keeps (regexp `\s` is trim's set): found without copying a long text.
const NOT_BLANK = /\S/;

/**
 * The one "is this a real user prompt" rule: a user message with text the user wrote (a slash
 * command they ran included) or an image, and no tool result. Not prompts: tool-result carriers,
 * a compaction's summary, Claude Code's meta lines (`isMeta`, kept in
 * `providerMetadata.claudeCode`) and synthetic text (local command output, the interruption
 * marker, system reminders).
 */
export function isUserPrompt(message: Message): boolean {
  if (message.role !== 'user' || message.compactSummary === true) return false;
  let hasContent = false;
  for (const part of message.parts) {
    if (part.type === 'tool-result') return false;
    if (part.type === 'image') hasContent = true;
    else if (part.type === 'text' && NOT_BLANK.test(part.text) && !SYNTHETIC_TEXT.test(part.text)) hasContent = true;
  }
  // Checked last: result carriers, by far the most common user messages, never get here.
  const claudeCode = message.providerMetadata?.['claudeCode'] as { isMeta?: unknown } | undefined;
  return hasContent && claudeCode?.isMeta !== true;
}
