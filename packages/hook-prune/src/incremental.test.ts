import { createCharsTokenCounter } from '@hookwise/core/host';
import type { Message, MessagePart, ToolResultPart } from '@hookwise/core/messages';
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { sessionRequests } from '../bench/requests.mjs';
import { eligibleHistory, prompt, tokens, toolTurn } from './__fixtures__/history.js';
import { pruneToolOutputs, type PruneOptions, type PruneResult } from './prune-tool-outputs.js';
import { createPruner, type Pruner } from './pruner.js';
import { SessionPrunings } from './session-pruners.js';

// A host prunes a fresh copy of its growing history before every request, through a pruner
// per session that keeps what it learnt about the old messages. These tests hold its answers to
// pruneToolOutputs's (the plain one-shot run) on a deep copy of the same history (new objects:
// no memo applies, and a pruner writing into its input would show), with the earlier prunes each
// side computed itself.

const transcripts = fileURLToPath(new URL('../../../fixtures/claude-code-transcripts/', import.meta.url));
const bigSession = 'marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl';
// Every prefix of every session is replayed twice: one long session (the big one) and the small
// edge-case files; the other long sessions are the policy bench's (bench/README.md).
const files = readdirSync(transcripts, { recursive: true, encoding: 'utf8' })
  .filter((name) => name.endsWith('.jsonl') && (name === bigSession || statSync(`${transcripts}${name}`).size < 1_000_000))
  .sort();

/** The whole answer, as bytes: what a host sends and stores. */
const bytes = (result: PruneResult, input: Message[]) => JSON.stringify({ ...result, unchanged: result.messages === input });

/** The run from scratch, as bytes comparable with `bytes(result, history)` of the run on `history`. */
function fromScratch(history: Message[], options: PruneOptions): { result: PruneResult; bytes: string } {
  const copy = structuredClone(history);
  const result = pruneToolOutputs(
    copy,
    options.previouslyPruned === undefined ? options : { ...options, previouslyPruned: [...options.previouslyPruned] },
  );
  return { result, bytes: bytes(result, copy) };
}

/**
 * A sticky host's requests (the ids of each committed batch handed back), through `pruner` and
 * from scratch: each call compares the two runs and returns the decision.
 */
function stickyHost(pruner: Pruner = createPruner()): (history: Message[], options: PruneOptions, label: string) => string {
  let coldPruned: string[] | undefined;
  let warmPruned: string[] | undefined;
  return (history, base, label) => {
    const cold = fromScratch(history, coldPruned === undefined ? base : { ...base, previouslyPruned: coldPruned });
    if (cold.result.decision === 'pruned') coldPruned = cold.result.prunedIds;
    const warm = pruner.prune(history, warmPruned === undefined ? base : { ...base, previouslyPruned: [...warmPruned] });
    // Digests: the bytes of every prefix of a long session make long failure messages.
    expect(digest(bytes(warm, history)), label).toBe(digest(cold.bytes));
    if (warm.decision === 'pruned') warmPruned = warm.prunedIds;
    return warm.decision;
  };
}

/** Replays `histories` through one pruner and from scratch (see `stickyHost`). Returns the decisions. */
function replay(histories: readonly Message[][], options: (run: number) => PruneOptions): Record<string, number> {
  const host = stickyHost();
  const decisions: Record<string, number> = {};
  for (const [run, history] of histories.entries()) {
    const decision = host(history, options(run), `run ${run + 1}`);
    decisions[decision] = (decisions[decision] ?? 0) + 1;
  }
  return decisions;
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

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
  [
    'chars/4, no input digests, low thresholds',
    () => ({ tokenCounter: chars, digestInputs: false, protectTokens: 2_000, minimumTokens: 500 }),
    true,
  ],
];

/**
 * Earlier prunes as an arbitrary host may hand them over: a pseudo-random third of the results'
 * ids, the newest and the latest step's included, changing every 5th request (the same list in
 * between, as a host that reads it from its state).
 */
