/**
 * Reading slash-command markdown: the COMPACT_SUMMARY section and the front-matter `type`.
 *
 * AgileFlow's hook took the first `<!-- COMPACT_SUMMARY_START … -->` … END match anywhere in the
 * file. Seven of its own commands show a `sed` usage line that mentions both markers inside a
 * code block above the real section, so that regex extracted the three characters `/,/`. Here a
 * marker counts only when it begins its line outside fenced code, which makes the usage line
 * (and any example inside a code block) invisible.
 */

const START_MARKER = /^ {0,3}<!--\s*COMPACT_SUMMARY_START\b/;
const END_MARKER = /^ {0,3}<!--\s*COMPACT_SUMMARY_END\s*-->/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;

interface Fence {
  character: '`' | '~';
  length: number;
}

/**
 * Tracks CommonMark fenced code blocks line by line. A fence closes only with the same
 * character, at least as long as the opening run, and nothing but spaces after it — so a
 * four-backtick block can show a three-backtick example without ending.
 */
export class FenceTracker {
  private open: Fence | undefined;

  /** Feeds one line; returns true when the line is part of a fence (opening, inside, or closing). */
  consume(line: string): boolean {
    const match = FENCE_OPEN.exec(line);
    if (this.open) {
      if (match && match[1]![0] === this.open.character && match[1]!.length >= this.open.length && match[2]!.trim() === '')
        this.open = undefined;
      return true;
    }
    if (!match) return false;
    const run = match[1]!;
    // A backtick fence's info string may not contain backticks (CommonMark 4.5).
    if (run[0] === '`' && match[2]!.includes('`')) return false;
    this.open = { character: run[0] as '`' | '~', length: run.length };
    return true;
  }

  get inside(): boolean {
    return this.open !== undefined;
  }

  /** The line that would close the current fence, for text cut inside a code block. */
  closingLine(): string | undefined {
    return this.open ? this.open.character.repeat(this.open.length) : undefined;
  }
}

/**
 * The command's compact summary: the text between `<!-- COMPACT_SUMMARY_START … -->` (the
 * comment may span lines) and `<!-- COMPACT_SUMMARY_END -->`, where both markers begin their
 * line outside fenced code. Several sections are joined in order with a blank line. Returns
 * null when the file has no complete section (an unterminated one is ignored).
 */
export function extractCompactSummary(markdown: string): string | null {
  const lines = markdown.replace(/\r\n?/g, '\n').split('\n');
  const fences = new FenceTracker();
  const sections: string[] = [];
  let section: string[] | undefined;
  let insideStartComment = false;
  // A section starts with whatever follows the start comment's `-->` on its line.
  const openSection = (rest: string): string[] => {
    if (rest.trim() === '') return [];
    fences.consume(rest);
    return [rest];
  };

  for (const line of lines) {
    if (insideStartComment) {
      const close = line.indexOf('-->');
      if (close === -1) continue;
      insideStartComment = false;
      section = openSection(line.slice(close + 3));
      continue;
    }
    const wasInsideFence = fences.inside;
    if (!wasInsideFence && START_MARKER.test(line)) {
      // A start inside an open section means that section was never closed: start over.
      const close = line.indexOf('-->');
      if (close === -1) {
        insideStartComment = true;
        section = undefined;
        continue;
      }
      section = openSection(line.slice(close + 3));
      continue;
    }
    if (!wasInsideFence && section && END_MARKER.test(line)) {
      const text = section.join('\n').trim();
      if (text !== '') sections.push(text);
      section = undefined;
      continue;
    }
    fences.consume(line);
    section?.push(line);
  }
  return sections.length > 0 ? sections.join('\n\n') : null;
}

/**
 * The `type:` of the YAML front matter (the `---` block that opens the file), or undefined.
 * AgileFlow's own reader matched `type:` anywhere after the first `---`, so `subagent_type:` or
 * body text such as "type: 1." produced 18 spurious types; only a top-level key counts here.
 */
export function readFrontMatterType(markdown: string): string | undefined {
  const text = markdown.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  if (!text.startsWith('---\n')) return undefined;
  const end = text.indexOf('\n---', 3);
  if (end === -1) return undefined;
  for (const line of text.slice(4, end).split('\n')) {
    const match = /^type:\s*(.*)$/.exec(line);
    if (!match) continue;
    // Strip a trailing YAML comment and quotes: `type: output-only  # generates output`.
    const value = match[1]!
      .replace(/\s+#.*$/, '')
      .trim()
      .replace(/^(['"])(.*)\1$/, '$2');
    return value === '' ? undefined : value;
  }
  return undefined;
}

/**
 * Cuts `text` to at most `maxChars` characters, marker included, at a line break where one is
 * near, closing a code block left open so the rest of the preserved block is not swallowed by
 * it. The marker names the file so the agent can read the whole summary after compaction.
 */
export function cutWithMarker(text: string, maxChars: number, source: string): string {
  if (text.length <= maxChars) return text;
  const marker = (kept: number) => `\n[… summary cut: ${kept} of ${text.length} characters kept; read the full text in ${source}]`;
  // The marker's own length depends on the digits of `kept`; reserve for the longest form.
  const reserve = marker(text.length).length + 8;
  const allowance = Math.max(0, maxChars - reserve);
  let cut = text.lastIndexOf('\n', allowance);
  if (cut < allowance * 0.6) cut = allowance; // no line break near the limit: cut mid-line rather than lose most of it
  let kept = text.slice(0, cut).trimEnd();
  const fences = new FenceTracker();
  for (const line of kept.split('\n')) fences.consume(line);
  const closing = fences.closingLine();
  if (closing !== undefined) {
    // Make room for the closing fence by dropping a little more text if needed.
    const room = allowance - closing.length - 1;
    if (kept.length > room) kept = kept.slice(0, Math.max(0, room)).trimEnd();
    kept = `${kept}\n${closing}`;
  }
  const result = `${kept}${marker(kept.length)}`;
  return result.length <= maxChars ? result : result.slice(0, maxChars);
}
