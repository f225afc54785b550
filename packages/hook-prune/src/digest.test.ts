import { describe, expect, it } from 'vitest';
import { fingerprint, formatNumber, isPrunedOutput, recallOf } from './digest.js';

describe('formatNumber', () => {
  it('groups thousands with commas', () => {
    expect([0, 999, 1_000, 35_641, 1_234_567, -1_234].map(formatNumber)).toEqual(['0', '999', '1,000', '35,641', '1,234,567', '-1,234']);
  });
});

describe('fingerprint', () => {
  it('gives the digests written so far: the same values for ASCII, one-byte, two-byte and long texts', () => {
    // Digests in stored histories and cached prompts must never change.
    expect(fingerprint('')).toBe('811c9dc501000193');
    expect(fingerprint('a')).toBe('e40c292c8f2a4d6f');
    expect(fingerprint('hello world')).toBe('d58b3fa7d0a5bf98');
    expect(fingerprint('é中😀 mixed — text')).toBe('92f8410c40636b1b');
    expect(fingerprint('x'.repeat(100_000))).toBe('0da3ee45545a51b3');
    expect(fingerprint(Array.from({ length: 5_000 }, (_, index) => String.fromCharCode(index % 0x3000)).join(''))).toBe('8c7ca59d39df7163');
  });
});

describe('recallOf: what a cleared output was and how to get it back', () => {
  const read = { type: 'tool-call', toolCallId: 'r', toolName: 'Read', input: { file_path: '/repo/src/x.ts' } } as const;

  it('names the tool, the file and the lines a read showed', () => {
    const output = Array.from({ length: 200 }, (_, line) => `${String(line + 1).padStart(6)}→code ${line}`).join('\n');
    expect(recallOf('Read', read, output, 'src/x.ts')).toBe('[Read of src/x.ts, lines 1–200, cleared; read it again to edit it]');
    expect(recallOf('Read', read, '    42\tone line\n', 'src/x.ts')).toBe('[Read of src/x.ts, line 42, cleared; read it again to edit it]');
  });

  it('names the command of any other tool, and is recognised as pruned', () => {
    const bash = { type: 'tool-call', toolCallId: 'b', toolName: 'Bash', input: { command: 'npm test' } } as const;
    const text = recallOf('Bash', bash, 'ok', undefined);
    expect(text).toBe('[Bash `npm test` output cleared]');
    expect(isPrunedOutput(text)).toBe(true);
    expect(isPrunedOutput(recallOf('Read', read, 'x', 'src/x.ts'))).toBe(true);
    expect(isPrunedOutput('[a real output] that was not cleared')).toBe(false);
  });
});