function arbitraryPrunes(histories: Message[][]): (run: number) => PruneOptions {
  let seed = 7;
  const next = () => (seed = (seed * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32;
  let ids: string[] = [];
  return (run) => {
    if (run % 5 === 0) {
      const history = histories[run] ?? [];
      ids = history.flatMap((message) =>
        message.parts.filter((part): part is ToolResultPart => part.type === 'tool-result' && next() < 0.34).map((part) => part.toolCallId),
      );
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
    const pruner = createPruner();
    let changed = 0;
    for (const [run, history] of histories.entries()) {
      const options = prunes(run);
      const warm = pruner.prune(history, options);
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

describe('a pruner keeps its index while the history grows, and indexes anything else afresh', () => {
  const OPENCODE_RULE: PruneOptions = { protectTurns: 2, keepRecent: 0, supersede: false, tokenCounter: chars };
  /** Prunes `after` with `pruner`, checks the answer against a run from scratch, and says whether the pruner kept its index. */
  function kept(pruner: Pruner, after: Message[], options: PruneOptions = OPENCODE_RULE): boolean {
    const builds = pruner.indexBuilds;
    const result = pruner.prune(after, options);
    expect(bytes(result, after)).toBe(fromScratch(after, options).bytes);
    return pruner.indexBuilds === builds;
  }
  /** A pruner that has pruned (and indexed) `history`. */
  function primed(history: Message[], options: PruneOptions = OPENCODE_RULE): Pruner {
    const pruner = createPruner();
    pruner.prune(history, options);
    expect(pruner.indexBuilds).toBe(1);
    return pruner;
  }

  it('an extension (the same objects, new ones appended) keeps the index', () => {
    const history = eligibleHistory([40_000, 25_000]);
    expect(kept(primed(history), [...history, ...toolTurn(tokens(30_000)), prompt('u3'), prompt('u4')])).toBe(true);
  });

  it('a compaction (a new first message, the summary) starts a new index', () => {
    const history = eligibleHistory([40_000, 25_000]);
    const summary: Message = { role: 'user', parts: [{ type: 'text', text: 'Summary' }], compactSummary: true };
    expect(kept(primed(history), [summary, ...eligibleHistory([40_000, 25_000])])).toBe(false);
  });

  it('an edited message (another object in its place) is indexed afresh', () => {
    const history = eligibleHistory([40_000, 25_000]);
    const edited = history.slice();
    const carrier = edited.findIndex((message) => message.parts.some((part) => part.type === 'tool-result'));
    edited[carrier] = { ...edited[carrier]!, parts: [{ ...(edited[carrier]!.parts[0] as ToolResultPart), output: tokens(1_000) }] };
    expect(kept(primed(history), edited)).toBe(false);
  });

  it('a removed message is indexed afresh', () => {
    const history = eligibleHistory([40_000, 25_000, 10_000]);
    expect(kept(primed(history), [...history.slice(0, 3), ...history.slice(5)])).toBe(false);
    // A shorter history (the last messages dropped) is not an extension either.
    expect(kept(primed(history), history.slice(0, -2))).toBe(false);
  });

  it('a message whose parts were replaced or added in place is indexed afresh', () => {
    const history = eligibleHistory([40_000, 25_000]);
    const carrier = history.find((message) => message.parts.some((part) => part.type === 'tool-result'))!;
    const parts = carrier.parts as MessagePart[];
    let pruner = primed(history);
    parts[0] = { ...(parts[0] as ToolResultPart), output: tokens(60_000) };
    expect(kept(pruner, history.slice())).toBe(false);
    pruner = primed(history);
    parts.push({ type: 'text', text: 'note' });
    expect(kept(pruner, history.slice())).toBe(false);
  });

  it('other options (counter, placeholder, protected tools, input digests) keep the index and give the answers from scratch', () => {
    const history = [
      prompt('u1'),
      ...toolTurn(tokens(30_000), { toolName: 'Write', input: { file_path: '/a.ts', content: 'x'.repeat(40_000) } }),
      ...eligibleHistory([40_000, 25_000]),
    ];
    const variants: PruneOptions[] = [
      { tokenCounter: createCharsTokenCounter(3) },
      { placeholder: '[gone]' },
      { placeholder: 'digest' },
      { protectedTools: ['Read'] },
      { digestInputs: false },
      { digestInputs: ['Edit'] },
      {},
    ];
    const pruner = primed(history);
    for (const variant of variants) expect(kept(pruner, history.slice(), { ...OPENCODE_RULE, ...variant })).toBe(true);
  });

  it('a new call whose id an older call or an orphan result already has is indexed afresh', () => {
    const [call, result] = toolTurn(tokens(30_000), { id: 'dup' });
    const history = [prompt('u1'), call!, result!, ...eligibleHistory([40_000, 25_000])];
    // The same id again: the older result now resolves to the newer call (the last one wins).
    expect(kept(primed(history), [...history, ...toolTurn(tokens(10), { id: 'dup', toolName: 'Skill' }), prompt('u9')])).toBe(false);
    // A result whose call comes later.
    const orphan: Message = { role: 'user', parts: [{ type: 'tool-result', toolCallId: 'late', output: tokens(30_000) }] };
    const early = [prompt('u1'), orphan, ...eligibleHistory([40_000, 25_000])];
    const lateCall: Message = { role: 'assistant', parts: [{ type: 'tool-call', toolCallId: 'late', toolName: 'Skill', input: {} }] };
    expect(kept(primed(early), [...early, lateCall, prompt('u9')])).toBe(false);
  });

  it('a new call asking what a much older one asked makes that one stale, as from scratch', () => {
    const options: PruneOptions = { tokenCounter: chars, protectTokens: 100_000, minimumTokens: 1_000 };
    // Thirty small reads of different files: no crossing.
    const history: Message[] = [prompt('u1')];
    for (let file = 0; file < 30; file++) history.push(...toolTurn(tokens(1_500), { input: { file_path: `/repo/file-${file}.ts` } }));
    const runs: Message[][] = [];
    for (let end = 2; end <= history.length; end += 2) runs.push(history.slice(0, end));
    // The first file read again: its first read is stale (1,500 tokens, more than the minimum).
    const again = [...history, ...toolTurn(tokens(10), { input: { file_path: '/repo/file-0.ts' } }), prompt('u2')];
    runs.push(again);
    const pruner = createPruner();
    for (const run of runs) kept(pruner, run, options);
    expect(pruner.indexBuilds).toBe(1);
    expect(pruner.prune(again, options).prunedCount).toBe(1);
  });

  it('an earlier prune among the newest results is kept while recent and re-applied later, as from scratch', () => {
    const options = (previouslyPruned: string[]): PruneOptions => ({
      tokenCounter: chars,
      protectTokens: 100_000,
      minimumTokens: 1_000,
      previouslyPruned,
    });
    const history: Message[] = [prompt('u1'), ...toolTurn(tokens(3_000), { input: { file_path: '/repo/x.ts' } })];
    for (let file = 0; file < 10; file++) history.push(...toolTurn(tokens(100), { input: { file_path: `/repo/file-${file}.ts` } }));
    // x.ts read again, and listed as pruned by the host: recent now, so its key makes the first read stale.
    const [call, result] = toolTurn(tokens(10), { id: 'again', input: { file_path: '/repo/x.ts' } });
    history.push(call!, result!);
    const pruned = ['again'];
    const pruner = createPruner();
    const first = pruner.prune(history, options(pruned));
    expect(bytes(first, history)).toBe(fromScratch(history, options(pruned)).bytes);
    expect(first.decision).toBe('pruned');
    // Three more results: the second read is no longer recent, it is re-applied and asks nothing: the first read is not stale.
    const grown = [...history];
    for (let file = 10; file < 13; file++) grown.push(...toolTurn(tokens(100), { input: { file_path: `/repo/file-${file}.ts` } }));
    grown.push(prompt('u2'));
    const later = pruner.prune(grown, options(pruned));
    expect(bytes(later, grown)).toBe(fromScratch(grown, options(pruned)).bytes);
    expect(later.decision).toBe('reapplied');
    expect(pruner.indexBuilds).toBe(1);
  });
});

describe('sessions: each keeps its own warm index', () => {
  it('two sessions interleaved in one process give the answers from scratch, each indexed once', async () => {
    const [a, b] = await Promise.all([collect(prefixes(bigSession, 9)), collect(prefixes('marot-spotter/tool_heavy.jsonl'))]);
    // Only the histories of a's first compaction's span grow from one request to the next.
    const firstSpan = a.filter((history) => history[0] === a[0]![0]);
    expect(firstSpan.length).toBeGreaterThan(10);
    expect(b.length).toBeGreaterThan(10);
    const sessions = new SessionPrunings(32);
    const hostA = stickyHost(sessions.get('a').pruner);
    const hostB = stickyHost(sessions.get('b').pruner);
    const decisions: string[] = [];
    for (let run = 0; run < Math.max(firstSpan.length, b.length); run++) {
      if (run < firstSpan.length) decisions.push(hostA(firstSpan[run]!, {}, `a, run ${run + 1}`));
      if (run < b.length) hostB(b[run]!, {}, `b, run ${run + 1}`);
    }
    expect(sessions.get('a').pruner.indexBuilds).toBe(1);
    expect(sessions.get('b').pruner.indexBuilds).toBe(1);
    expect(decisions).toContain('pruned');
  });

  it('past its limit the least recently used session is dropped; the others stay warm', () => {
    const sessions = new SessionPrunings(2);
    const first = sessions.get('one');
    const second = sessions.get('two');
    expect(sessions.get('one')).toBe(first);
    sessions.get('three');
    expect(sessions.size).toBe(2);
    expect(sessions.get('one')).toBe(first);
    expect(sessions.get('two')).not.toBe(second);
  });
});

describe('supersede keys: the same question whatever JSON does not show', () => {
  /** Whether a call with input `newer` makes an older call of the same tool with input `older` stale. */
  function supersedes(older: unknown, newer: unknown, toolName = 'Read'): boolean {
    const history = [
      prompt('u1'),
      ...toolTurn(tokens(30_000), { toolName, input: older }),
      ...toolTurn(tokens(10), { toolName, input: newer }),
      prompt('u2'),
    ];
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
