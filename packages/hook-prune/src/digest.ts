import type { ToolCallPart, ToolResultContent } from '@hookwise/core/messages';

/** What replaces a pruned output by default: OpenCode's text, so mixed histories read the same. */
export const DEFAULT_PLACEHOLDER = '[Old tool result content cleared]';
/** Every digest starts with this; it is how a digest is recognised as already pruned. */
export const DIGEST_PREFIX = '[Old tool result cleared: ';

// A recall placeholder (`recallOf`): one line, `[… cleared]` or `[… cleared; <how to get it back>]`.
const RECALL = /^\[[^\n]+ cleared(?:; [^\n\]]+)?\]$/;

/** Whether an output is a placeholder or digest left by a pruner (this one, OpenCode, tunacode). */
export function isPrunedOutput(output: ToolResultContent, placeholder: string = DEFAULT_PLACEHOLDER): boolean {
  // Short strings only: a placeholder is one line, and a 50 KB output is rejected on length alone.
  return (
    typeof output === 'string' &&
    output.length < 1_024 &&
    (output === placeholder || output === DEFAULT_PLACEHOLDER || output.startsWith(DIGEST_PREFIX) || RECALL.test(output))
  );
}

// The inputs that say what a call was about, most telling first (Claude Code, OpenCode, MCP tools).
const KEY_INPUT_FIELDS = [
  'file_path',
  'path',
  'notebook_path',
  'filePath',
  'command',
  'cmd',
  'pattern',
  'url',
  'query',
  'description',
] as const;
const KEY_INPUT_MAX = 160;
const RECALL_INPUT_MAX = 60;
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

const THOUSANDS = /\B(?=(\d{3})+(?!\d))/g;

/** 12345 → "12,345". */
export function formatNumber(value: number): string {
  return String(value).replace(THOUSANDS, ',');
}

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

// Line numbers a file reader prints: Claude Code's `    12→`, `cat -n`'s tab, OpenCode's `00012| `.
const LINE_NUMBER = /^ *(\d+)(?:\u2192|\t|\| )/;

/** The first and last line numbers an output shows, or undefined when it shows none. */
function shownLines(text: string): [number, number] | undefined {
  const first = LINE_NUMBER.exec(text);
  if (first === null) return undefined;
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1]!)) end--;
  const last = LINE_NUMBER.exec(text.slice(text.lastIndexOf('\n', end - 1) + 1, end));
  return [Number(first[1]), last === null ? Number(first[1]) : Number(last[1])];
}

/**
 * What replaces a pruned output by default under the cache-aware policy: what was there and how
 * to get it back, so a model that needs it runs the tool again rather than guesses
 * (`[Read of src/x.ts, lines 1–200, cleared; read it again to edit it]`,
 * `[Bash \`npm test\` output cleared]`).
 */
export function recallOf(
  toolName: string | undefined,
  call: ToolCallPart | undefined,
  output: ToolResultContent,
  file: string | undefined,
): string {
  const name = toolName ?? call?.toolName ?? 'tool';
  if (file !== undefined) {
    const lines = shownLines(outputText(output));
    const span = lines === undefined ? '' : lines[0] === lines[1] ? `, line ${lines[0]},` : `, lines ${lines[0]}–${lines[1]},`;
    return `[${name} of ${oneLine(file, KEY_INPUT_MAX)}${span} cleared; read it again to edit it]`;
  }
  const keyInput = keyInputOf(call?.input);
  return keyInput === undefined
    ? `[${name} output cleared]`
    : `[${name} \`${oneLine(keyInput, RECALL_INPUT_MAX).replace(/`/g, "'")}\` output cleared]`;
}

/** Every digested input field starts with this; it is how a digested input is recognised. */
export const INPUT_DIGEST_PREFIX = '[Old input cleared: ';

/**
 * Tools whose input is content already on disk once the call succeeded (Claude Code, OpenCode,
 * Codex-style patch tools): their old inputs can be replaced by a digest. On by default because
 * it decides whether anything is freed at all on a typical coding session (the README's "What
 * the defaults buy").
 */
export const DEFAULT_DIGEST_INPUT_TOOLS: readonly string[] = Object.freeze([
  'Write',
  'Edit',
  'MultiEdit',
  'NotebookEdit',
  'write',
  'edit',
  'multiedit',
  'patch',
  'apply_patch',
]);

/** An input field shorter than this stays: its digest (about 50 chars) would not be much shorter. */
export const INPUT_FIELD_MIN_CHARS = 120;

// Fields that say where the content went: never digested, whatever their length.
const LOCATION_FIELDS = new Set<string>([
  'file_path',
  'path',
  'notebook_path',
  'filePath',
  'cell_id',
  'replace_all',
  'edit_mode',
  'cell_type',
]);

const hex32 = (value: number) => (value >>> 0).toString(16).padStart(8, '0');

/** FNV-1a (32-bit) of the text, twice with different seeds: a cheap, stable fingerprint, not a security hash. */
export function fingerprint(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    a = Math.imul(a ^ code, 0x01000193);
    b = Math.imul(b ^ code, 0x5bd1e995);
  }
  return hex32(a) + hex32(b);
}

const isDigestedField = (value: unknown) => typeof value === 'string' && value.startsWith(INPUT_DIGEST_PREFIX);

/**
 * The input with every large content field (a string of 120 chars or more, or an array/object
 * whose JSON is) replaced by its size and hash: `[Old input cleared: 12,345 chars, hash 1a2b3c4d5e6f7a8b]`.
 * The tool name and the location fields (`file_path`, `path`…) stay, so the call still says
 * what was written where. Undefined when nothing would change (no large field, or already digested).
 */
export function digestInput(input: unknown): Record<string, unknown> | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const record = input as Record<string, unknown>;
  let digested: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    if (LOCATION_FIELDS.has(key)) continue;
    const value = record[key];
    if (value === undefined || value === null || isDigestedField(value)) continue;
    const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : undefined;
    if (text === undefined || text.length < INPUT_FIELD_MIN_CHARS) continue;
    digested ??= { ...record };
    digested[key] = `${INPUT_DIGEST_PREFIX}${formatNumber(text.length)} chars, hash ${fingerprint(text)}]`;
  }
  return digested;
}
