import type { TokenCounter } from '@hookwise/core';
import { createCharsTokenCounter } from '@hookwise/core/host';
import { estimateMessageTokens, type Message, type MessagePart } from '@hookwise/core/messages';
import { partTokens } from '@hookwise/core/counting';
import { describe, expect, it } from 'vitest';
import { eligibleHistory, outputSizes, prompt, tokens, toolResults, toolTurn } from './__fixtures__/history.js';
import { DEFAULT_PLACEHOLDER, DIGEST_PREFIX } from './digest.js';
import { isUserPrompt } from '@hookwise/core/messages';
import { isPrunedOutput, pruneToolOutputs, toolResultTokens, type PruneOptions } from './prune-tool-outputs.js';

/**
 * The conformance scenarios pin OpenCode's rule as this function applied it before the agentic
 * default: two protected turns, no recency protection, no supersede, and chars/4 (b17).
 */
const OPENCODE_RULE: PruneOptions = { protectTurns: 2, keepRecent: 0, supersede: false, tokenCounter: createCharsTokenCounter(4) };
const opencodeRule = (messages: Message[], options: PruneOptions = {}) => pruneToolOutputs(messages, { ...OPENCODE_RULE, ...options });

const P = DEFAULT_PLACEHOLDER;
/** The placeholder's own size with core's chars/4 counter (33 chars, rounded up). */
const PLACEHOLDER_TOKENS = 9;

// Scenario numbers refer to section (b) of shared/reference/pruning-anchors.md.
describe('pruneToolOutputs: turns (b1, b2, b15)', () => {
  it('b1: an empty history is a no-op', () => {
    const messages: Message[] = [];
    const result = opencodeRule(messages);
    expect(result.messages).toBe(messages);
    expect(result).toMatchObject({ prunedCount: 0, tokensReclaimed: 0, scannedCount: 0, decision: 'fewer-than-two-user-prompts' });
  });

  it('b1: one user turn with a 100k-token output is a no-op', () => {
    const messages = [prompt('u1'), ...toolTurn(tokens(100_000))];
    const result = opencodeRule(messages);
    expect(result.messages).toBe(messages);
    expect(result.decision).toBe('fewer-than-two-user-prompts');
    expect(result.reason).toMatch(/only 1 user prompt/);
  });

  it('b2: two user turns (previous + current) are never pruned, whatever their size (OpenCode side, not tunacode)', () => {
    const messages = [prompt('u1'), ...toolTurn(tokens(100_000)), prompt('u2'), ...toolTurn(tokens(100_000))];
    const result = opencodeRule(messages);
    expect(result.messages).toBe(messages);
    expect(result.prunedCount).toBe(0);
  });

  it('b15: an oversized output in the current turn stays, even with old output pruned around it', () => {
    const messages = [prompt('u1'), ...toolTurn(tokens(60_000)), prompt('u2'), prompt('u3'), ...toolTurn(tokens(100_000))];
    const result = opencodeRule(messages);
    expect(outputSizes(result.messages)).toEqual([P, 100_000]);
  });

  it('tool-result carriers and meta lines do not count as user prompts', () => {
    const [call, carrier] = toolTurn(tokens(10));
    expect(isUserPrompt(carrier)).toBe(false);
    expect(isUserPrompt(call)).toBe(false);
    expect(isUserPrompt(prompt('hello'))).toBe(true);
    expect(isUserPrompt({ ...prompt('caveat'), providerMetadata: { claudeCode: { isMeta: true } } })).toBe(false);
    expect(isUserPrompt({ ...prompt('summary'), compactSummary: true })).toBe(false);
    expect(isUserPrompt(prompt('   '))).toBe(false);
    expect(isUserPrompt(prompt('<local-command-stdout>Compacted</local-command-stdout>'))).toBe(false);
    expect(isUserPrompt(prompt('<command-name>/compact</command-name>'))).toBe(true);
    // 60k of output followed by a prompt and many result carriers: still only one prompt after it.
    const messages = [prompt('u1'), ...toolTurn(tokens(60_000)), prompt('u2'), ...toolTurn(tokens(10)), ...toolTurn(tokens(10))];
    expect(opencodeRule(messages).prunedCount).toBe(0);
  });
});

