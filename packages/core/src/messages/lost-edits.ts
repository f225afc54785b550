import type { TokenCounter } from '../token-counter.js';
import { partTokens } from './estimate.js';
import type { Message, MessagePart, ToolResultPart } from './message-model.js';

/**
 * Lost edits: the observable case of a pruned output the model needed. An edit replaces old
 * text it must quote exactly; when the request that made the edit showed that text only inside a
 * tool output a transformer replaced, the model had to read the file again (or guess). An edit
 * is **sourced** when the untransformed history showed its old text (40 characters or more) and
 * **lost** when the transformed one no longer did.
 */
export const EDIT_TEXT_MIN_CHARS = 40;

// Claude Code's Edit and MultiEdit, OpenCode's edit, pi's edit: the field holding the old text.
const OLD_TEXT_KEYS = ['old_string', 'oldString', 'oldText', 'old_str'];

/** The old texts an edit-like tool call quotes (40 characters or more), whatever the host's field name. */
export function editedTexts(input: unknown): string[] {
  const texts: string[] = [];
  addEditedTexts(input, texts);
  return texts;
}

// Every tool call of a session comes here, most of them no edit: no closure or entry pairs per call.
function addEditedTexts(value: unknown, texts: string[]): void {
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const item of value) addEditedTexts(item, texts);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const field = record[key];
    if (OLD_TEXT_KEYS.includes(key) && typeof field === 'string') {
      if (field.length >= EDIT_TEXT_MIN_CHARS) texts.push(field);
    } else if (key === 'edits') addEditedTexts(field, texts);
  }
}

// Line-number prefixes file readers add: Claude Code's `    12→`, `cat -n`'s tab, OpenCode's `00012| `.
const LINE_NUMBERS = /^ *\d+(?:→|\t|\| ?)/gm;

export interface EditCheck {
  sourced: boolean;
  lost: boolean;
  /** Tokens of the replaced output that showed the text (what a re-read costs); 0 when not lost. */
  rereadTokens: number;
}

/**
 * Checks edits against the requests that made them. Texts are searched in what the model was
 * shown: text parts, tool-call inputs (what it wrote itself) and tool outputs, line numbers
 * stripped. Each part's searchable text is kept per part object.
 */
export class EditChecker {
  private readonly texts = new WeakMap<MessagePart, string>();

  constructor(private readonly counter: TokenCounter) {}

  /**
   * `original`: the history as the host would have sent it; `transformed`: as sent. Copy on
   * write is assumed (an unchanged message or part is the same object in both), and both have
   * the same number of messages.
   */
  check(text: string, original: readonly Message[], transformed: readonly Message[]): EditCheck {
    const source = this.sourceOf(text, original);
    if (source === undefined) return { sourced: false, lost: false, rereadTokens: 0 };
    const { index, part } = source;
    const kept = transformed[index];
    if (kept === original[index] || (kept !== undefined && kept.parts.includes(part)))
      return { sourced: true, lost: false, rereadTokens: 0 };
    if (this.shows(transformed, text)) return { sourced: true, lost: false, rereadTokens: 0 };
    return { sourced: true, lost: true, rereadTokens: partTokens(part, this.counter) };
  }

  /**
   * The newest part of `messages` that shows `text` (searched as {@link check} searches), and
   * its message's index; only messages after index `after` are searched, so a caller that
   * follows a growing history can search what is new.
   */
  sourceOf(text: string, messages: readonly Message[], after = -1): { index: number; part: MessagePart } | undefined {
    const probe = probeOf(text);
    for (let index = messages.length - 1; index > after; index--) {
      for (const part of messages[index]!.parts) if (this.partShows(part, text, probe)) return { index, part };
    }
    return undefined;
  }

  private shows(messages: readonly Message[], text: string): boolean {
    const probe = probeOf(text);
    for (const message of messages) for (const part of message.parts) if (this.partShows(part, text, probe)) return true;
    return false;
  }

  /**
   * Whether the part's searchable text includes `text`. A tool output is stripped of its line
   * numbers (a copy of the whole output) only when it holds `probe` as it is: most outputs a
   * search passes do not show the text at all.
   */
  private partShows(part: MessagePart, text: string, probe: string): boolean {
    let searchable = this.texts.get(part);
    if (searchable === undefined) {
      if (part.type === 'tool-result' && !mayShow(part, probe)) return false;
      searchable = searchableText(part);
      this.texts.set(part, searchable);
    }
    return searchable.includes(text);
  }
}

/** What a part shows, as edits quote it: the plain rule the search follows (`EditChecker` keeps it per part). */
export function searchableText(part: MessagePart): string {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text;
    case 'tool-call':
      return stringsOf(part.input).join('\n');
    case 'tool-result':
      return outputText(part).replace(LINE_NUMBERS, '');
    default:
      return '';
  }
}

function stringsOf(value: unknown, into: string[] = []): string[] {
  if (typeof value === 'string') into.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsOf(item, into);
  else if (value !== null && typeof value === 'object') for (const field of Object.values(value)) stringsOf(field, into);
  return into;
}

function outputText(part: ToolResultPart): string {
  return typeof part.output === 'string' ? part.output : part.output.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
}

// Where `^` matches in a multiline regular expression: after each of these.
const LINE_TERMINATORS = /[\n\r\u2028\u2029]/;

/**
 * The longest stretch of `text` between line terminators. Stripping line numbers takes a prefix
 * off the start of lines and never a line terminator, so whatever stretch of one line a
 * stripped output shows, the output shows as it is: an output without the probe cannot show
 * the text once stripped (lost-edits.test.ts holds this against `searchableText`).
 */
export function probeOf(text: string): string {
  let probe = '';
  for (const stretch of text.split(LINE_TERMINATORS)) if (stretch.length > probe.length) probe = stretch;
  return probe;
}

/** False when the tool output cannot show a text whose {@link probeOf} is `probe`, line numbers stripped or not. */
export function mayShow(part: ToolResultPart, probe: string): boolean {
  return outputText(part).includes(probe);
}
