import { createCharsTokenCounter, type Message, type MessagePart, type ToolResultPart } from '@hookwise/core';
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sessionRequests } from '../bench/requests.mjs';
import { eligibleHistory, prompt, tokens, toolTurn } from './__fixtures__/history.js';
import { historyIndex } from './history-index.js';
import { pruneToolOutputs, type PruneOptions, type PruneResult } from './prune-tool-outputs.js';

// A host prunes a fresh copy of its growing history before every request (the report does it
// 218 times on the recorded session): the same message objects, new ones appended. What the
// pruner learnt about the old ones is kept (history-index.ts). These tests hold that path to
// the answer of a run that knows nothing: the same history deep-copied (new objects, so no
// index, no memo applies), with the earlier prunes it computed itself.

const transcripts = fileURLToPath(new URL('../../../fixtures/claude-code-transcripts/', import.meta.url));
const files = readdirSync(transcripts, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.jsonl'))
  .sort();
const bigSession = 'marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl';

/** The whole answer, as bytes: what a host sends and stores. */
const bytes = (result: PruneResult, input: Message[]) => JSON.stringify({ ...result, unchanged: result.messages === input });

/** The run from scratch, as bytes comparable with `bytes(result, history)` of the run on `history`. */
function fromScratch(history: Message[], options: PruneOptions): { result: PruneResult; bytes: string } {
  const copy = structuredClone(history);
  const result = pruneToolOutputs(copy, options.previouslyPruned === undefined ? options : { ...options, previouslyPruned: [...options.previouslyPruned] });
  return { result, bytes: bytes(result, copy) };
}

/**
 * Replays `histories` as a sticky host does (the ids of each committed batch handed back), once
 * from scratch and then through the kept index, and compares every run. The runs from scratch
 * go first, all of them: each prunes a copy (another history), which would let the kept index
 * go between warm runs. Returns the decisions.
 */
function replay(histories: readonly Message[][], options: (run: number) => PruneOptions): Record<string, number> {
  const cold: string[] = [];
  let coldPruned: string[] | undefined;
  for (const [run, history] of histories.entries()) {
    const base = options(run);
    const { result, bytes: coldBytes } = fromScratch(history, coldPruned === undefined ? base : { ...base, previouslyPruned: coldPruned });
    // A digest per run: the bytes of every prefix of a long session would not fit in memory.
    cold.push(createHash('sha256').update(coldBytes).digest('hex'));
    if (result.decision === 'pruned') coldPruned = result.prunedIds;
  }
  const decisions: Record<string, number> = {};
  let warmPruned: string[] | undefined;
  for (const [run, history] of histories.entries()) {
    const base = options(run);
    const warm = pruneToolOutputs(history, warmPruned === undefined ? base : { ...base, previouslyPruned: [...warmPruned] });
    expect(createHash('sha256').update(bytes(warm, history)).digest('hex'), `run ${run + 1}`).toBe(cold[run]);
    decisions[warm.decision] = (decisions[warm.decision] ?? 0) + 1;
    if (warm.decision === 'pruned') warmPruned = warm.prunedIds;
  }
  return decisions;
}

/** Every prefix of each history since a compaction (and the request points only, with `every` > 1). */
async function* prefixes(file: string, every = 1): AsyncGenerator<Message[]> {
  const { messages, requests } = await sessionRequests(`${transcripts}${file}`);
  let start = 0;
  for (let end = 1; end <= messages.length; end++) {
    const request = requests.find((candidate) => candidate.end === end);
    if (request !== undefined) start = request.start;
    else if (messages[end - 1]!.compactSummary === true) start = end - 1;
    if (end % every === 0 || end === messages.length) yield messages.slice(start, end);
  }
}

async function collect(iterable: AsyncIterable<Message[]>): Promise<Message[][]> {
  const items: Message[][] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

const chars = createCharsTokenCounter(4);
/** Option sets, and whether they prune anything on the big session (one prompt drove it: turn rules protect everything). */
const optionSets: Array<[string, (run: number) => PruneOptions, boolean]> = [
  ['defaults', () => ({}), true],
  ['defaults under pressure now and then (minimum 0 every 4th request)', (run) => (run % 4 === 0 ? { minimumTokens: 0 } : {}), true],
  ['small window, keepRecent 1', () => ({ protectTokens: 5_000, minimumTokens: 2_000, keepRecent: 1 }), true],
  ['one protected turn', () => ({ protectTokens: 5_000, minimumTokens: 2_000, protectTurns: 1 }), false],
  ['OpenCode rule', () => ({ protectTurns: 2, keepRecent: 0, supersede: false }), false],
  ['everything it may, digests', () => ({ protectTokens: 0, minimumTokens: 0, placeholder: 'digest' }), true],
  ['chars/4, no input digests, low thresholds', () => ({ tokenCounter: chars, digestInputs: false, protectTokens: 2_000, minimumTokens: 500 }), true],
];

/**
 * Earlier prunes as an arbitrary host may hand them over: a pseudo-random third of the results'
 * ids, the newest and the latest step's included, changing every 5th request (the same list in
 * between, as a host that reads it from its state).
 */
function arbitraryPrunes(histories: Message[][]): (run: number) => PruneOptions {
  let seed = 7;
  const next = () => ((seed = (seed * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
  let ids: string[] = [];
  return (run) => {
    if (run % 5 === 0) {
      const history = histories[run] ?? [];
      ids = history.flatMap((message) => message.parts.filter((part): part is ToolResultPart => part.type === 'tool-result' && next() < 0.34).map((part) => part.toolCallId));
    }
    return { previouslyPruned: ids, protectTokens: 8_000, minimumTokens: 3_000 };
  };
}

describe('incremental pruning on a growing history = a run from scratch', () => {
  it(`${bigSession}: every prefix, defaults (what the report runs), identical results`, async () => {
    const decisions = replay(await collect(prefixes(bigSession)), () => ({}));
    // The replay went through every decision a sticky host meets, commits included.
    expect(Object.keys(decisions).sort()).toEqual(['below-minimum', 'nothing-eligible', 'pruned', 'reapplied', 'within-protected-window']);
  });

  for (const [name, options, prunes] of optionSets.slice(1)) {
    it(`${bigSession}: every 3rd prefix, ${name}`, async () => {
      const decisions = replay(await collect(prefixes(bigSession, 3)), options);
      if (prunes) expect(decisions['pruned'], JSON.stringify(decisions)).toBeGreaterThan(0);
      else expect(decisions['pruned'], JSON.stringify(decisions)).toBeUndefined();
    });
  }

  it(`${bigSession}: every 2nd prefix, arbitrary earlier prunes handed over (not what this function returned)`, async () => {
    const histories = await collect(prefixes(bigSession, 2));
    const prunes = arbitraryPrunes(histories);
    let changed = 0;
    for (const [run, history] of histories.entries()) {
      const options = prunes(run);
      const warm = pruneToolOutputs(history, options);
      expect(bytes(warm, history), `run ${run}`).toBe(fromScratch(history, options).bytes);
      if (warm.messages !== history) changed++;
    }
    expect(changed).toBeGreaterThan(0);
  });

  it('every other transcript under fixtures/: every prefix, every option set', async () => {
    let runs = 0;
    for (const file of files.filter((name) => name !== bigSession)) {
      const histories = await collect(prefixes(file));
      for (const [, options] of optionSets) runs += Object.values(replay(histories, options)).reduce((sum, count) => sum + count, 0);
    }
    expect(runs).toBeGreaterThan(300);
  });
});

describe('what is not an extension of the indexed history is indexed afresh', () => {
  const OPENCODE_RULE: PruneOptions = { protectTurns: 2, keepRecent: 0, supersede: false, tokenCounter: chars };
  /** Whether pruning `after` reuses the index of the history `prime` ran on; checks its answer against a run from scratch. */
  function check(after: Message[], index: object, options: PruneOptions = OPENCODE_RULE): boolean {
    const result = pruneToolOutputs(after, options);
    // Asked before the run from scratch, which prunes another history (a copy): only the latest history's indexes are kept.
    const reused = historyIndex(after) === index;
    expect(bytes(result, after)).toBe(fromScratch(after, options).bytes);
    return reused;
  }
  /** Prunes `history` (indexing it) and returns its index. */
  function prime(history: Message[], options: PruneOptions = OPENCODE_RULE): object {
    pruneToolOutputs(history, options);
    return historyIndex(history);
  }

  it('an extension (the same objects, new ones appended) reuses the index', () => {
    const history = eligibleHistory([40_000, 25_000]);
    const index = prime(history);
    expect(check([...history, ...toolTurn(tokens(30_000)), prompt('u3'), prompt('u4')], index)).toBe(true);
  });

  it('a compaction (a new first message, the summary) starts a new index', () => {
    const history = eligibleHistory([40_000, 25_000]);
    const summary: Message = { role: 'user', parts: [{ type: 'text', text: 'Summary' }], compactSummary: true };
    const index = prime(history);
    expect(check([summary, ...eligibleHistory([40_000, 25_000])], index)).toBe(false);
  });

  it('an edited message (another object in its place) is indexed afresh', () => {
    const history = eligibleHistory([40_000, 25_000]);
    const index = prime(history);
    const edited = history.slice();
    const carrier = edited.findIndex((message) => message.parts.some((part) => part.type === 'tool-result'));
    edited[carrier] = { ...edited[carrier]!, parts: [{ ...(edited[carrier]!.parts[0] as ToolResultPart), output: tokens(1_000) }] };
    expect(check(edited, index)).toBe(false);
  });

  it('a removed message is indexed afresh', () => {
    const history = eligibleHistory([40_000, 25_000, 10_000]);
    expect(check([...history.slice(0, 3), ...history.slice(5)], prime(history))).toBe(false);
    // A shorter history (the last messages dropped) is not an extension either.
    expect(check(history.slice(0, -2), prime(history))).toBe(false);
  });

  it('a message whose parts were replaced or added in place is indexed afresh', () => {
    const history = eligibleHistory([40_000, 25_000]);
    const carrier = history.find((message) => message.parts.some((part) => part.type === 'tool-result'))!;
    const parts = carrier.parts as MessagePart[];
    let index = prime(history);
    parts[0] = { ...(parts[0] as ToolResultPart), output: tokens(60_000) };
    expect(check(history.slice(), index)).toBe(false);
    index = prime(history);
    parts.push({ type: 'text', text: 'note' });
    expect(check(history.slice(), index)).toBe(false);
  });

  it('other options (counter, placeholder, protected tools, input digests) give the same answers as from scratch', () => {
    const history = [prompt('u1'), ...toolTurn(tokens(30_000), { toolName: 'Write', input: { file_path: '/a.ts', content: 'x'.repeat(40_000) } }), ...eligibleHistory([40_000, 25_000])];
    const variants: PruneOptions[] = [
      { tokenCounter: createCharsTokenCounter(3) },
      { placeholder: '[gone]' },
      { placeholder: 'digest' },
      { protectedTools: ['Read'] },
      { digestInputs: false },
      { digestInputs: ['Edit'] },
      {},
    ];
    const index = prime(history);
    // The same messages: the index stays, its option-dependent facts are redone for each change
    // (all warm runs first: a run from scratch prunes another history, which lets the index go).
    const warm = variants.map((variant) => {
      const options = { ...OPENCODE_RULE, ...variant };
      const copy = history.slice();
      const result = pruneToolOutputs(copy, options);
      expect(historyIndex(copy)).toBe(index);
      return { options, bytes: bytes(result, copy) };
    });
    for (const { options, bytes: warmBytes } of warm) expect(warmBytes).toBe(fromScratch(history, options).bytes);
  });

  it('a new call whose id an older call or an orphan result already has is indexed afresh', () => {
    const [call, result] = toolTurn(tokens(30_000), { id: 'dup' });
    const history = [prompt('u1'), call!, result!, ...eligibleHistory([40_000, 25_000])];
    // The same id again: the older result now resolves to the newer call (the last one wins).
    expect(check([...history, ...toolTurn(tokens(10), { id: 'dup', toolName: 'Skill' }), prompt('u9')], prime(history))).toBe(false);
    // A result whose call comes later.
    const orphan: Message = { role: 'user', parts: [{ type: 'tool-result', toolCallId: 'late', output: tokens(30_000) }] };
    const early = [prompt('u1'), orphan, ...eligibleHistory([40_000, 25_000])];
    const lateCall: Message = { role: 'assistant', parts: [{ type: 'tool-call', toolCallId: 'late', toolName: 'Skill', input: {} }] };
    expect(check([...early, lateCall, prompt('u9')], prime(early))).toBe(false);
  });

  it('a new call asking what a long-settled one asked makes that one stale (what was kept of the oldest entries is dropped)', () => {
    const options: PruneOptions = { tokenCounter: chars, protectTokens: 100_000, minimumTokens: 1_000 };
    // Thirty small reads of different files: no crossing, so the oldest entries are settled and kept.
    const history: Message[] = [prompt('u1')];
    for (let file = 0; file < 30; file++) history.push(...toolTurn(tokens(1_500), { input: { file_path: `/repo/file-${file}.ts` } }));
    const runs: Message[][] = [];
    for (let end = 2; end <= history.length; end += 2) runs.push(history.slice(0, end));
    // The first file read again: its first read is stale (1,500 tokens, more than the minimum).
    const again = [...history, ...toolTurn(tokens(10), { input: { file_path: '/repo/file-0.ts' } }), prompt('u2')];
    runs.push(again);
    for (const run of runs) expect(bytes(pruneToolOutputs(run, options), run)).toBe(fromScratch(run, options).bytes);
    expect(pruneToolOutputs(again, options).prunedCount).toBe(1);
  });

  it('an earlier prune among the newest results (recent now, re-applied later) is not settled on', () => {
    const options = (previouslyPruned: string[]): PruneOptions => ({ tokenCounter: chars, protectTokens: 100_000, minimumTokens: 1_000, previouslyPruned });
    const history: Message[] = [prompt('u1'), ...toolTurn(tokens(3_000), { input: { file_path: '/repo/x.ts' } })];
    for (let file = 0; file < 10; file++) history.push(...toolTurn(tokens(100), { input: { file_path: `/repo/file-${file}.ts` } }));
    // x.ts read again, and listed as pruned by the host: recent now, so its key makes the first read stale.
    const [call, result] = toolTurn(tokens(10), { id: 'again', input: { file_path: '/repo/x.ts' } });
    history.push(call!, result!);
    const pruned = ['again'];
    const first = pruneToolOutputs(history, options(pruned));
    expect(bytes(first, history)).toBe(fromScratch(history, options(pruned)).bytes);
    expect(first.decision).toBe('pruned');
    // Three more results: the second read is no longer recent, it is re-applied and asks nothing: the first read is not stale.
    const grown = [...history];
    for (let file = 10; file < 13; file++) grown.push(...toolTurn(tokens(100), { input: { file_path: `/repo/file-${file}.ts` } }));
    grown.push(prompt('u2'));
    const later = pruneToolOutputs(grown, options(pruned));
    expect(bytes(later, grown)).toBe(fromScratch(grown, options(pruned)).bytes);
    expect(later.decision).toBe('reapplied');
  });

  it('another history lets the indexes of the one before go; the pruned copy of a history is indexed beside it', () => {
    const history = eligibleHistory([40_000, 25_000]);
    const index = prime(history);
    const pruned = pruneToolOutputs(history, OPENCODE_RULE).messages;
    expect(pruned).not.toBe(history);
    // The pruned copy (same first message, other parts) gets an index of its own; the history keeps its.
    const copyIndex = historyIndex(pruned);
    expect(copyIndex).not.toBe(index);
    expect(historyIndex(history)).toBe(index);
    expect(historyIndex(pruned)).toBe(copyIndex);
    // Another session's history (another first message): the first history's indexes are let go.
    const other = eligibleHistory([40_000, 25_000]);
    const otherIndex = prime(other);
    expect(historyIndex(other)).toBe(otherIndex);
    const again = historyIndex(history);
    expect(again).not.toBe(index);
    // Indexed afresh, it answers as before.
    expect(bytes(pruneToolOutputs(history, OPENCODE_RULE), history)).toBe(fromScratch(history, OPENCODE_RULE).bytes);
  });

  it('an in-place run (which writes into parts) makes every index stale', () => {
    const history = eligibleHistory([40_000, 25_000]);
    pruneToolOutputs(history, OPENCODE_RULE);
    const index = historyIndex(history);
    const copy = history.slice();
    expect(pruneToolOutputs(copy, { ...OPENCODE_RULE, inPlace: true }).prunedCount).toBe(1);
    expect(historyIndex(history)).not.toBe(index);
    expect(pruneToolOutputs(history, OPENCODE_RULE).prunedCount).toBe(0);
  });
});

describe('supersede keys: the same question whatever JSON does not show', () => {
  /** Whether a call with input `newer` makes an older call of the same tool with input `older` stale. */
  function supersedes(older: unknown, newer: unknown, toolName = 'Read'): boolean {
    const history = [prompt('u1'), ...toolTurn(tokens(30_000), { toolName, input: older }), ...toolTurn(tokens(10), { toolName, input: newer }), prompt('u2')];
    const result = pruneToolOutputs(history, { keepRecent: 0, protectTokens: 1_000_000, minimumTokens: 0, tokenCounter: chars });
    return result.prunedCount === 1;
  }
  const long = (middle: string) => `${'a'.repeat(40)}${middle}${'z'.repeat(40)}`;

  it('equal JSON: supersedes', () => {
    expect(supersedes({ file_path: '/a.ts' }, { file_path: '/a.ts' })).toBe(true);
    expect(supersedes({ content: long('x') }, { content: long('x') })).toBe(true);
    // JSON writes null for NaN and leaves undefined out: the same request.
    expect(supersedes({ a: Number.NaN }, { a: null })).toBe(true);
    expect(supersedes({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(supersedes({ a: [1, undefined] }, { a: [1, null] })).toBe(true);
    expect(supersedes({ a: -0 }, { a: 0 })).toBe(true);
    // A toJSON writes what it returns.
    expect(supersedes({ a: { toJSON: () => 'x' } }, { a: 'x' })).toBe(true);
    expect(supersedes({ a: new Date(0) }, { a: '1970-01-01T00:00:00.000Z' })).toBe(true);
    expect(supersedes('ls -la', 'ls -la', 'Bash')).toBe(true);
  });

  it('other JSON: does not, however alike the inputs look', () => {
    // Same length, same first and last characters, another middle.
    expect(supersedes({ content: long('x') }, { content: long('y') })).toBe(false);
    expect(supersedes({ file_path: '/a.ts' }, { file_path: '/b.ts' })).toBe(false);
    expect(supersedes({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(false);
    expect(supersedes({ a: '1' }, { a: 1 })).toBe(false);
    expect(supersedes({ a: [1, 2] }, { a: { 0: 1, 1: 2 } })).toBe(false);
    expect(supersedes({ file_path: '/a.ts' }, { file_path: '/a.ts' }, 'Bash')).toBe(true);
  });
});
