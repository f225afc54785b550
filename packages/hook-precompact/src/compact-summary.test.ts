import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cutWithMarker, extractCompactSummary, readFrontMatterType } from './compact-summary.js';

const agileflow = (name: string) => readFileSync(new URL(`../../../fixtures/agileflow-commands/${name}`, import.meta.url), 'utf8');

describe('extractCompactSummary', () => {
  it('returns the text between the markers, trimmed', () => {
    expect(extractCompactSummary('intro\n<!-- COMPACT_SUMMARY_START -->\n\nkeep me\n\n<!-- COMPACT_SUMMARY_END -->\nrest')).toBe('keep me');
  });

  it('returns null without markers, with only a start, or with only an end', () => {
    expect(extractCompactSummary('# nothing here')).toBeNull();
    expect(extractCompactSummary('<!-- COMPACT_SUMMARY_START -->\nnever closed')).toBeNull();
    expect(extractCompactSummary('text\n<!-- COMPACT_SUMMARY_END -->')).toBeNull();
  });

  it('accepts a start comment that spans lines, and text after its closing -->', () => {
    expect(extractCompactSummary('<!-- COMPACT_SUMMARY_START\nextracted by the hook\n-->\nbody\n<!-- COMPACT_SUMMARY_END -->')).toBe(
      'body',
    );
    expect(extractCompactSummary('<!-- COMPACT_SUMMARY_START note --> same line\nnext\n<!-- COMPACT_SUMMARY_END -->')).toBe(
      'same line\nnext',
    );
  });

  it('ignores markers that do not begin their line', () => {
    const text =
      "sed -n '/<!-- COMPACT_SUMMARY_START -->/,/<!-- COMPACT_SUMMARY_END -->/p'\n<!-- COMPACT_SUMMARY_START -->\nreal\n<!-- COMPACT_SUMMARY_END -->";
    expect(extractCompactSummary(text)).toBe('real');
  });

  it('ignores markers inside fenced code blocks, before and inside a section', () => {
    const text = [
      '```md',
      '<!-- COMPACT_SUMMARY_START -->',
      'example',
      '<!-- COMPACT_SUMMARY_END -->',
      '```',
      '<!-- COMPACT_SUMMARY_START -->',
      'real',
      '~~~',
      '<!-- COMPACT_SUMMARY_END -->',
      '~~~',
      'still real',
      '<!-- COMPACT_SUMMARY_END -->',
    ].join('\n');
    expect(extractCompactSummary(text)).toBe('real\n~~~\n<!-- COMPACT_SUMMARY_END -->\n~~~\nstill real');
  });

  it('a start marker shown in a code block opens nothing', () => {
    expect(extractCompactSummary('```\n<!-- COMPACT_SUMMARY_START -->\n```\nplain text\n<!-- COMPACT_SUMMARY_END -->')).toBeNull();
  });

  it('closes a fence only with the same character and at least the same length', () => {
    const text = [
      '````',
      '```',
      '<!-- COMPACT_SUMMARY_START -->',
      'inside',
      '```',
      '<!-- COMPACT_SUMMARY_END -->',
      '````',
      '<!-- COMPACT_SUMMARY_START -->',
      'outside',
      '<!-- COMPACT_SUMMARY_END -->',
    ].join('\n');
    expect(extractCompactSummary(text)).toBe('outside');
  });

  it('joins several valid sections in order with a blank line', () => {
    const text =
      '<!-- COMPACT_SUMMARY_START -->\none\n<!-- COMPACT_SUMMARY_END -->\nmiddle\n<!-- COMPACT_SUMMARY_START -->\ntwo\n<!-- COMPACT_SUMMARY_END -->';
    expect(extractCompactSummary(text)).toBe('one\n\ntwo');
  });

  it('drops an unterminated section when a new start follows, and empty sections', () => {
    const text =
      '<!-- COMPACT_SUMMARY_START -->\nlost\n<!-- COMPACT_SUMMARY_START -->\nkept\n<!-- COMPACT_SUMMARY_END -->\n<!-- COMPACT_SUMMARY_START -->\n\n<!-- COMPACT_SUMMARY_END -->';
    expect(extractCompactSummary(text)).toBe('kept');
  });

  it('reads CRLF files', () => {
    expect(extractCompactSummary('<!-- COMPACT_SUMMARY_START -->\r\nwindows\r\n<!-- COMPACT_SUMMARY_END -->\r\n')).toBe('windows');
  });

  describe('on AgileFlow 3.4.3 commands', () => {
    it('ci.md: skips the sed usage line and returns the real section, not "/,/"', () => {
      const summary = extractCompactSummary(agileflow('ci.md'));
      expect(summary).not.toBe('/,/');
      expect(summary?.startsWith('## ⚠️ COMPACT SUMMARY - /agileflow:ci-setup IS ACTIVE')).toBe(true);
      expect(summary).not.toContain('sed -n');
      expect(summary).toHaveLength(4598);
    });

    it('sprint.md: the three-line start comment is not part of the summary', () => {
      const summary = extractCompactSummary(agileflow('sprint.md'));
      expect(summary?.startsWith('## Compact Summary\n\nSprint Planner')).toBe(true);
      expect(summary).not.toContain('This section is extracted by the PreCompact hook');
      expect(summary).toHaveLength(4516);
    });

    it('story/list.md and babysit.md: whole sections (babysit is the largest, 13,395 characters)', () => {
      expect(extractCompactSummary(agileflow('story/list.md'))).toHaveLength(504);
      const babysit = extractCompactSummary(agileflow('babysit.md'));
      expect(babysit).toHaveLength(13_395);
      expect(babysit?.endsWith('**YOUR RESPONSE MUST END WITH `AskUserQuestion` TOOL CALL.**')).toBe(true);
    });
  });
});

