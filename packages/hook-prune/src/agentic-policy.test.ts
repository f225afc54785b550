import { createCharsTokenCounter } from '@hookwise/core/host';
import { validateToolPairing, type Message, type MessagePart, type ToolCallPart, type ToolResultPart } from '@hookwise/core/messages';
import { describe, expect, it } from 'vitest';
import { outputSizes, prompt, tokens, toolResults, toolTurn } from './__fixtures__/history.js';
import { anthropicProblems, openAIProblems } from './__fixtures__/payload-checks.js';
import { DEFAULT_PLACEHOLDER, INPUT_DIGEST_PREFIX, digestInput } from './digest.js';
import { pruneToolOutputs, type PruneOptions } from './prune-tool-outputs.js';

const P = DEFAULT_PLACEHOLDER;
// chars/4 so that tokens(n) is n tokens (one counter, as a host has one); every other option is the default.
const chars4 = createCharsTokenCounter(4);
const defaults = (messages: Message[], options: PruneOptions = {}) => pruneToolOutputs(messages, { tokenCounter: chars4, ...options });
/** One prompt, then tool steps oldest first (sizes given oldest first). */
const agentLoop = (...sizes: number[]) => [prompt('do the task'), ...sizes.flatMap((size) => toolTurn(tokens(size)))];

