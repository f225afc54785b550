/** A slash command the user ran: `/name args`. */
export interface SlashCommand {
  /** As typed, without the slash: `babysit`, `agileflow:story:list`. */
  name: string;
  /** Everything after the name, trimmed (may be empty; may span lines). */
  args: string;
}

// A name starts with a letter or digit and holds letters, digits, `_ . : -`; it ends at
// whitespace or the end of the prompt. So `/usr/bin/x` (a path) is not a command: its name
// would run into a second `/`.
const TYPED = /^\s*\/([A-Za-z0-9][\w.:-]*)(?:\s+([\s\S]*?))?\s*$/;
// How a Claude Code transcript records a command the user ran.
const RECORDED_NAME = /<command-name>\s*\/?([A-Za-z0-9][\w.:-]*)\s*<\/command-name>/;
const RECORDED_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;

/**
 * The one slash-command parser. Reads `/name args` at the start of a prompt (what the user
 * typed, what hosts pass at prompt time) and Claude Code's recorded form in transcripts
 * (`<command-name>/name</command-name><command-args>args</command-args>`). Undefined for any
 * other prompt, `/usr/bin/x` and a lone `/` included. The name is not checked for safety here:
 * whoever turns it into a path validates it.
 */
export function parseSlashCommand(prompt: string): SlashCommand | undefined {
  if (typeof prompt !== 'string') return undefined;
  const typed = TYPED.exec(prompt);
  if (typed) return { name: typed[1]!, args: (typed[2] ?? '').trim() };
  if (!prompt.includes('<command-name>')) return undefined;
  const recorded = RECORDED_NAME.exec(prompt);
  if (!recorded) return undefined;
  return { name: recorded[1]!, args: (RECORDED_ARGS.exec(prompt)?.[1] ?? '').trim() };
}

/** How a host writes its command templates (see {@link expandedCommandOf}). */
export interface TemplateSyntax {
  /** Matches a placeholder in a template (no capture groups of its own): each stands for any text. */
  placeholder: RegExp;
  /** The placeholder whose text is the command's arguments (`{{args}}`). */
  args: string;
  /** A template without the arguments placeholder may get what the user typed (`/name args`) appended after this separator. */
  typedAfter?: string;
}

/** `text` as a regular expression that matches it literally. */
export const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Which custom command a prompt is the expansion of, for a host that expands the command before
 * a hook sees the prompt: the first of `templates` whose text, its placeholders filled with any
 * text, is the whole prompt (trailing whitespace aside), with the arguments it carried (trimmed;
 * '' for none). Undefined when the prompt is no template's expansion.
 */
export function expandedCommandOf(
  prompt: string,
  templates: Iterable<{ name: string; template: string }>,
  syntax: TemplateSyntax,
): SlashCommand | undefined {
  const text = prompt.replace(/\s+$/, '');
  const split = new RegExp(`(${syntax.placeholder.source})`, syntax.placeholder.flags.replace('g', ''));
  for (const { name, template } of templates) {
    // Literal text and placeholders alternate: literal, placeholder, literal, …
    const parts = template.replace(/\s+$/, '').split(split);
    const hasArgs = parts.includes(syntax.args);
    const pattern = parts
      .map((piece, index) => (index % 2 === 0 ? escapeRegExp(piece) : piece === syntax.args ? '([\\s\\S]*?)' : '[\\s\\S]*?'))
      .join('');
    const typed =
      hasArgs || syntax.typedAfter === undefined ? '' : `(?:${escapeRegExp(`${syntax.typedAfter}/${name}`)}(?:\\s+([\\s\\S]*))?)?`;
    const match = new RegExp(`^${pattern}${typed}$`).exec(text);
    if (match) return { name, args: (match.slice(1).find((group) => group !== undefined) ?? '').trim() };
  }
  return undefined;
}
