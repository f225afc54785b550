import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createCharsTokenCounter } from '../token-counter.js';
import { EditChecker, editedTexts, mayShow, probeOf, searchableText } from './lost-edits.js';
import type { Message, MessagePart, ToolResultPart } from './message-model.js';
import { readTranscript } from './transcript.js';

const counter = createCharsTokenCounter(4);
const OLD = 'function parse(input: string): number {\n  return Number(input);\n}';

const read = (id: string, output: string): Message[] => [
  { role: 'assistant', parts: [{ type: 'tool-call', toolCallId: id, toolName: 'Read', input: { file_path: '/a.ts' } }] },
  { role: 'user', parts: [{ type: 'tool-result', toolCallId: id, toolName: 'Read', output }] },
];
const numbered = (text: string) =>
  text
    .split('\n')
    .map((line, index) => `${String(index + 10).padStart(6)}→${line}`)
    .join('\n');

describe('editedTexts', () => {
  it('takes the old text of Claude Code, OpenCode and pi edits, MultiEdit included, 40 characters or more', () => {
    expect(editedTexts({ file_path: '/a', old_string: OLD, new_string: 'x' })).toEqual([OLD]);
    expect(editedTexts({ filePath: '/a', oldString: OLD })).toEqual([OLD]);
    expect(editedTexts({ path: '/a', oldText: OLD })).toEqual([OLD]);
    expect(editedTexts({ edits: [{ old_string: OLD }, { old_string: 'short' }] })).toEqual([OLD]);
    expect(editedTexts({ command: 'ls' })).toEqual([]);
    expect(editedTexts(null)).toEqual([]);
  });
});

describe('EditChecker', () => {
  it('finds the text in a Read output with its line numbers stripped: sourced, and lost once that output is replaced', () => {
    const checker = new EditChecker(counter);
    const original = read('r1', numbered(`// header\n${OLD}\n// end`));
    expect(checker.check(OLD, original, original)).toMatchObject({ sourced: true, lost: false });
    const pruned = [
      original[0]!,
      { role: 'user', parts: [{ type: 'tool-result', toolCallId: 'r1', toolName: 'Read', output: '[Old tool result content cleared]' }] },
    ] satisfies Message[];
    const check = checker.check(OLD, original, pruned);
    expect(check).toMatchObject({ sourced: true, lost: true });
    expect(check.rereadTokens).toBeGreaterThan(10);
  });

  it('is not lost when the transformed request still shows the text elsewhere (the model wrote it itself)', () => {
    const checker = new EditChecker(counter);
    const wrote: Message = {
      role: 'assistant',
      parts: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'Write', input: { file_path: '/a.ts', content: OLD } }],
    };
    const original = [wrote, ...read('r1', numbered(OLD))];
    const pruned = [
      wrote,
      original[1]!,
      { role: 'user', parts: [{ type: 'tool-result', toolCallId: 'r1', toolName: 'Read', output: '[cleared]' }] },
    ] satisfies Message[];
    expect(checker.check(OLD, original, pruned)).toMatchObject({ sourced: true, lost: false });
  });

  it('an edit whose text the history never showed is not sourced', () => {
    const checker = new EditChecker(counter);
    const original = read('r1', numbered('something else entirely, long enough to matter here'));
    expect(checker.check(OLD, original, original)).toEqual({ sourced: false, lost: false, rereadTokens: 0 });
  });

  it('sourceOf finds the newest part showing the text, and searches only after the index it is given', () => {
    const checker = new EditChecker(counter);
    const wrote: Message = {
      role: 'assistant',
      parts: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'Write', input: { file_path: '/a.ts', content: OLD } }],
    };
    const history = [wrote, ...read('r1', numbered(OLD))];
    expect(checker.sourceOf(OLD, history)).toEqual({ index: 2, part: history[2]!.parts[0] });
    expect(checker.sourceOf(OLD, history, 2)).toBeUndefined();
    expect(checker.sourceOf(OLD, history.slice(0, 2))).toEqual({ index: 0, part: wrote.parts[0] });
    expect(checker.sourceOf('a text no part of this history shows, long enough', history)).toBeUndefined();
  });
});

// The search strips a tool output's line numbers only when the output holds the text's probe as
// it is; the plain rule is `searchableText(part).includes(text)`.
describe('the tool-output prefilter, against the plain search', () => {
  const fixtures = fileURLToPath(new URL('../../../../fixtures/claude-code-transcripts/', import.meta.url));
  const files = [
    'marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl',
    'marot-spotter/tool_heavy.jsonl',
    'daaain-claude-code-log/representative_messages.jsonl',
  ];
  const result = (output: ToolResultPart['output']): ToolResultPart => ({ type: 'tool-result', toolCallId: 't', toolName: 'Read', output });

  it('never rules out an output that shows the text: line numbers of every form, every line terminator, multi-part outputs', () => {
    const code = ['  const a = compute(value);', '\tif (a > 1) return a;', '  return fallback(a, "twelve chars");'];
    const outputs = [
      result(numbered(code.join('\n'))),
      result(code.map((line, index) => `${index + 1}\t${line}`).join('\r\n')),
      result(code.map((line, index) => `${String(index + 1).padStart(5, '0')}| ${line}`).join('\u2028')),
      result(code.map((line, index) => `  ${index}|${line}`).join('\r')),
      result([
        { type: 'text', text: numbered(code.slice(0, 2).join('\n')) },
        { type: 'text', text: `  3→${code[2]}` },
      ]),
      result(code.join('\n')),
    ];
    for (const output of outputs) {
      const shown = searchableText(output);
      // Every stretch of the searchable text of 40 characters or more, as an edit would quote it.
      for (let start = 0; start < shown.length; start += 3) {
        for (let end = start + 40; end <= shown.length; end += 5) {
          const text = shown.slice(start, end);
          expect(mayShow(output, probeOf(text)), JSON.stringify(text)).toBe(true);
        }
      }
    }
  });

  for (const file of files) {
    it(`${file}: a checker finds the same sources as the plain search, for every edit of the session`, async () => {
      const { messages } = await readTranscript(`${fixtures}${file}`);
      const texts = messages.flatMap((message) =>
        message.parts.flatMap((part) => (part.type === 'tool-call' ? editedTexts(part.input) : [])),
      );
      // Texts no output shows as it is, but a stripped one might: the first and last lines of numbered outputs.
      for (const message of messages)
        for (const part of message.parts) if (part.type === 'tool-result') texts.push(searchableText(part).slice(0, 60));
      const plainSource = (text: string, end: number): { index: number; part: MessagePart } | undefined => {
        for (let index = end - 1; index >= 0; index--)
          for (const part of messages[index]!.parts) if (searchableText(part).includes(text)) return { index, part };
        return undefined;
      };
      const checker = new EditChecker(counter);
      for (let end = 1; end <= messages.length; end += 17) {
        const history = messages.slice(0, end);
        for (const text of texts.filter((candidate) => candidate.length >= 40))
          expect(checker.sourceOf(text, history)).toEqual(plainSource(text, end));
      }
    });
  }
});
