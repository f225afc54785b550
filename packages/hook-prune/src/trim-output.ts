/**
 * Trimming an oversized tool output as it arrives, for hosts that cannot rewrite the history
 * later (Claude Code: PostToolUse `updatedToolOutput`). The host checks the replacement against
 * the tool's own output schema and drops it when it does not match, so the replacement keeps
 * the output's shape: the same object with the same fields and types, only long strings cut to
 * their head and tail (and long lists of strings to their first and last entries).
 */

export interface TrimOptions {
  /** Trim only outputs whose text (every string in them) is longer than this. Default 10,000 characters. */
  overChars?: number;
  /** Characters kept from the start of each cut string. Default 6,000. */
  headChars?: number;
  /** Characters kept from the end of each cut string. Default 3,000. */
  tailChars?: number;
}

// A guard for the outlier (a log dump, a wide grep, a fetched page): the outputs of a typical
// session stay well under it, and a cut output keeps its head and tail, where errors and
// summaries are. What it cuts on real sessions is in bench/README.md.
export const DEFAULT_TRIM_OVER_CHARS = 10_000;
export const DEFAULT_TRIM_HEAD_CHARS = 6_000;
export const DEFAULT_TRIM_TAIL_CHARS = 3_000;

/**
 * Tools whose output is never trimmed: what Read returns is what the model edits against (a
 * cut file would make Edit's `old_string` miss), Edit/Write outputs are the model's own change
 * echoed back, and a sub-agent's report (Task, Agent) cannot be had again. By host: Claude
 * Code, OpenCode/Kilo and pi, then Gemini CLI and Cline. MCP tools and everything else are
 * trimmed when oversized.
 */
export const DEFAULT_UNTRIMMED_TOOLS: readonly string[] = Object.freeze([
  'Read',
  'Edit',
  'Write',
  'MultiEdit',
  'NotebookEdit',
  'read',
  'edit',
  'write',
  'Task',
  'Agent',
  'task',
  'read_file',
  'read_many_files',
  'write_file',
  'replace',
  'read_files',
  'editor',
  'spawn_agent',
]);

export interface TrimmedOutput {
  /** The replacement: same shape as the output. */
  value: unknown;
  /** The full text of every cut string, to save where the model can read it. */
  fullText: string;
  /** Characters of the output's text before and after. */
  charsBefore: number;
  charsAfter: number;
}

/** Characters of every string inside a JSON-like value. */
export function textLength(value: unknown): number {
  if (typeof value === 'string') return value.length;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + textLength(item), 0);
  if (typeof value === 'object' && value !== null) return Object.values(value).reduce((sum: number, item) => sum + textLength(item), 0);
  return 0;
}

/** Cuts at a character boundary that does not split a surrogate pair. */
function safeEnd(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}

const formatNumber = (value: number) => String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * The output with every string longer than head + tail cut to head, one line naming where the
 * full text is, and tail; and every list of strings longer than head + tail characters cut to
 * its first and last entries with that line between them. Undefined when the output is not
 * over `overChars` or nothing in it can be cut (a big object of many small fields).
 * `note(cutChars)` writes the line; it is the same line in every cut place.
 */
export function trimToolOutput(output: unknown, note: (cutChars: number) => string, options: TrimOptions = {}): TrimmedOutput | undefined {
  const overChars = options.overChars ?? DEFAULT_TRIM_OVER_CHARS;
  const headChars = options.headChars ?? DEFAULT_TRIM_HEAD_CHARS;
  const tailChars = options.tailChars ?? DEFAULT_TRIM_TAIL_CHARS;
  const charsBefore = textLength(output);
  if (charsBefore <= overChars) return undefined;
  const keep = headChars + tailChars;
  const sections: Array<{ where: string; text: string }> = [];

  const cutString = (text: string, where: string): string => {
    if (text.length <= keep + 200) return text;
    const head = safeEnd(text, headChars);
    let tail = text.length - tailChars;
    if (tail > 0 && text.charCodeAt(tail) >= 0xdc00 && text.charCodeAt(tail) <= 0xdfff) tail += 1;
    sections.push({ where, text });
    return `${text.slice(0, head)}\n${note(tail - head)}\n${text.slice(tail)}`;
  };

  const walk = (value: unknown, where: string): unknown => {
    if (typeof value === 'string') return cutString(value, where);
    if (Array.isArray(value)) {
      if (value.length > 2 && value.every((item) => typeof item === 'string') && textLength(value) > keep) {
        const items = value as string[];
        let headCount = 0;
        for (let used = 0; headCount < items.length && used + items[headCount]!.length <= headChars; headCount++)
          used += items[headCount]!.length;
        let tailCount = 0;
        for (
          let used = 0;
          tailCount < items.length - headCount && used + items[items.length - 1 - tailCount]!.length <= tailChars;
          tailCount++
        )
          used += items[items.length - 1 - tailCount]!.length;
        if (headCount + tailCount < items.length) {
          const cut = items.slice(headCount, items.length - tailCount);
          sections.push({ where, text: items.join('\n') });
          return [...items.slice(0, headCount), note(textLength(cut)), ...items.slice(items.length - tailCount)];
        }
        return value;
      }
      return value.map((item, index) => walk(item, `${where}[${index}]`));
    }
    if (typeof value === 'object' && value !== null) {
      const result: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(value)) result[key] = walk(inner, where === '' ? key : `${where}.${key}`);
      return result;
    }
    return value;
  };

  const value = walk(output, '');
  if (sections.length === 0) return undefined;
  // One cut string is saved as it was; several under a header naming the field each.
  const fullText =
    sections.length === 1 ? sections[0]!.text : sections.map((section) => `=== ${section.where} ===\n${section.text}`).join('\n\n');
  return { value, fullText, charsBefore, charsAfter: textLength(value) };
}

/** The line a cut output carries in place of what was cut. */
export function trimNote(cutChars: number, savedPath: string): string {
  return `[… ${formatNumber(cutChars)} characters cut by hookwise; the full output is in ${savedPath} — read that file for the rest]`;
}
