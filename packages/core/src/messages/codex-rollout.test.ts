import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readRolloutTail, rolloutUsageFields } from './codex-rollout.js';

// A real rollout of Codex 0.169.0 (see packages/cli/src/report/__fixtures__/codex/README.md).
const fixture = fileURLToPath(new URL('../../../cli/src/report/__fixtures__/codex/codex-0.169.0-rollout.jsonl', import.meta.url));
const dir = mkdtempSync(path.join(os.tmpdir(), 'hookwise-rollout-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const line = (type: string, payload: unknown) => JSON.stringify({ timestamp: '2026-11-29T00:00:00Z', type, payload });
const count = (input: number, total = input + 10) =>
  line('event_msg', {
    type: 'token_count',
    info: {
      last_token_usage: { input_tokens: input, cached_input_tokens: 0, output_tokens: 10, total_tokens: total },
      model_context_window: 190_000,
    },
  });

function rollout(...lines: string[]): string {
  const file = path.join(dir, `r-${Math.random().toString(36).slice(2)}.jsonl`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

describe('the rollout tail', () => {
  it("gives the newest request's input tokens and the window; after a compaction, Codex's estimate as tokensAfter", async () => {
    const tail = await readRolloutTail(fixture);
    expect(tail.usage).toMatchObject({ inputTokens: 12_000, contextWindow: 190_000 });
    expect(rolloutUsageFields('tool:after', tail)).toEqual({ contextTokens: 12_000, contextSource: 'usage', contextWindow: 190_000 });

    const afterCompaction = await readRolloutTail(rollout(count(150_000), line('compacted', { message: 'summary' }), count(0, 6_072)));
    expect(rolloutUsageFields('compact:after', afterCompaction)).toEqual({
      tokensAfter: 6_072,
      contextSource: 'compact-boundary',
      contextWindow: 190_000,
    });
    expect(rolloutUsageFields('agent:stop', afterCompaction)).toMatchObject({ contextTokens: 6_072, contextSource: 'compact-boundary' });
  });

  it('knows nothing between a compaction and its estimate, nor in a rollout without a request; a half-written last line is skipped', async () => {
    expect(await readRolloutTail(rollout(count(150_000), line('compacted', { message: 'summary' })))).toEqual({ compacted: true });
    expect(rolloutUsageFields('tool:after', { compacted: true })).toEqual({});
    expect(await readRolloutTail(rollout(line('session_meta', { id: 'x' })))).toEqual({});
    expect((await readRolloutTail(rollout(count(1_000), '{"timestamp":"2026', ''))).usage?.inputTokens).toBe(1_000);
  });

  it('names the path when the file cannot be read', async () => {
    await expect(readRolloutTail(path.join(dir, 'missing.jsonl'))).rejects.toThrow(/missing\.jsonl/);
  });
});
