import { createCharsTokenCounter } from '@hookwise/core/host';
import { fromOpenAIMessages, validateToolPairing, type Message } from '@hookwise/core/messages';
import { describe, expect, it } from 'vitest';
import { eligibleHistory, prompt, tokens, toolResults, toolTurn } from './__fixtures__/history.js';
import { anthropicProblems, openAIProblems } from './__fixtures__/payload-checks.js';
import { DEFAULT_PLACEHOLDER } from './digest.js';
import { pruneToolOutputs, type PruneOptions } from './prune-tool-outputs.js';

/**
 * The conformance scenarios pin OpenCode's rule as this function applied it before the agentic
 * default: two protected turns, no recency protection, no supersede, and chars/4 (b17).
 */
const OPENCODE_RULE: PruneOptions = { protectTurns: 2, keepRecent: 0, supersede: false, tokenCounter: createCharsTokenCounter(4) };
const opencodeRule = (messages: Message[], options: PruneOptions = {}) => pruneToolOutputs(messages, { ...OPENCODE_RULE, ...options });

function idsAndCounts(messages: Message[]) {
  return messages.map((message) =>
    message.parts.map((part) => (part.type === 'tool-call' || part.type === 'tool-result' ? `${part.type}:${part.toolCallId}` : part.type)),
  );
}

// b12: replace mode keeps every id, every count, and valid provider payloads.
describe('pairing after pruning (b12)', () => {
  it('Anthropic-shaped history: same ids and counts, valid Anthropic and OpenAI payloads', () => {
    const messages: Message[] = [
      ...eligibleHistory([30_000, 15_000, 10_000]).slice(0, -2),
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'two reads at once', signature: 'sig' },
          { type: 'tool-call', toolCallId: 'p1', toolName: 'Read', input: { file_path: 'a' } },
          { type: 'tool-call', toolCallId: 'p2', toolName: 'Bash', input: { command: 'ls' } },
        ],
      },
      {
        role: 'user',
        parts: [
          { type: 'tool-result', toolCallId: 'p1', toolName: 'Read', output: tokens(25_000) },
          { type: 'tool-result', toolCallId: 'p2', toolName: 'Bash', output: 'boom', isError: true },
          { type: 'text', text: '<system-reminder>hook context</system-reminder>' },
        ],
      },
      prompt('previous'),
      prompt('current'),
    ];
    expect(validateToolPairing(messages).ok).toBe(true);
    const result = opencodeRule(messages, { placeholder: 'digest' });
    // Newest first: p1 25,000, then 30,000 crosses: 30,000 + 15,000 + 10,000 go, p1 and the error stay.
    expect(result.prunedCount).toBe(3);
    expect(idsAndCounts(result.messages)).toEqual(idsAndCounts(messages));
    expect(validateToolPairing(result.messages)).toEqual({ ok: true, problems: [] });
    expect(anthropicProblems(result.messages)).toEqual([]);
    expect(openAIProblems(result.messages)).toEqual([]);
  });

  it('OpenAI-shaped history (tool messages): results are replaced in place and the payload stays valid', () => {
    const openAI = fromOpenAIMessages([
      { role: 'user', content: 'look around' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: tokens(30_000) },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.ts"}' } }],
      },
      { role: 'tool', tool_call_id: 'c2', content: tokens(41_000) },
      { role: 'user', content: 'previous' },
      { role: 'user', content: 'current' },
    ] as never);
    const result = opencodeRule(openAI);
    expect(toolResults(result.messages).map((part) => part.output === DEFAULT_PLACEHOLDER)).toEqual([true, true]);
    expect(idsAndCounts(result.messages)).toEqual(idsAndCounts(openAI));
    expect(openAIProblems(result.messages)).toEqual([]);
    expect(anthropicProblems(result.messages)).toEqual([]);
  });

  it('the checks themselves catch a broken payload', () => {
    const [call, carrier] = toolTurn(tokens(10));
    expect(anthropicProblems([prompt('u'), carrier, call])).not.toEqual([]);
    expect(openAIProblems([prompt('u'), call])).not.toEqual([]);
  });
});
