import { createCharsTokenCounter } from '@hookwise/core/host';
import { defaultTokenCounter } from '@hookwise/core/plugin';
import { estimateMessageTokens, validateToolPairing, type Message, type ToolResultPart } from '@hookwise/core/messages';
import { readTranscript } from '@hookwise/core/claude-code';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anthropicProblems, openAIProblems } from './__fixtures__/payload-checks.js';
import { CACHE_AWARE_POLICY, pruneToolOutputs, type PruneOptions } from './prune-tool-outputs.js';
import { thresholdsFor } from './thresholds.js';

const transcripts = fileURLToPath(new URL('../../../fixtures/claude-code-transcripts/', import.meta.url));
const bigSession = 'marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl';
const files = [
  bigSession,
  'marot-spotter/tool_heavy.jsonl',
  'marot-spotter/short.jsonl',
  'daaain-claude-code-log/representative_messages.jsonl',
  'daaain-claude-code-log/edge_cases.jsonl',
  'daaain-claude-code-log/todowrite_examples.jsonl',
];
const OPENCODE_RULE: PruneOptions = { protectTurns: 2, keepRecent: 0, supersede: false };
const optionSets: Array<[string, PruneOptions]> = [
  ['defaults', {}],
  ["cache-aware (the plugin's default)", CACHE_AWARE_POLICY],
  ['OpenCode rule', OPENCODE_RULE],
  ['16k window', thresholdsFor(16_000)],
  ['everything it may, digests', { protectTokens: 0, minimumTokens: 0, placeholder: 'digest' }],
  ['chars/4, no input digests', { tokenCounter: createCharsTokenCounter(4), digestInputs: false, protectTokens: 0, minimumTokens: 0 }],
];

const historyTokens = (messages: Message[], options: PruneOptions = {}) => {
  const counter = options.tokenCounter ?? defaultTokenCounter;
  return messages.reduce((sum, message) => sum + estimateMessageTokens(message, (text) => counter.count(text)), 0);
};

const results = (messages: Message[]) =>
  messages.flatMap((message) => message.parts.filter((part): part is ToolResultPart => part.type === 'tool-result'));

/** The ids the policy never prunes: error results, the latest step (while no prompt follows it), the newest `keepRecent`. */
function untouchable(messages: Message[], keepRecent: number): Set<string> {
  const all = results(messages);
  const ids = new Set(
    [...all.filter((part) => part.isError === true), ...all.slice(Math.max(0, all.length - keepRecent))].map((part) => part.toolCallId),
  );
  const lastStep = messages.findLastIndex(
    (message) => message.role === 'assistant' && message.parts.some((part) => part.type === 'tool-call'),
  );
  const promptAfter = messages
    .slice(lastStep + 1)
    .some(
      (message) =>
        message.role === 'user' &&
        message.parts.some((part) => part.type === 'text') &&
        !message.parts.some((part) => part.type === 'tool-result'),
    );
  if (lastStep >= 0 && !promptAfter) for (const part of messages[lastStep]!.parts) if (part.type === 'tool-call') ids.add(part.toolCallId);
  return ids;
}

/** Every invariant the brief lists, on one history and one option set. */
function checkInvariants(messages: Message[], options: PruneOptions) {
  const snapshot = structuredClone(messages);
  const first = pruneToolOutputs(messages, options);
  // The input is not mutated.
  expect(messages).toEqual(snapshot);
  // Pairing valid, in both provider formats: exactly the problems the input had (real sessions may end mid-call).
  expect(validateToolPairing(first.messages).problems).toEqual(validateToolPairing(messages).problems);
  expect(anthropicProblems(first.messages)).toEqual(anthropicProblems(messages));
  expect(openAIProblems(first.messages)).toEqual(openAIProblems(messages));
  // No error result, no result of the latest step, none of the newest keepRecent pruned.
  const before = new Map(results(messages).map((part) => [part.toolCallId, part]));
  for (const id of untouchable(messages, options.keepRecent ?? 3)) {
    const after = results(first.messages).find((part) => part.toolCallId === id);
    expect(after, id).toBe(before.get(id));
  }
  // What it says it reclaimed is what left the history, with the same counter.
  expect(historyTokens(messages, options) - historyTokens(first.messages, options)).toBe(first.tokensReclaimed);
  // A second run is a no-op returning the same objects.
  const second = pruneToolOutputs(first.messages, options);
  expect(second.messages).toBe(first.messages);
  expect(second.prunedCount).toBe(0);
  // A rerun on the very array it returned may skip what its batch pruned: the same answer as a full scan of a copy.
  const copy = first.messages.slice();
  const full = pruneToolOutputs(copy, options);
  expect({ ...second, messages: copy }).toEqual(full);
  return first;
}