describe('readFrontMatterType', () => {
  it('reads a top-level type from the front matter, without its comment or quotes', () => {
    expect(readFrontMatterType(agileflow('research/ask.md'))).toBe('output-only');
    expect(readFrontMatterType('---\ntype: "interactive"\n---\nbody')).toBe('interactive');
  });

  it('ignores type: in the body, nested keys and look-alike keys', () => {
    expect(readFrontMatterType(agileflow('babysit.md'))).toBeUndefined();
    expect(
      readFrontMatterType('---\ndescription: x\nsubagent_type: output-only\nnested:\n  type: output-only\n---\ntype: output-only'),
    ).toBeUndefined();
    expect(readFrontMatterType('no front matter\ntype: output-only')).toBeUndefined();
    expect(readFrontMatterType('---\ntype: output-only\nno closing fence')).toBeUndefined();
  });
});

describe('cutWithMarker', () => {
  it('leaves text that fits unchanged', () => {
    expect(cutWithMarker('short', 100, 'x.md')).toBe('short');
  });

  it('cuts to the limit with a visible marker naming the file', () => {
    const text = Array.from({ length: 200 }, (_value, index) => `line ${index} of the summary`).join('\n');
    const cut = cutWithMarker(text, 1_000, '.claude/commands/babysit.md');
    expect(cut.length).toBeLessThanOrEqual(1_000);
    expect(cut).toMatch(/\[… summary cut: \d+ of \d+ characters kept; read the full text in \.claude\/commands\/babysit\.md\]$/);
    expect(text.startsWith(cut.slice(0, cut.indexOf('\n[… summary cut')))).toBe(true);
  });

  it('closes a code block the cut left open', () => {
    const text = `intro\n\`\`\`ts\n${'const value = 1;\n'.repeat(100)}\`\`\`\nafter`;
    const cut = cutWithMarker(text, 400, 'a.md');
    expect(cut.length).toBeLessThanOrEqual(400);
    expect(cut).toMatch(/\n```\n\[… summary cut/);
  });
});