describe('the agentic default policy', () => {
  it('prunes inside one prompt: newest 3 kept, then 40,000 protected, older results go when they total > 20,000', () => {
    const result = defaults(agentLoop(15_000, 15_000, 40_000, 1, 1, 1));
    expect(outputSizes(result.messages)).toEqual([P, P, 40_000, 1, 1, 1]);
    expect(result.decision).toBe('pruned');
  });

  it('keepRecent: the newest 3 results stay whatever their size, and do not count toward the window', () => {
    expect(outputSizes(defaults(agentLoop(25_000, 40_000, 50_000, 50_000, 50_000)).messages)).toEqual([P, 40_000, 50_000, 50_000, 50_000]);
    // keepRecent 0: only the latest step stays; the next 50,000 crosses the window.
    expect(outputSizes(defaults(agentLoop(25_000, 40_000, 50_000, 50_000, 50_000), { keepRecent: 0 }).messages)).toEqual([
      P,
      P,
      P,
      P,
      50_000,
    ]);
  });

  it('the latest step stays whole, however many parallel calls it made', () => {
    const batch: Message[] = [
      {
        role: 'assistant',
        parts: Array.from({ length: 5 }, (_, index) => ({
          type: 'tool-call' as const,
          toolCallId: `b${index}`,
          toolName: 'Read',
          input: { file_path: `f${index}` },
        })),
      },
      {
        role: 'user',
        parts: Array.from({ length: 5 }, (_, index) => ({
          type: 'tool-result' as const,
          toolCallId: `b${index}`,
          toolName: 'Read',
          output: tokens(30_000),
        })),
      },
    ];
    const result = defaults([...agentLoop(25_000, 45_000), ...batch], { keepRecent: 0 });
    // 150,000 tokens in the latest step, none counted; the older 45,000 crosses the window.
    expect(outputSizes(result.messages)).toEqual([P, P, 30_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it('a step followed by a real prompt is no longer the latest step', () => {
    const messages = [...agentLoop(25_000, 50_000), prompt('thanks, now something else')];
    expect(outputSizes(defaults(messages, { keepRecent: 0 }).messages)).toEqual([P, P]);
  });

  it('error results are never pruned nor counted', () => {
    const messages = [
      prompt('go'),
      ...toolTurn(tokens(25_000)),
      ...toolTurn(tokens(4_000)),
      ...toolTurn(tokens(10_000), { isError: true }),
      ...agentLoop(35_000, 1, 1, 1).slice(1),
    ];
    // Counted, the error would cross the window (45,000) and take the 4,000 with it; it is not: 35,000 + 4,000 stay.
    expect(outputSizes(defaults(messages).messages)).toEqual([P, 4_000, 10_000, 35_000, 1, 1, 1]);
  });

  it('protectTurns keeps the last N user turns whole', () => {
    const messages = [
      prompt('one'),
      ...toolTurn(tokens(30_000)),
      prompt('two'),
      ...toolTurn(tokens(30_000)),
      ...toolTurn(tokens(30_000)),
      ...agentLoop(1, 1, 1).slice(1),
    ];
    expect(outputSizes(defaults(messages).messages)).toEqual([P, P, 30_000, 1, 1, 1]);
    expect(outputSizes(defaults(messages, { protectTurns: 1 }).messages)).toEqual([30_000, 30_000, 30_000, 1, 1, 1]);
  });

  it('supersede (on by default): an older identical call goes first, even inside the window; never one of the newest', () => {
    const read = { toolName: 'Bash', input: { command: 'npm test' } };
    const messages = [
      prompt('go'),
      ...toolTurn(tokens(25_000), read),
      ...toolTurn(tokens(5_000)),
      ...toolTurn(tokens(5_000), read),
      ...agentLoop(1, 1).slice(1),
      ...toolTurn(tokens(25_000), read),
    ];
    const result = defaults(messages, { minimumTokens: 20_000 });
    // The newest 'npm test' is one of the newest 3; the two before it are stale: 30,000 > 20,000.
    expect(outputSizes(result.messages)).toEqual([P, 5_000, P, 1, 1, 25_000]);
    expect(outputSizes(defaults(messages, { supersede: false }).messages)).toEqual([25_000, 5_000, 5_000, 1, 1, 25_000]);
  });

  it('write/edit inputs of pruned exchanges become a digest (path and size kept), ids and pairing intact', () => {
    const content = 'export const x = 1;\n'.repeat(5_000); // 100,000 chars on disk
    const messages = [
      prompt('write it'),
      ...toolTurn('File created successfully at: /repo/big.ts', { toolName: 'Write', input: { file_path: '/repo/big.ts', content } }),
      ...toolTurn('ok', { toolName: 'Edit', input: { file_path: '/repo/big.ts', old_string: 'x = 1', new_string: 'x = 2' } }),
      ...agentLoop(40_000, 1, 1, 1).slice(1),
    ];
    const result = defaults(messages);
    const calls = result.messages.flatMap((message) => message.parts.filter((part): part is ToolCallPart => part.type === 'tool-call'));
    expect(calls[0]!.input).toEqual({
      file_path: '/repo/big.ts',
      content: `${INPUT_DIGEST_PREFIX}100,000 chars, hash ${(calls[0]!.input as { content: string }).content.slice(-17, -1)}]`,
    });
    // Small fields stay: a digest would not be shorter.
    expect(calls[1]!.input).toEqual({ file_path: '/repo/big.ts', old_string: 'x = 1', new_string: 'x = 2' });
    expect(result.tokensReclaimed).toBeGreaterThan(24_000);
    expect(validateToolPairing(result.messages)).toEqual({ ok: true, problems: [] });
    expect(anthropicProblems(result.messages)).toEqual([]);
    expect(openAIProblems(result.messages)).toEqual([]);
    expect(defaults(result.messages).messages).toBe(result.messages);
    // The input object of the caller is untouched, and digestInputs: false leaves inputs alone.
    expect((messages[1]!.parts[1] as ToolCallPart).input).toMatchObject({ content });
    const noDigest = defaults(messages, { digestInputs: false });
    expect(noDigest.decision).toBe('below-minimum');
  });

  it('the input digest: same content, same hash; different content, different hash; location fields and short fields kept', () => {
    const a = digestInput({ file_path: 'a', content: 'y'.repeat(500), mode: 'w' });
    const b = digestInput({ file_path: 'b', content: 'y'.repeat(500) });
    const c = digestInput({ file_path: 'a', content: `${'y'.repeat(499)}z` });
    expect(a).toMatchObject({ file_path: 'a', mode: 'w' });
    expect(a!['content']).toBe(b!['content']);
    expect(a!['content']).not.toBe(c!['content']);
    expect(digestInput(a)).toBeUndefined();
    expect(digestInput({ file_path: 'a', content: 'short' })).toBeUndefined();
    expect(digestInput('not an object')).toBeUndefined();
    expect(digestInput({ edits: Array.from({ length: 20 }, () => ({ old_string: 'aaaa', new_string: 'bbbb' })) })!['edits']).toMatch(
      /^\[Old input cleared: /,
    );
  });

  it('re-applies earlier prunes outside the recent results, and never inside them', () => {
    const messages = agentLoop(30_000, 30_000, 30_000, 1, 1, 1);
    const first = defaults(messages);
    expect(outputSizes(first.messages)).toEqual([P, P, 30_000, 1, 1, 1]);
    const ids = toolResults(messages).map((part) => part.toolCallId);
    const again = defaults(messages, { previouslyPruned: [...first.prunedIds, ids[5]!], minimumTokens: 1e9 });
    expect(again.decision).toBe('reapplied');
    expect(outputSizes(again.messages)).toEqual([P, P, 30_000, 1, 1, 1]);
  });

  it('once a batch is certain, the older results are scanned while they are replaced: counts and re-applied ids stay right', () => {
    const messages = agentLoop(5_000, 5_000, 5_000, 5_000, 5_000, 30_000, 30_000, 1, 1, 1);
    const ids = toolResults(messages).map((part) => part.toolCallId);
    const result = defaults(messages, { previouslyPruned: [ids[0]!] });
    expect(result.scannedCount).toBe(10);
    expect(outputSizes(result.messages)).toEqual([P, P, P, P, P, P, 30_000, 1, 1, 1]);
    expect(new Set(result.prunedIds)).toEqual(new Set(ids.slice(0, 6)));
    expect(result.decision).toBe('pruned');
    expect(result.reason).toMatch(/^pruned 5 tool result\(s\): .*; re-applied 1 earlier prune\(s\); /);
    // A compaction summary in the middle stops the scan there, in both passes.
    const summarized = [
      ...messages.slice(0, 5),
      { role: 'user' as const, parts: [{ type: 'text' as const, text: 'summary' }], compactSummary: true },
      ...messages.slice(5),
    ];
    const after = defaults(summarized);
    expect(outputSizes(after.messages)).toEqual([5_000, 5_000, P, P, P, P, 30_000, 1, 1, 1]);
    expect(after.scannedCount).toBe(8);
  });

  it('a rerun on the array it returned changes nothing and returns that very array', () => {
    const first = defaults(agentLoop(25_000, 25_000, 35_000, 1, 1, 1));
    expect(outputSizes(first.messages)).toEqual([P, P, 35_000, 1, 1, 1]);
    const rerun = defaults(first.messages);
    expect(rerun.messages).toBe(first.messages);
    expect(rerun).toEqual({ ...defaults(first.messages.slice()), messages: first.messages });
  });

  it('refuses negative keepRecent and protectTurns', () => {
    expect(() => pruneToolOutputs([], { keepRecent: -1 })).toThrow(/keepRecent must be/);
    expect(() => pruneToolOutputs([], { protectTurns: Number.NaN })).toThrow(/protectTurns must be/);
  });
});
