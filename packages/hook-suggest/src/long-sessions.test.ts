import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createEngine, createMemoryEventLog, createMemoryStateStore, silentLogger } from '@hookwise/core/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fixturesRoot, replayTranscript, transcriptClock } from './__fixtures__/replay.js';
import { suggest } from './index.js';

/**
 * hook-suggest's promises on every real session of 100 requests or more in fixtures/, replayed as
 * Claude Code runs the hooks (the transcript is all the plugin reads): few suggestions between
 * compactions, each compaction announced, the first tool-call suggestion at 50 calls, and no
 * suggestion stating a window the session did not have.
 */
const sessions = [
  { file: 'marot-spotter/ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl', window: 200_000 },
  { file: 'FSM1-cipher-box/2095544c-fa50-4027-b664-c37e578957ce.jsonl', window: 200_000 },
  // Opus with the 1M window: peak context 400,879 tokens.
  { file: 'JanDeDobbeleer-oh-my-posh/6c0a282a-886f-458d-a426-93d95104b4a6.jsonl', window: 1_000_000 },
  { file: 'entireio-cli/08940314-9e93-46b1-a598-06bada65ed55.jsonl', window: 200_000 },
  { file: 'entireio-cli/6113e919-67d3-417b-b525-c63700228d19.jsonl', window: 200_000 },
];

let projectDir: string;
beforeEach(async () => {
  projectDir = await mkdtemp(path.join(tmpdir(), 'hw-suggest-long-'));
});
afterEach(async () => {
  await rm(projectDir, { recursive: true, force: true });
});

async function replay(fixture: string) {
  const clock = transcriptClock();
  const engine = createEngine({
    config: { plugins: [suggest({ compactionNotice: true })] },
    projectDir,
    host: 'claude-code',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
    clock,
  });
  const result = await replayTranscript(path.join(fixturesRoot, 'claude-code-transcripts', fixture), {
    engine,
    sessionId: 's1',
    transcriptPath: path.join(projectDir, 'transcript.jsonl'),
    mode: 'transcript',
    clock,
  });
  await engine.dispose();
  return result;
}

describe.each(sessions)('the real session $file', ({ file, window }) => {
  it('gets at most 6 suggestions between compactions, one before each compaction, the first tool-call one at 50 calls, no wrong window', async () => {
    const result = await replay(file);
    expect(result.errors).toEqual([]);
    const segments: string[][] = [[]];
    for (const notice of result.notices) {
      if (notice.point === 'compact:after') segments.push([]);
      else segments.at(-1)!.push(notice.notice);
    }
    expect(segments.length).toBeGreaterThan(1); // every one of these sessions compacts
    for (const segment of segments) expect(segment.length).toBeLessThanOrEqual(6);
    for (const segment of segments.slice(0, -1)) expect(segment.length).toBeGreaterThan(0);
    for (const segment of segments) {
      const firstToolCalls = segment.find((text) => /tool calls since the last compaction/.test(text));
      if (firstToolCalls !== undefined) expect(firstToolCalls).toMatch(/(^|\. )50 tool calls since the last compaction\./);
    }
    const stated = result.notices.flatMap((notice) =>
      [...notice.notice.matchAll(/\/ ([\d,]+) tokens\)/g)].map((match) => Number(match[1]!.replace(/,/g, ''))),
    );
    for (const statedWindow of stated) expect(statedWindow).toBe(window);
  });
});
