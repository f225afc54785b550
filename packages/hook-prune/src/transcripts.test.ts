import { readTranscript, validateToolPairing, type Message } from '@hookwise/core';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { anthropicProblems, openAIProblems } from './__fixtures__/payload-checks.js';
import { pruneToolOutputs, toolResultTokens, type PruneOptions } from './prune-tool-outputs.js';
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
const optionSets: PruneOptions[] = [{}, thresholdsFor(16_000), { protectTokens: 0, minimumTokens: 0, placeholder: 'digest' }];

const toolTokens = (messages: Message[]) =>
  messages.reduce((sum, message) => sum + message.parts.reduce((inner, part) => inner + (part.type === 'tool-result' ? toolResultTokens(part) : 0), 0), 0);

function expectSafe(before: Message[], after: Message[]) {
  expect(validateToolPairing(after).problems).toEqual(validateToolPairing(before).problems);
  expect(anthropicProblems(after)).toEqual(anthropicProblems(before));
  expect(openAIProblems(after)).toEqual(openAIProblems(before));
}

describe('real Claude Code transcripts (read through readTranscript)', () => {
  for (const file of files) {
    it(`${file}: pairing and payloads as before, reclaimed = tokens removed, second run a no-op`, async () => {
      const { messages } = await readTranscript(`${transcripts}${file}`);
      for (const options of optionSets) {
        const first = pruneToolOutputs(messages, options);
        expectSafe(messages, first.messages);
        expect(toolTokens(messages) - toolTokens(first.messages)).toBe(first.tokensReclaimed);
        const second = pruneToolOutputs(first.messages, options);
        expect(second.messages).toBe(first.messages);
        expect(second.prunedCount).toBe(0);
      }
    });
  }

  it('the big session as recorded: one prompt drove 277 messages, then /compact: nothing is ever old enough to prune', async () => {
    const { messages } = await readTranscript(`${transcripts}${bigSession}`);
    // Replays "before each request", as a report would: every user message is followed by a request.
    let reclaimed = 0;
    for (let end = 1; end <= messages.length; end++) if (messages[end - 1]!.role === 'user') reclaimed += pruneToolOutputs(messages.slice(0, end)).tokensReclaimed;
    expect(reclaimed).toBe(0);
  });

  it('the big session had the user not compacted: the work before "/compact" + "continue" is pruned, safely', async () => {
    const { messages } = await readTranscript(`${transcripts}${bigSession}`);
    const summaryIndex = messages.findIndex((message) => message.compactSummary === true);
    expect(summaryIndex).toBe(277);
    const uncompacted = messages.filter((_, index) => index !== summaryIndex);
    // Its tool outputs total under 40,000 tokens (chars/4): the 200k defaults keep them all.
    expect(pruneToolOutputs(uncompacted).decision).toBe('within-protected-window');
    // With a 64k window's thresholds (12,800 / 6,400) the old exploration goes.
    const options = thresholdsFor(64_000);
    const result = pruneToolOutputs(uncompacted, options);
    expect(result.decision).toBe('pruned');
    expect(result.tokensReclaimed).toBe(toolTokens(uncompacted) - toolTokens(result.messages));
    expect(result.tokensReclaimed).toBeGreaterThan(options.minimumTokens);
    expectSafe(uncompacted, result.messages);
    // Everything after "continue implementation" (the current turn) is as it was.
    const currentTurn = uncompacted.findIndex((message) => message.parts[0]?.type === 'text' && message.parts[0].text === 'continue implementation');
    for (let index = currentTurn; index < uncompacted.length; index++) expect(result.messages[index]).toBe(uncompacted[index]);
    expect(pruneToolOutputs(result.messages, options).messages).toBe(result.messages);
    console.log(`big session without compaction: ${result.reason}; ${result.scannedCount} results scanned; tool output ${toolTokens(uncompacted)} tokens`);
  });
});