describe('pruneToolOutputs: protected window and minimum (b3–b7)', () => {
  it("b3: OpenCode's own case, one 200,000-char output two turns back, is pruned (50,000 > 40,000 and > 20,000)", () => {
    const messages = [prompt('u1'), ...toolTurn('y'.repeat(200_000)), prompt('u2'), prompt('u3')];
    const result = opencodeRule(messages);
    expect(result.decision).toBe('pruned');
    expect(outputSizes(result.messages)).toEqual([P]);
    expect(result.tokensReclaimed).toBe(50_000 - PLACEHOLDER_TOKENS);
    expect(result.prunedCount).toBe(1);
    expect(result.scannedCount).toBe(1);
  });

  it('b4: a window of exactly 40,000 is kept (strictly greater crosses); the older 25,000 is pruned', () => {
    const result = opencodeRule(eligibleHistory([40_000, 25_000]));
    expect(outputSizes(result.messages)).toEqual([P, 40_000]);
    expect(result.tokensReclaimed).toBe(25_000 - PLACEHOLDER_TOKENS);
  });

  it('b4: a window of 40,001 crosses on the newest output, which goes too', () => {
    const result = opencodeRule(eligibleHistory([40_001, 25_000]));
    expect(outputSizes(result.messages)).toEqual([P, P]);
  });

  it('b5: candidates of exactly 20,000 are not committed (strictly greater), nor 19,999', () => {
    for (const older of [19_999, 20_000]) {
      const messages = eligibleHistory([40_000, older]);
      const result = opencodeRule(messages);
      expect(result.messages).toBe(messages);
      expect(result.decision).toBe('below-minimum');
      expect(result.reason).toContain(`only ${older.toLocaleString('en-US')} tokens`);
    }
  });

  it('b5: candidates of 20,001 are committed', () => {
    const result = opencodeRule(eligibleHistory([40_000, 20_001]));
    expect(outputSizes(result.messages)).toEqual([P, 40_000]);
    expect(result.tokensReclaimed).toBe(20_001 - PLACEHOLDER_TOKENS);
  });

  it('b6: the crossing part is pruned whole: [30,000, 15,000, 10,000] clears both older outputs (25,000 > 20,000)', () => {
    const result = opencodeRule(eligibleHistory([30_000, 15_000, 10_000]));
    expect(outputSizes(result.messages)).toEqual([P, P, 30_000]);
    expect(result.tokensReclaimed).toBe(25_000 - 2 * PLACEHOLDER_TOKENS);
  });

  it('b7: newest 35,000 + older 10,000 crosses, but 10,000 is below the minimum: nothing changes', () => {
    const messages = eligibleHistory([35_000, 10_000]);
    const result = opencodeRule(messages);
    expect(result.messages).toBe(messages);
    expect(result.decision).toBe('below-minimum');
  });

  it('everything under the window is reported as such', () => {
    const result = opencodeRule(eligibleHistory([10_000, 10_000]));
    expect(result.decision).toBe('within-protected-window');
    expect(result.reason).toContain('20,000 tokens, not more than the protected 40,000');
  });

  it('b22: protectTokens 0 and minimumTokens 0 prune every eligible output, still never the last two turns', () => {
    const messages = [...eligibleHistory([100, 200]), ...toolTurn(tokens(300))];
    const result = opencodeRule(messages, { protectTokens: 0, minimumTokens: 0 });
    expect(outputSizes(result.messages)).toEqual([P, P, 300]);
  });

  it('outputs no bigger than the placeholder are left alone (replacing them would grow the context)', () => {
    const messages = eligibleHistory([50_000, 30_000]);
    messages.splice(1, 0, ...toolTurn('tiny'));
    const result = opencodeRule(messages);
    // The newest 50,000 crosses the window, so everything eligible goes, except the 4-char output.
    expect(outputSizes(result.messages)).toEqual([1, P, P]);
  });

  it('rejects bad thresholds with a clear error', () => {
    expect(() => opencodeRule([], { protectTokens: -1 })).toThrow(/protectTokens must be/);
    expect(() => opencodeRule([], { minimumTokens: Number.NaN })).toThrow(/minimumTokens must be/);
    expect(() => pruneToolOutputs(undefined as unknown as Message[])).toThrow(/array of messages/);
  });
});

