import type { SessionHost } from './replay-result.js';

/** Small formatting helpers shared by the text and HTML renderers. */

export { formatTokens as formatNumber } from '@hookwise/core/plugin';

export const formatPercent = (part: number, whole: number): string => (whole > 0 ? `${Math.round((part / whole) * 100)}%` : '–');

/** `142,431` → `142k`, for axis labels. */
export function formatShort(value: number): string {
  if (value >= 1_000_000) return `${Number((value / 1_000_000).toFixed(1))}M`;
  if (value >= 1_000) return `${Math.round(value / 1_000)}k`;
  return String(Math.round(value));
}

/** One line, at most `max` characters: transcript-derived text must not flood a terminal or a table. */
export function clip(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  // At a word's end when there is one in the second half, so no word is cut in two.
  const space = flat.lastIndexOf(' ', max - 1);
  return `${flat.slice(0, space > max / 2 ? space : max - 1)}…`;
}

/**
 * Transcript-derived text with terminal control sequences removed (a transcript may carry ANSI
 * escapes, as Claude Code's local-command output does, or worse).
 */
export function stripControl(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/**
 * What the report says of each host whose session file it reads: its name, what its file is
 * (and what a report's "line" is there), and whether hookwise runs before every request there.
 */
const SESSION_HOSTS: Record<SessionHost, { name: string; file: string; rewritesRequests: boolean }> = {
  'claude-code': { name: 'Claude Code', file: 'a transcript, JSONL', rewritesRequests: false },
  opencode: { name: 'OpenCode', file: "an `opencode export` JSON; a line number is the message's position in it", rewritesRequests: true },
  kilo: { name: 'Kilo', file: "a `kilo export` JSON; a line number is the message's position in it", rewritesRequests: true },
  pi: { name: 'pi', file: 'a session file, JSONL; its active branch', rewritesRequests: true },
  cline: { name: 'Cline', file: "a session's <id>.messages.json; a line number is the message's position in it", rewritesRequests: true },
  codex: { name: 'Codex CLI', file: 'a rollout file, JSONL; cache reads are its cached_input_tokens', rewritesRequests: false },
  gemini: {
    name: 'Gemini CLI',
    file: 'a chat session file, JSONL; input tokens include the implicitly cached ones, which cost no write',
    rewritesRequests: false,
  },
};

/** One line: where the session came from, and what a report's "line" is there. */
export function sessionHostText(host: SessionHost): string {
  const { name, file } = SESSION_HOSTS[host];
  return `host: ${name} (${file})`;
}

/**
 * The heading over the `llm:before` figures: where hookwise runs before every request they are
 * what it did; where a host's hooks cannot rewrite its requests (Claude Code, Gemini CLI) they
 * are what such a host would have sent, never that host's own.
 */
export function requestTransformsHeading(host: SessionHost): string {
  const { name, rewritesRequests } = SESSION_HOSTS[host];
  return rewritesRequests
    ? `What hookwise did before every request in ${name}`
    : `In a host that runs hookwise before every request (OpenCode, pi, AI SDK apps; not ${name}, whose hooks cannot rewrite its requests)`;
}
