import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { geminiCompressionsSince, geminiUsageOf, hasStateSnapshot, lastGeminiUsage } from './gemini.js';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hookwise-gemini-session-'));
  file = path.join(dir, 'session.jsonl');
  writeFileSync(file, `${JSON.stringify({ sessionId: 's1', projectHash: 'p', startTime: 't', kind: 'main' })}\n`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const line = (record: unknown) => appendFileSync(file, `${JSON.stringify(record)}\n`);
const response = (input: number, cached = 0) =>
  line({ id: `g${input}`, type: 'gemini', content: '', tokens: { input, cached, output: 5 }, model: 'gemini-2.5-flash' });
const history = (summary: string) => [
  { type: 'user', content: [{ text: '<session_context>…' }] },
  { type: 'user', content: [{ text: `<state_snapshot>${summary}</state_snapshot>` }] },
  { type: 'gemini', content: [{ text: 'Got it. Thanks for the additional context!' }] },
];

describe('geminiUsageOf', () => {
  it("reads a response's prompt tokens, its cached part (never above them) and its model", () => {
    expect(geminiUsageOf({ type: 'gemini', tokens: { input: 100, cached: 40 }, model: 'm' })).toEqual({
      input: 100,
      cached: 40,
      model: 'm',
    });
    expect(geminiUsageOf({ type: 'gemini', tokens: { input: 10, cached: 40 } })).toEqual({ input: 10, cached: 10 });
  });

  it('is undefined for a user record and for a response without figures', () => {
    expect(geminiUsageOf({ type: 'user', tokens: { input: 100 } })).toBeUndefined();
    expect(geminiUsageOf({ type: 'gemini', content: 'hi' })).toBeUndefined();
  });
});

describe('hasStateSnapshot', () => {
  it("finds a compression's snapshot among the first three messages only", () => {
    expect(hasStateSnapshot(history('s'))).toBe(true);
    expect(hasStateSnapshot([{ type: 'user', content: 'a' }, {}, null, ...history('s').slice(1)])).toBe(false);
    expect(hasStateSnapshot([{ type: 'user', content: [{ text: '<session_context>' }] }])).toBe(false);
    expect(hasStateSnapshot('not a list')).toBe(false);
  });
});

describe('lastGeminiUsage', () => {
  it('takes the latest response of the file, and nothing from a file without one', () => {
    expect(lastGeminiUsage(file)).toBeUndefined();
    response(1_000);
    line({ id: 'u1', type: 'user', content: [{ text: 'next' }] });
    response(2_000, 500);
    expect(lastGeminiUsage(file)).toEqual({ input: 2_000, cached: 500, model: 'gemini-2.5-flash' });
    expect(lastGeminiUsage(path.join(dir, 'missing.jsonl'))).toBeUndefined();
    expect(lastGeminiUsage(undefined)).toBeUndefined();
  });
});

describe('geminiCompressionsSince', () => {
  it('finds a compression written after the offset, with the first prompt size after it', () => {
    response(900_000);
    const offset = statSync(file).size;
    line({ $set: { lastUpdated: 'now' } });
    line({ $set: { messages: history('first') } });
    response(3_000);
    response(3_500);
    expect(geminiCompressionsSince(file, offset)).toEqual([{ key: expect.any(String), tokensAfter: 3_000 }]);
  });

  it('counts a history rewritten again with the same snapshot once, and a new snapshot as a new compression', () => {
    const offset = statSync(file).size;
    line({ $set: { messages: history('first') } });
    line({ $set: { messages: [...history('first'), { type: 'user', content: 'more' }] } });
    line({ $set: { messages: history('second') } });
    const found = geminiCompressionsSince(file, offset);
    expect(found).toHaveLength(2);
    expect(found[0]!.key).not.toBe(found[1]!.key);
    expect(found.map((compression) => compression.tokensAfter)).toEqual([undefined, undefined]);
  });

  it('finds none in a history without a snapshot, or before the offset', () => {
    line({ $set: { messages: [{ type: 'user', content: [{ text: '<session_context>…' }] }] } });
    line({ $set: { messages: history('old') } });
    expect(geminiCompressionsSince(file, 0)).toHaveLength(1);
    expect(geminiCompressionsSince(file, statSync(file).size)).toEqual([]);
  });
});