describe('pruneToolOutputs: purity and idempotency (b8, b23)', () => {
  it('does not mutate its input, and unchanged messages keep their identity', () => {
    const messages = eligibleHistory([30_000, 15_000, 10_000]);
    const before = structuredClone(messages);
    const result = opencodeRule(messages);
    expect(messages).toEqual(before);
    expect(result.messages).not.toBe(messages);
    const changed = result.messages.filter((message, index) => message !== messages[index]);
    expect(changed).toHaveLength(2);
    // Same ids, same number of parts, same order.
    expect(result.messages.map((message) => message.parts.length)).toEqual(messages.map((message) => message.parts.length));
  });

  it('b8: a second run on its own output changes nothing and returns the same objects', () => {
    const first = opencodeRule(eligibleHistory([30_000, 15_000, 10_000]));
    const second = opencodeRule(first.messages);
    expect(second.messages).toBe(first.messages);
    expect(second).toMatchObject({ prunedCount: 0, tokensReclaimed: 0, scannedCount: 3 });
    for (const [index, message] of second.messages.entries()) expect(message).toBe(first.messages[index]);
  });

  it('b8: placeholders count zero toward the window (1,000 old placeholders give no phantom protection)', () => {
    const oldPlaceholders = Array.from({ length: 1_000 }, () => toolTurn(P)).flat();
    const messages = [prompt('u0'), ...oldPlaceholders, ...eligibleHistory([30_000, 15_000, 10_000])];
    const result = opencodeRule(messages);
    expect(result.prunedCount).toBe(2);
    expect(result.tokensReclaimed).toBe(25_000 - 2 * PLACEHOLDER_TOKENS);
    expect(result.scannedCount).toBe(1_003);
  });

  it('b8: after new output arrives, only the newly crossing outputs are pruned', () => {
    const first = opencodeRule(eligibleHistory([30_000, 15_000, 10_000]));
    const grown = [...first.messages.slice(0, -1), ...toolTurn(tokens(25_000)), prompt('u4'), prompt('u5')];
    const second = opencodeRule(grown);
    // Newest first: 25,000 then 30,000 crosses (55,000): 30,000 > 20,000 is committed.
    expect(outputSizes(second.messages)).toEqual([P, P, P, 25_000]);
    expect(second.prunedCount).toBe(1);
    expect(second.tokensReclaimed).toBe(30_000 - PLACEHOLDER_TOKENS);
  });

  it('b23: repeated runs on an unchanged history make zero changes after the first', () => {
    let messages = eligibleHistory([50_000, 30_000, 30_000]);
    const changes: number[] = [];
    for (let run = 0; run < 3; run++) {
      const result = opencodeRule(messages);
      changes.push(result.prunedCount);
      messages = result.messages;
    }
    expect(changes).toEqual([3, 0, 0]);
  });

  it('keeps the figures it counted for a host measuring the same parts (core’s partTokens): the same as core’s estimate, not counted again', () => {
    let calls = 0;
    const counter: TokenCounter = { name: 'shared', count: (text) => (calls++, Math.ceil(text.length / 4)) };
    const estimate = (part: MessagePart) => estimateMessageTokens({ role: 'user', parts: [part] }, (text) => Math.ceil(text.length / 4));
    // Written files (their inputs digested when pruned), and the same output text twice.
    const messages = [
      prompt('u1'),
      ...toolTurn(tokens(30_000), { toolName: 'Write', input: { file_path: '/a.ts', content: tokens(8_000, 'a') } }),
      ...toolTurn(tokens(30_000), {
        toolName: 'Edit',
        input: { file_path: '/a.ts', old_string: tokens(2_000, 'b'), new_string: tokens(2_000, 'c') },
      }),
      ...toolTurn(tokens(30_000)),
      prompt('u2'),
      prompt('u3'),
    ];
    const result = pruneToolOutputs(messages, { protectTurns: 2, keepRecent: 0, tokenCounter: counter });
    expect(result.prunedCount).toBeGreaterThan(0);
    const changed = result.messages.flatMap((message, index) => message.parts.filter((part, at) => part !== messages[index]!.parts[at]));
    const originals = result.messages.flatMap((message, index) => messages[index]!.parts.filter((part, at) => part !== message.parts[at]));
    // Placeholders for outputs and digests for the written files' inputs.
    expect(new Set(changed.map((part) => part.type))).toStrictEqual(new Set(['tool-call', 'tool-result']));
    const before = calls;
    for (const part of [...changed, ...originals]) expect(partTokens(part, counter), part.type).toBe(estimate(part));
    expect(calls).toBe(before);
  });

  it('counts an empty text of an output as 0, as core does, whatever the counter, before and after pruning', () => {
    // A counter that would count an empty text as a token.
    const counter: TokenCounter = { name: 'plus one', count: (text) => Math.ceil((text.length + 1) / 4) };
    const part = {
      type: 'tool-result',
      toolCallId: 'e',
      toolName: 'Bash',
      output: [
        { type: 'text', text: tokens(1_000) },
        { type: 'text', text: '' },
      ],
    } as const satisfies MessagePart;
    const output = structuredClone(part) as Extract<MessagePart, { type: 'tool-result' }>;
    const figure = counter.count(tokens(1_000));
    expect(toolResultTokens(output, counter)).toBe(figure);
    expect(partTokens(output, counter)).toBe(figure);
    // Pruned: the placeholder's figure is the same for both.
    const messages = eligibleHistory([40_000, 25_000]);
    const oldest = toolResults(messages)[0]!;
    oldest.output = [
      { type: 'text', text: tokens(25_000) },
      { type: 'text', text: '' },
    ];
    expect(toolResultTokens(oldest, counter)).toBe(counter.count(tokens(25_000)));
    const pruned = toolResults(opencodeRule(messages, { tokenCounter: counter }).messages)[0]!;
    expect(pruned.output).toBe(P);
    expect(toolResultTokens(pruned, counter)).toBe(counter.count(P));
    expect(partTokens(pruned, counter)).toBe(counter.count(P));
  });

  it('memoises token counts per part and counter', () => {
    let calls = 0;
    const counter: TokenCounter = { name: 'counting', count: (text) => (calls++, Math.ceil(text.length / 4)) };
    const messages = eligibleHistory([10_000, 10_000]);
    opencodeRule(messages, { tokenCounter: counter });
    const afterFirst = calls;
    opencodeRule(messages, { tokenCounter: counter });
    // The second run counts only the placeholder, once.
    expect(calls).toBe(afterFirst + 1);
    expect(toolResultTokens(toolResults(messages)[0]!, counter)).toBe(10_000);
    expect(calls).toBe(afterFirst + 1);
  });
});

