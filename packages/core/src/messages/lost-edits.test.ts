import { describe, expect, it } from 'vitest';
import { createCharsTokenCounter } from '../token-counter.js';
import { EditChecker, editedTexts } from './lost-edits.js';
import type { Message } from './message-model.js';

const counter = createCharsTokenCounter(4);
const OLD = 'function parse(input: string): number {\n  return Number(input);\n}';

const read = (id: string, output: string): Message[] => [
  { role: 'assistant', parts: [{ type: 'tool-call', toolCallId: id, toolName: 'Read', input: { file_path: '/a.ts' } }] },
  { role: 'user', parts: [{ type: 'tool-result', toolCallId: id, toolName: 'Read', output }] },
];
const numbered = (text: string) => text.split('\n').map((line, index) => `${String(index + 10).padStart(6)}→${line}`).join('\n');

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
    const pruned = [original[0]!, { role: 'user', parts: [{ type: 'tool-result', toolCallId: 'r1', toolName: 'Read', output: '[Old tool result content cleared]' }] }] satisfies Message[];
    const check = checker.check(OLD, original, pruned);
    expect(check).toMatchObject({ sourced: true, lost: true });
    expect(check.rereadTokens).toBeGreaterThan(10);
  });

  it('is not lost when the transformed request still shows the text elsewhere (the model wrote it itself)', () => {
    const checker = new EditChecker(counter);
    const wrote: Message = { role: 'assistant', parts: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'Write', input: { file_path: '/a.ts', content: OLD } }] };
    const original = [wrote, ...read('r1', numbered(OLD))];
    const pruned = [wrote, original[1]!, { role: 'user', parts: [{ type: 'tool-result', toolCallId: 'r1', toolName: 'Read', output: '[cleared]' }] }] satisfies Message[];
    expect(checker.check(OLD, original, pruned)).toMatchObject({ sourced: true, lost: false });
  });

  it('an edit whose text the history never showed is not sourced', () => {
    const checker = new EditChecker(counter);
    const original = read('r1', numbered('something else entirely, long enough to matter here'));
    expect(checker.check(OLD, original, original)).toEqual({ sourced: false, lost: false, rereadTokens: 0 });
  });

  it('sourceOf finds the newest part showing the text, and searches only after the index it is given', () => {
    const checker = new EditChecker(counter);
    const wrote: Message = { role: 'assistant', parts: [{ type: 'tool-call', toolCallId: 'w1', toolName: 'Write', input: { file_path: '/a.ts', content: OLD } }] };
    const history = [wrote, ...read('r1', numbered(OLD))];
    expect(checker.sourceOf(OLD, history)).toEqual({ index: 2, part: history[2]!.parts[0] });
    expect(checker.sourceOf(OLD, history, 2)).toBeUndefined();
    expect(checker.sourceOf(OLD, history.slice(0, 2))).toEqual({ index: 0, part: wrote.parts[0] });
    expect(checker.sourceOf('a text no part of this history shows, long enough', history)).toBeUndefined();
  });
});
