import type { ToolCallPart, ToolResultContent } from '@hookwise/core';

/** What replaces a pruned output by default: OpenCode's text, so mixed histories read the same. */
export const DEFAULT_PLACEHOLDER = '[Old tool result content cleared]';
/** Every digest starts with this; it is how a digest is recognised as already pruned. */
export const DIGEST_PREFIX = '[Old tool result cleared: ';

// The inputs that say what a call was about, most telling first (Claude Code, OpenCode, MCP tools).
const KEY_INPUT_FIELDS = ['file_path', 'path', 'notebook_path', 'filePath', 'command', 'cmd', 'pattern', 'url', 'query', 'description'] as const;
const KEY_INPUT_MAX = 160;
const ERROR_LINE_MAX = 160;
const ERROR_LINE = /\b(error|errors|failed|failure|fatal|exception|traceback|panic)\b/i;

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The input that identifies a call (path or command), or undefined when there is none. */
export function keyInputOf(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const record = input as Record<string, unknown>;
  for (const field of KEY_INPUT_FIELDS) {
    const value = record[field];
    if (typeof value === 'string' && value.trim() !== '') return oneLine(value, KEY_INPUT_MAX);
  }
  return undefined;
}

/** The text of an output, images left out. */
export function outputText(output: ToolResultContent): string {
  if (typeof output === 'string') return output;
  let text = '';
  for (const item of output) if (item.type === 'text') text += text === '' ? item.text : `\n${item.text}`;
  return text;
}

function firstErrorLine(text: string): string | undefined {
  const match = ERROR_LINE.exec(text);
  if (!match) return undefined;
  const start = text.lastIndexOf('\n', match.index) + 1;
  const newline = text.indexOf('\n', match.index);
  return oneLine(text.slice(start, newline === -1 ? text.length : newline), ERROR_LINE_MAX);
}

const formatNumber = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * One line that tells the model what was there, so it can decide whether to run the tool
 * again: `[Old tool result cleared: Read src/app.ts — 48,213 chars, ~12,054 tokens; first error: …]`.
 */
export function digestOf(toolName: string | undefined, call: ToolCallPart | undefined, output: ToolResultContent, tokens: number): string {
  const text = outputText(output);
  const keyInput = keyInputOf(call?.input);
  const name = toolName ?? call?.toolName ?? 'tool';
  const errorLine = firstErrorLine(text);
  return (
    `${DIGEST_PREFIX}${name}${keyInput === undefined ? '' : ` ${keyInput}`} — ${formatNumber(text.length)} chars, ~${formatNumber(tokens)} tokens` +
    `${errorLine === undefined ? '' : `; first error: ${errorLine}`}]`
  );
}