describe('pruneToolOutputs: what is never pruned (b9, b10, b11)', () => {
  it('b9: nothing before the latest compaction summary is counted or touched', () => {
    const beforeSummary = [prompt('u0'), ...toolTurn(tokens(100_000)), prompt('u0b'), prompt('u0c')];
    const summary: Message = { role: 'user', parts: [{ type: 'text', text: 'Summary of the conversation so far…' }], compactSummary: true };
    const messages = [...beforeSummary, summary, ...eligibleHistory([35_000, 10_000])];
    const result = opencodeRule(messages);
    expect(result.messages).toBe(messages);
    expect(result.decision).toBe('below-minimum');
    expect(result.scannedCount).toBe(2);
  });

  it('b9: pruning after the summary leaves the messages before it as they are', () => {
    const beforeSummary = [prompt('u0'), ...toolTurn(tokens(100_000)), prompt('u0b'), prompt('u0c')];
    const summary: Message = { role: 'user', parts: [{ type: 'text', text: 'Summary' }], compactSummary: true };
    const messages = [...beforeSummary, summary, ...eligibleHistory([40_000, 25_000])];
    const result = opencodeRule(messages);
    expect(outputSizes(result.messages)).toEqual([100_000, P, 40_000]);
  });

  it('b10: a protected tool (skill, 100,000 tokens) is neither counted nor pruned; the rest behaves as if it were absent', () => {
    const messages = eligibleHistory([40_000, 25_000]);
    messages.splice(-2, 0, ...toolTurn(tokens(100_000), { toolName: 'skill' }));
    const result = opencodeRule(messages);
    expect(outputSizes(result.messages)).toEqual([P, 40_000, 100_000]);
  });

  it('b10: protectedTools replaces the default list; an empty list protects nothing', () => {
    const messages = eligibleHistory([40_000]);
    messages.splice(1, 0, ...toolTurn(tokens(30_000), { toolName: 'Skill' }));
    expect(opencodeRule(messages).prunedCount).toBe(0);
    expect(outputSizes(opencodeRule(messages, { protectedTools: [] }).messages)).toEqual([P, 40_000]);
    expect(opencodeRule(messages, { protectedTools: ['Read'] }).decision).toBe('within-protected-window');
    expect(opencodeRule(messages, { protectedTools: ['Read', 'Skill'] }).decision).toBe('nothing-eligible');
  });

  it('b10: a result without a tool name is matched through its call', () => {
    const messages = eligibleHistory([40_000]);
    const [call, carrier] = toolTurn(tokens(30_000), { toolName: 'skill' });
    delete (carrier.parts[0] as { toolName?: string }).toolName;
    messages.splice(1, 0, call, carrier);
    expect(opencodeRule(messages).prunedCount).toBe(0);
  });

  it('b11: error results are never counted or pruned', () => {
    const messages = eligibleHistory([40_000, 25_000]);
    messages.splice(1, 0, ...toolTurn(tokens(100_000), { isError: true }));
    const result = opencodeRule(messages);
    expect(toolResults(result.messages)[0]!.output).toBe(tokens(100_000));
    expect(outputSizes(result.messages)).toEqual([100_000, P, 40_000]);
  });
});