describe('real Claude Code transcripts (read through readTranscript)', () => {
  for (const file of files) {
    it(`${file}: every invariant, with every option set, at the end and before every 20th request`, async () => {
      const { messages } = await readTranscript(`${transcripts}${file}`);
      const cuts = [messages.length];
      for (let end = 1, requests = 0; end < messages.length; end++)
        if (messages[end - 1]!.role === 'user' && ++requests % 20 === 0) cuts.push(end);
      for (const [, options] of optionSets) for (const end of cuts) checkInvariants(messages.slice(0, end), options);
    });
  }

  it('target: at every compaction point of the real sessions, the defaults reclaim ≥ 30 % of the history', async () => {
    let points = 0;
    for (const file of files.filter((name) => name.startsWith('marot-spotter/'))) {
      const { messages, compactions } = await readTranscript(`${transcripts}${file}`);
      for (const compaction of compactions) {
        // The history as it stood when the compaction ran, from the previous compaction summary on.
        const history = messages.slice(0, compaction.messageIndex);
        const result = checkInvariants(history, {});
        const total = historyTokens(history);
        const share = result.tokensReclaimed / total;
        console.log(
          `${file} line ${compaction.line} (${compaction.trigger ?? 'auto'}, ${compaction.preTokens ?? '?'} tokens reported): reclaimed ${result.tokensReclaimed} of ${total} history tokens = ${(share * 100).toFixed(1)} %; ${result.reason}`,
        );
        expect(share).toBeGreaterThanOrEqual(0.3);
        points++;
      }
    }
    expect(points).toBeGreaterThan(0);
  });

  it('pruned before every request as a host does (same message objects, growing, earlier prunes handed back), each run gives what a cold run on a fresh copy gives', async () => {
    const { messages } = await readTranscript(`${transcripts}${bigSession}`);
    for (const [, options] of [optionSets[0]!, optionSets[1]!, optionSets[4]!]) {
      let warmPruned: string[] | undefined;
      let coldPruned: string[] | undefined;
      // Every 7th length keeps the test quick; the caches see histories grow by several messages at a time.
      for (let length = 1; length <= messages.length; length += 7) {
        const history = messages.slice(0, length);
        const warm = pruneToolOutputs(history, { ...options, ...(warmPruned ? { previouslyPruned: [...warmPruned] } : {}) });
        // structuredClone: new objects, so none of the function's memos apply.
        const cold = pruneToolOutputs(structuredClone(history), {
          ...options,
          ...(coldPruned ? { previouslyPruned: [...coldPruned] } : {}),
        });
        expect({ ...warm, messages: structuredClone(warm.messages) }).toEqual(cold);
        if (warm.decision === 'pruned') warmPruned = warm.prunedIds;
        if (cold.decision === 'pruned') coldPruned = cold.prunedIds;
      }
    }
  });

  it('the OpenCode rule on the big session: one prompt drove 277 messages, so nothing is ever old enough (the measured 0)', async () => {
    const { messages } = await readTranscript(`${transcripts}${bigSession}`);
    let reclaimed = 0;
    for (let end = 1; end <= messages.length; end++)
      if (messages[end - 1]!.role === 'user') reclaimed += pruneToolOutputs(messages.slice(0, end), OPENCODE_RULE).tokensReclaimed;
    expect(reclaimed).toBe(0);
  });

  it("what each default buys at the big session's compaction point (figures for the README)", async () => {
    const { messages, compactions } = await readTranscript(`${transcripts}${bigSession}`);
    const history = messages.slice(0, compactions[0]!.messageIndex);
    const total = historyTokens(history);
    const variants: Array<[string, PruneOptions]> = [
      ['defaults', {}],
      ['digestInputs: false', { digestInputs: false }],
      ['supersede: false', { supersede: false }],
      ['keepRecent: 0', { keepRecent: 0 }],
      ['keepRecent: 10', { keepRecent: 10 }],
      ['protectTokens: 30,000', { protectTokens: 30_000 }],
      ['protectTokens: 50,000', { protectTokens: 50_000 }],
      ['OpenCode rule', OPENCODE_RULE],
    ];
    const reclaimed = Object.fromEntries(variants.map(([name, options]) => [name, pruneToolOutputs(history, options).tokensReclaimed]));
    for (const [name] of variants)
      console.log(`${name}: ${reclaimed[name]} of ${total} tokens (${((100 * reclaimed[name]!) / total).toFixed(1)} %)`);
    // Without input digests the old outputs alone stay under the minimum: nothing would be pruned.
    expect(reclaimed['digestInputs: false']).toBe(0);
    expect(reclaimed['defaults']).toBeGreaterThan(reclaimed['supersede: false']!);
    expect(reclaimed['OpenCode rule']).toBe(0);
  });
});
