import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine, createMemoryEventLog, createMemoryStateStore, silentLogger } from '@hookwise/core/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bigSession, fixturesRoot, replayTranscript, transcriptClock } from './__fixtures__/replay.js';
import { suggest } from './index.js';

let projectDir: string;
beforeEach(async () => {
  projectDir = await mkdtemp(path.join(tmpdir(), 'hw-suggest-replay-'));
});
afterEach(async () => {
  await rm(projectDir, { recursive: true, force: true });
});

/** Replays a fixture through the real plugin (createEngine + emit), as Claude Code or as a VS Code host. */
async function replay(fixture: string, mode: 'transcript' | 'host') {
  const clock = transcriptClock();
  const engine = createEngine({
    config: { plugins: [suggest()] },
    projectDir,
    host: mode === 'transcript' ? 'claude-code' : 'vscode',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
    clock,
  });
  const result = await replayTranscript(fixture, {
    engine,
    sessionId: 's1',
    transcriptPath: path.join(projectDir, 'transcript.jsonl'),
    mode,
    clock,
  });
  await engine.dispose();
  return result;
}

async function compactionLog(relative: string) {
  const text = await readFile(path.join(projectDir, relative), 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

// Worded the same on every host: a binding words the compact action in its own terms.
const toolNotice = (count: number) =>
  `${count} tool calls since the last compaction. Consider compacting the context now. (hookwise suggest dismiss: quiet until 70%)`;
const compactedNotice =
  'Context compacted (manual) at 2026-02-12 14:48:36 UTC: 142,431 tokens before; size after not known yet. hookwise preserved: nothing (no hookwise plugin registered anything to keep).';

describe('replaying the recorded session (marot/spotter ae4a77f8, 2,385 lines, 242 tool calls)', () => {
  it('as Claude Code (transcript only): suggestions at the 50th call, at 70 %, and the compaction logged with preTokens', async () => {
    const result = await replay(bigSession, 'transcript');
    expect(result.errors).toEqual([]);
    expect(result.toolCalls).toBe(242);
    expect(result.notices).toEqual([
      { line: 580, point: 'tool:after', notice: toolNotice(50) },
      { line: 812, point: 'tool:after', notice: toolNotice(75) },
      // Gaps double after the first: no reminder at 100.
      { line: 1270, point: 'tool:after', notice: toolNotice(125) },
      // PostToolUse of the tool_use on line 1465, in the assistant turn that starts on line 1464.
      {
        line: 1465,
        point: 'tool:after',
        notice: 'Context at 141,369 tokens. Consider compacting the context now. (hookwise suggest dismiss: quiet until 80%)',
      },
      { line: 1481, point: 'compact:after', notice: compactedNotice },
      // The count starts over after the compaction.
      { line: 1964, point: 'tool:after', notice: toolNotice(50) },
      { line: 2187, point: 'tool:after', notice: toolNotice(75) },
    ]);

    const lines = (await readFile(bigSession, 'utf8')).split('\n');
    const messageId = (line: number) => (JSON.parse(lines[line - 1]!) as { message: { id: string } }).message.id;
    expect(messageId(1465)).toBe(messageId(1464));

    const log = await compactionLog('.hookwise/logs/compaction.jsonl');
    // The record's whole shape is pinned in plugin.test.ts; here, what the recorded session gives it.
    expect(log).toMatchObject([
      {
        type: 'compaction',
        host: 'claude-code',
        trigger: 'manual',
        completedAt: '2026-02-12T14:48:36.922Z',
        contextWindow: 200_000,
        preserved: [],
        // Before from the boundary's preTokens; after not known at compact:after (this version writes no postTokens).
        tokensBefore: 142_431,
        tokensBeforeSource: 'compact-boundary',
        tokensAfter: null,
        tokensAfterSource: null,
        reductionPercent: null,
        toolCallsSinceLastCompaction: 148,
        toolCallsTotal: 148,
        boundaryUuid: '434dc859-6299-4713-8613-d28662692f06',
      },
      // Measured at the first tool call after the compaction (line 1495, turn of line 1492).
      {
        time: expect.any(String),
        type: 'compaction:size-after',
        sessionId: 's1',
        compaction: 1,
        tokensBefore: 142_431,
        tokensAfter: 45_263,
        tokensAfterSource: 'next-measurement',
        reductionPercent: 68.2,
      },
    ]);
  });

  it('as a VS Code-hosted agent (contextTokens from the host): the same suggestions', async () => {
    const result = await replay(bigSession, 'host');
    expect(result.errors).toEqual([]);
    expect(result.notices.map((entry) => [entry.line, entry.point])).toEqual([
      [580, 'tool:after'],
      [812, 'tool:after'],
      [1270, 'tool:after'],
      [1465, 'tool:after'],
      [1481, 'compact:after'],
      [1964, 'tool:after'],
      [2187, 'tool:after'],
    ]);
    expect(result.notices[3]!.notice).toBe(
      'Context at 141,369 tokens. Consider compacting the context now. (hookwise suggest dismiss: quiet until 80%)',
    );
    const [record] = await compactionLog('.hookwise/logs/compaction.jsonl');
    expect(record).toMatchObject({ tokensBefore: 142_431, tokensBeforeSource: 'host', toolCallsSinceLastCompaction: 148 });
  });
});

describe('replaying the small fixtures', () => {
  const small = [
    ['marot-spotter/short.jsonl', 2],
    ['marot-spotter/tool_heavy.jsonl', 6],
    ['marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04/subagents/agent-acompact-946d2b.jsonl', 0],
    ['daaain-claude-code-log/representative_messages.jsonl', 2],
    ['daaain-claude-code-log/edge_cases.jsonl', 3],
    ['daaain-claude-code-log/session_b.jsonl', 0],
    ['daaain-claude-code-log/todowrite_examples.jsonl', 3],
  ] as const;

  it.each(small)('%s: counts its tool calls, suggests nothing, never errs', async (relative, toolCalls) => {
    const result = await replay(path.join(fixturesRoot, 'claude-code-transcripts', relative), 'transcript');
    expect(result).toEqual({ notices: [], toolCalls, errors: [] });
  });
});