describe('pruneToolOutputs: shape of the result (b13, b14, b16, b17)', () => {
  it('b13: parallel results in one message are replaced, never dropped: the cut between them keeps both ids', () => {
    const messages: Message[] = [
      prompt('u1'),
      {
        role: 'assistant',
        parts: [
          { type: 'tool-call', toolCallId: 'a', toolName: 'Read', input: { file_path: 'a' } },
          { type: 'tool-call', toolCallId: 'b', toolName: 'Read', input: { file_path: 'b' } },
        ],
      },
      {
        role: 'user',
        parts: [
          { type: 'tool-result', toolCallId: 'a', toolName: 'Read', output: tokens(25_000) },
          { type: 'tool-result', toolCallId: 'b', toolName: 'Read', output: tokens(40_000) },
        ],
      },
      prompt('u2'),
      prompt('u3'),
    ];
    const result = opencodeRule(messages);
    expect(toolResults(result.messages).map((part) => [part.toolCallId, part.output === P])).toEqual([
      ['a', true],
      ['b', false],
    ]);
  });

  it('b14: no part is ever removed, so an assistant message never ends up reasoning-only', () => {
    const messages = eligibleHistory([40_000, 25_000]);
    messages[1] = {
      role: 'assistant',
      parts: [{ type: 'reasoning', text: 'think', signature: 'sig' }, ...messages[1]!.parts.filter((part) => part.type === 'tool-call')],
    };
    const result = opencodeRule(messages);
    expect(result.messages[1]).toBe(messages[1]);
    expect(result.messages[1]!.parts.map((part) => part.type)).toEqual(['reasoning', 'tool-call']);
  });

  it('b16: array output (text + image) is counted text/4 + 1,000 per image and replaced by the placeholder', () => {
    const messages = eligibleHistory([40_000]);
    messages.splice(
      1,
      0,
      ...toolTurn([
        { type: 'text', text: tokens(24_000) },
        { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
      ]),
    );
    const result = opencodeRule(messages);
    expect(toolResults(result.messages)[0]!.output).toBe(P);
    expect(result.tokensReclaimed).toBe(25_000 - PLACEHOLDER_TOKENS);
  });

  it('b17: the estimator is pinned: chars/4 rounded up (33-char placeholder = 9); another counter changes the counts', () => {
    expect(P).toHaveLength(33);
    const half = createCharsTokenCounter(2);
    // With chars/2 the 40,000/25,000 history is 80,000/50,000: the newest output crosses and both go.
    const result = opencodeRule(eligibleHistory([40_000, 25_000]), { tokenCounter: half });
    expect(result.prunedCount).toBe(2);
    expect(result.tokensReclaimed).toBe(130_000 - 2 * Math.ceil(33 / 2));
  });

  it('a custom placeholder is used and recognised on the next run', () => {
    const first = opencodeRule(eligibleHistory([40_000, 25_000]), { placeholder: '[gone]' });
    expect(toolResults(first.messages)[0]!.output).toBe('[gone]');
    expect(opencodeRule(first.messages, { placeholder: '[gone]' }).messages).toBe(first.messages);
    expect(isPrunedOutput('[gone]', '[gone]')).toBe(true);
    expect(isPrunedOutput(P)).toBe(true);
    expect(isPrunedOutput('x'.repeat(2_000))).toBe(false);
  });
});

describe('pruneToolOutputs: digest placeholder', () => {
  it('names the tool, the key input, the original size and the first error line; its real size counts', () => {
    const messages = eligibleHistory([40_000]);
    const output = `${'ok line\n'.repeat(3_000)}src/app.test.ts: Error: expected 2 to be 3\n${tokens(20_000)}`;
    messages.splice(1, 0, ...toolTurn(output, { toolName: 'Bash', input: { command: 'npm test -- --run' } }));
    const result = opencodeRule(messages, { placeholder: 'digest' });
    const digest = toolResults(result.messages)[0]!.output as string;
    const originalTokens = Math.ceil(output.length / 4);
    expect(digest).toBe(
      `${DIGEST_PREFIX}Bash npm test -- --run — ${output.length.toLocaleString('en-US')} chars, ~${originalTokens.toLocaleString('en-US')} tokens; first error: src/app.test.ts: Error: expected 2 to be 3]`,
    );
    expect(result.tokensReclaimed).toBe(originalTokens - Math.ceil(digest.length / 4));
    // Recognised as pruned on the next run.
    expect(opencodeRule(result.messages, { placeholder: 'digest' }).messages).toBe(result.messages);
  });

  it('without a key input or error line it stays short', () => {
    const messages = eligibleHistory([40_000]);
    messages.splice(1, 0, ...toolTurn(tokens(30_000), { toolName: 'mcp__db__dump', input: { limit: 5 } }));
    const result = opencodeRule(messages, { placeholder: 'digest' });
    expect(toolResults(result.messages)[0]!.output).toBe(`${DIGEST_PREFIX}mcp__db__dump — 120,000 chars, ~30,000 tokens]`);
  });
});

describe('pruneToolOutputs: supersede (opt-in)', () => {
  const read = (size: number, path: string) => toolTurn(tokens(size), { toolName: 'Read', input: { file_path: path } });

  it('prunes an older read of the same file inside the protected window, not without the option', () => {
    const messages = [prompt('u1'), ...read(21_000, 'a.ts'), ...read(5_000, 'b.ts'), prompt('u2'), ...read(21_000, 'a.ts'), prompt('u3')];
    expect(opencodeRule(messages).decision).toBe('within-protected-window');
    const result = opencodeRule(messages, { supersede: true });
    expect(outputSizes(result.messages)).toEqual([P, 5_000, 21_000]);
    expect(result.tokensReclaimed).toBe(21_000 - PLACEHOLDER_TOKENS);
  });

  it('never prunes in the current turn, and different inputs do not supersede each other', () => {
    const messages = [prompt('u1'), prompt('u2'), ...read(30_000, 'a.ts'), ...read(30_000, 'a.ts'), ...read(30_000, 'c.ts')];
    expect(opencodeRule(messages, { supersede: true, minimumTokens: 0 }).prunedCount).toBe(0);
  });

  it('stale outputs still need the minimum in total', () => {
    const messages = [prompt('u1'), ...read(15_000, 'a.ts'), prompt('u2'), ...read(15_000, 'a.ts'), prompt('u3')];
    expect(opencodeRule(messages, { supersede: true }).decision).toBe('below-minimum');
    expect(opencodeRule(messages, { supersede: true, minimumTokens: 10_000 }).prunedCount).toBe(1);
  });
});

describe('pruneToolOutputs: previouslyPruned (sticky batches)', () => {
  it('re-applies earlier prunes without counting them, and adds a new batch only above the minimum', () => {
    const history = eligibleHistory([10_000, 10_000, 10_000, 10_000, 5_000, 5_000, 5_000, 5_000, 5_000, 5_000]);
    const first = opencodeRule(history);
    expect(first.prunedCount).toBe(6);
    // The host keeps the original history and appends 5,000 more: the window now crosses on the oldest 10,000.
    const grown = [...history.slice(0, -1), ...toolTurn(tokens(5_000)), prompt('u4'), prompt('u5')];
    // Without the memory that 10,000 joins the old 30,000 of candidates: one more part, one more prefix change.
    expect(opencodeRule(grown).prunedCount).toBe(7);
    // With it, only new candidates count toward the minimum: 10,000 is not worth a change.
    const again = opencodeRule(grown, { previouslyPruned: first.prunedIds });
    expect(again.decision).toBe('reapplied');
    expect([...again.prunedIds].sort()).toEqual([...first.prunedIds].sort());
    expect(outputSizes(again.messages)).toEqual([P, P, P, P, P, P, 10_000, 10_000, 10_000, 10_000, 5_000]);
    // 20,000 more: the window crosses two outputs earlier, 30,000 of new candidates: a new batch.
    const grownAgain = [...grown.slice(0, -1), ...toolTurn(tokens(20_000)), prompt('u6'), prompt('u7')];
    const third = opencodeRule(grownAgain, { previouslyPruned: again.prunedIds });
    expect(third.decision).toBe('pruned');
    expect(outputSizes(third.messages)).toEqual([P, P, P, P, P, P, P, P, P, 10_000, 5_000, 20_000]);
    expect(third.prunedCount).toBe(9);
  });

  it('never re-applies in the current turn', () => {
    const [call, carrier] = toolTurn(tokens(30_000), { id: 'current' });
    const messages = [prompt('u1'), prompt('u2'), call, carrier];
    expect(opencodeRule(messages, { previouslyPruned: ['current'] }).prunedCount).toBe(0);
  });
});
