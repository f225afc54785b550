import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Message } from './messages/message-model.js';
import { readTranscript } from './messages/transcript.js';
import {
  CALIBRATED_CHARS_PER_TOKEN,
  createCalibratedTokenCounter,
  createCharsTokenCounter,
  textKind,
  type TextKind,
  type TokenCounter,
} from './token-counter.js';

// The calibration data: the real Claude Code sessions in the repo's fixtures (hand-assembled
// test files from other projects carry made-up usage, so only recorded sessions count).
const realSessions = fileURLToPath(new URL('../../../fixtures/claude-code-transcripts/marot-spotter/', import.meta.url));
const KINDS: readonly TextKind[] = ['prose', 'code', 'json'];

/** The texts a request carries for one message, as the API sees them (tool inputs as JSON). */
function* textsOf(message: Message): Generator<string> {
  for (const part of message.parts) {
    if (part.type === 'text' || part.type === 'reasoning') yield part.text;
    else if (part.type === 'tool-call') yield JSON.stringify(part.input) ?? '';
    else if (part.type === 'tool-result') {
      if (typeof part.output === 'string') yield part.output;
      else for (const item of part.output) if (item.type === 'text') yield item.text;
    }
  }
}

/** One step between two consecutive requests: the reported context growth and the texts added in between. */
interface Segment {
  growth: number;
  texts: string[];
  chars: Record<TextKind, number>;
}

async function segmentsOf(file: string): Promise<Segment[]> {
  const transcript = await readTranscript(file);
  const requests = transcript.usage.filter((usage) => !usage.isSidechain && usage.contextTokens > 0);
  const lineOf = (message: Message) => (message.providerMetadata?.['claudeCode'] as { line: number }).line;
  const segments: Segment[] = [];
  for (let index = 0; index + 1 < requests.length; index++) {
    const from = requests[index]!.line;
    const to = requests[index + 1]!.line;
    // A compaction between two requests replaces the context: no growth to learn from.
    if (transcript.compactions.some((compaction) => compaction.line > from && compaction.line < to)) continue;
    const texts = transcript.messages
      .filter((message) => lineOf(message) >= from && lineOf(message) < to)
      .flatMap((message) => [...textsOf(message)]);
    const chars: Record<TextKind, number> = { prose: 0, code: 0, json: 0 };
    for (const text of texts) chars[textKind(text)] += text.length;
    segments.push({ growth: requests[index + 1]!.contextTokens - requests[index]!.contextTokens, texts, chars });
  }
  return segments;
}

/** Least squares without intercept (normal equations, Gaussian elimination), then scaled so the sums match. */
function fit(segments: Segment[]): Record<TextKind, number> {
  const size = KINDS.length;
  const matrix = Array.from({ length: size }, () => new Array<number>(size).fill(0));
  const vector = new Array<number>(size).fill(0);
  for (const segment of segments) {
    KINDS.forEach((row, r) => {
      vector[r]! += segment.chars[row] * segment.growth;
      KINDS.forEach((column, c) => (matrix[r]![c]! += segment.chars[row] * segment.chars[column]));
    });
  }
  for (let pivot = 0; pivot < size; pivot++) {
    for (let row = pivot + 1; row < size; row++) {
      const factor = matrix[row]![pivot]! / matrix[pivot]![pivot]!;
      for (let column = pivot; column < size; column++) matrix[row]![column]! -= factor * matrix[pivot]![column]!;
      vector[row]! -= factor * vector[pivot]!;
    }
  }
  const tokensPerChar = new Array<number>(size).fill(0);
  for (let row = size - 1; row >= 0; row--) {
    let sum = vector[row]!;
    for (let column = row + 1; column < size; column++) sum -= matrix[row]![column]! * tokensPerChar[column]!;
    tokensPerChar[row] = sum / matrix[row]![row]!;
  }
  const predicted = segments.reduce(
    (total, segment) => total + KINDS.reduce((sum, kind, k) => sum + segment.chars[kind] * tokensPerChar[k]!, 0),
    0,
  );
  const actual = segments.reduce((total, segment) => total + segment.growth, 0);
  const scale = actual / predicted;
  return Object.fromEntries(KINDS.map((kind, k) => [kind, 1 / (tokensPerChar[k]! * scale)])) as Record<TextKind, number>;
}

function errorOf(counter: TokenCounter, segments: Segment[]) {
  let estimated = 0;
  let actual = 0;
  const relative: number[] = [];
  for (const segment of segments) {
    const tokens = segment.texts.reduce((sum, text) => sum + (text === '' ? 0 : counter.count(text)), 0);
    estimated += tokens;
    actual += segment.growth;
    if (segment.growth > 0) relative.push(Math.abs(tokens - segment.growth) / segment.growth);
  }
  relative.sort((a, b) => a - b);
  return { summed: (estimated - actual) / actual, median: relative[Math.floor(relative.length / 2)]! };
}

const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)} %`;

describe('the calibrated counter, on the usage deltas of the real transcripts in fixtures/', async () => {
  const files = readdirSync(realSessions).filter((name) => name.endsWith('.jsonl'));
  const segments = (await Promise.all(files.map((name) => segmentsOf(path.join(realSessions, name))))).flat();

  it('has real data to learn from', () => {
    expect(files.length).toBeGreaterThanOrEqual(3);
    expect(segments.length).toBeGreaterThan(200);
  });

  it('ships the ratios the fixtures give (refit here, within 0.05 chars per token)', () => {
    const fitted = fit(segments);
    console.log(
      `fitted chars per token on ${segments.length} request steps: ${KINDS.map((kind) => `${kind} ${fitted[kind].toFixed(2)}`).join(', ')}`,
    );
    for (const kind of KINDS) expect(Math.abs(CALIBRATED_CHARS_PER_TOKEN[kind] - fitted[kind])).toBeLessThan(0.05);
  });

  it('prints its error against the reported growth, next to chars/4', () => {
    const calibrated = errorOf(createCalibratedTokenCounter(), segments);
    const chars4 = errorOf(createCharsTokenCounter(4), segments);
    console.log(
      `summed over ${segments.length} request steps: calibrated ${percent(calibrated.summed)}, chars/4 ${percent(chars4.summed)}; ` +
        `median error per step: calibrated ${percent(calibrated.median)}, chars/4 ${percent(chars4.median)}`,
    );
    expect(Math.abs(calibrated.summed)).toBeLessThan(0.05);
    expect(Math.abs(calibrated.summed)).toBeLessThan(Math.abs(chars4.summed));
    expect(calibrated.median).toBeLessThan(chars4.median);
  });
});
