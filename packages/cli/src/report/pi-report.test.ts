import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport, type Report } from './analyze.js';
import { renderHtml } from './render-html.js';
import { renderText } from './render-text.js';
import { keepNewestResult, reportJsonOn, SHORT_SESSION_PRUNE, threePlugins } from './test-support.js';

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/pi/${name}`, import.meta.url));
const SESSIONS = ['pi-1.5.2-session.jsonl', 'pi-session-long.jsonl'] as const;

/**
 * The Claude Code transcript of the same pi session, written here by hand from its entries (one
 * assistant line per message with its usage, a user line per tool result, a compact boundary
 * with `tokensBefore` and a summary line for the compaction): what the report must give the same
 * figures for. pi keeps a tail after its summary, Claude Code does not: histories differ after it.
 */
function equivalentTranscript(file: string): string {
  const lines: unknown[] = [];
  for (const entry of readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))) {
    if (entry.type === 'compaction') {
      lines.push({ type: 'system', subtype: 'compact_boundary', compactMetadata: { trigger: 'auto', preTokens: entry.tokensBefore } });
      lines.push({ type: 'user', isCompactSummary: true, message: { role: 'user', content: entry.summary } });
      continue;
    }
    if (entry.type !== 'message') continue;
    const { message } = entry;
    if (message.role === 'user') lines.push({ type: 'user', message: { role: 'user', content: message.content } });
    if (message.role === 'toolResult') {
      const text = message.content.map((block: { text: string }) => block.text).join('\n');
      lines.push({
        type: 'user',
        message: {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: message.toolCallId, content: text, ...(message.isError ? { is_error: true } : {}) },
          ],
        },
      });
    }
    if (message.role !== 'assistant') continue;
    const content = message.content.map((block: { type: string; text?: string; id?: string; name?: string; arguments?: unknown }) =>
      block.type === 'toolCall'
        ? { type: 'tool_use', id: block.id, name: block.name, input: block.arguments }
        : { type: 'text', text: block.text },
    );
    const usage = {
      input_tokens: message.usage.input,
      cache_read_input_tokens: message.usage.cacheRead,
      cache_creation_input_tokens: message.usage.cacheWrite,
      output_tokens: message.usage.output,
    };
    lines.push({ type: 'assistant', message: { id: entry.id, model: message.model, role: 'assistant', content, usage } });
  }
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'hookwise-pi-report-'));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each(SESSIONS)('hookwise report on the pi session %s', (name) => {
  let fromPi: Report;
  let fromTranscript: Report;
  let customPi: Report;
  let customTranscript: Report;
  const raw = readFileSync(fixture(name), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));

  beforeAll(async () => {
    const transcript = path.join(dir, `${name}.claude.jsonl`);
    await writeFile(transcript, equivalentTranscript(fixture(name)));
    fromPi = await buildReport(fixture(name), { projectDir: dir, config: await threePlugins(SHORT_SESSION_PRUNE) });
    fromTranscript = await buildReport(transcript, { projectDir: dir, config: await threePlugins(SHORT_SESSION_PRUNE) });
    customPi = await buildReport(fixture(name), { projectDir: dir, config: { on: { 'llm:before': keepNewestResult } } });
    customTranscript = await buildReport(transcript, { projectDir: dir, config: { on: { 'llm:before': keepNewestResult } } });
  });

  it('says the session came from pi, and heads the llm:before figures as what hookwise did there', () => {
    expect(fromPi.host).toBe('pi');
    expect(fromPi.sessionId).toBe(raw[0].id);
    expect(fromPi.model).toBe('m');
    expect(fromPi.lines).toBe(raw.length);
    const text = renderText(fromPi);
    expect(text.split('\n')[1]).toContain('host: pi');
    expect(text).toContain('What hookwise did before every request in pi');
    expect(renderHtml(fromPi)).toContain('host: pi');
  });

  it('gives the figures of the equivalent Claude Code transcript: requests, peak, tool calls, prompts, compaction', () => {
    const assistants = raw.filter((entry) => entry.type === 'message' && entry.message.role === 'assistant');
    expect(fromPi.timeline.length).toBe(assistants.length);
    const figures = (report: Report) =>
      report.timeline.map(({ contextTokens, inputTokens, cacheReadInputTokens, cacheCreationInputTokens, toolCalls }) => ({
        contextTokens,
        inputTokens,
        cacheReadInputTokens,
        cacheCreationInputTokens,
        toolCalls,
      }));
    expect(figures(fromPi)).toEqual(figures(fromTranscript));
    expect(fromPi.peakContextTokens).toBe(fromTranscript.peakContextTokens);
    expect(fromPi.toolCalls).toBe(fromTranscript.toolCalls);
    expect(fromPi.toolCalls).toBe(raw.filter((entry) => entry.type === 'message' && entry.message.role === 'toolResult').length);
    expect(fromPi.prompts).toBe(fromTranscript.prompts);
    expect(fromPi.prompts).toBe(raw.filter((entry) => entry.type === 'message' && entry.message.role === 'user').length);
    const compaction = (report: Report) =>
      report.compactions.map(({ trigger, preTokens, postTokens, postTokensSource }) => ({
        trigger,
        preTokens,
        postTokens,
        postTokensSource,
      }));
    expect(compaction(fromPi)).toEqual(compaction(fromTranscript));
    const at = raw.findIndex((entry) => entry.type === 'compaction');
    const next = raw.slice(at).find((entry) => entry.type === 'message' && entry.message.role === 'assistant').message.usage;
    expect(compaction(fromPi)).toEqual([
      {
        trigger: 'auto',
        preTokens: raw[at].tokensBefore,
        postTokens: next.input + next.cacheRead + next.cacheWrite,
        postTokensSource: 'measured',
      },
    ]);
    expect(fromPi.hookErrors).toEqual([]);
    expect(fromPi.malformedLines).toBe(0);
  });

  it('gives the same prune figures, cost and edits per request up to the compaction, with hook-prune and with a transformer that always prunes', () => {
    const before = raw
      .slice(
        0,
        raw.findIndex((entry) => entry.type === 'compaction'),
      )
      .filter((entry) => entry.type === 'message' && entry.message.role === 'assistant').length;
    expect(before).toBeGreaterThan(1);
    const prune = (report: Report) =>
      report.timeline.slice(0, before).map(({ pruneReclaimedTokens, prunedParts, costWithout, costWithPrune }) => ({
        pruneReclaimedTokens,
        prunedParts,
        costWithout,
        costWithPrune,
      }));
    expect(prune(fromPi)).toEqual(prune(fromTranscript));
    expect(prune(customPi)).toEqual(prune(customTranscript));
    expect(customPi.timeline.slice(0, before).some((entry) => (entry.prunedParts ?? 0) > 0)).toBe(true);
    expect(fromPi.compactions[0]!.prune).toEqual(fromTranscript.compactions[0]!.prune);
    expect(fromPi.prune).toMatchObject({ method: 'every-request', requests: fromPi.timeline.length });
    expect(fromPi.cost?.edits.sourced).toBe(fromTranscript.cost?.edits.sourced);
  });
});

describe('hookwise report on the long pi session', () => {
  it('finds the edit pi made and whether its old text was still shown', async () => {
    const report = await buildReport(fixture('pi-session-long.jsonl'), {
      projectDir: dir,
      config: { on: { 'llm:before': keepNewestResult } },
    });
    // The edit's old text came from a read two requests back, cleared by the transformer: one lost edit.
    expect(report.cost?.edits).toMatchObject({ sourced: 1, lost: 1 });
  });
});

describe('hookwise report on a file that starts like a pi session but is not one', () => {
  const run = (name: string, text: string) => reportJsonOn(dir, name, text);

  beforeAll(async () => {
    await writeFile(path.join(dir, 'hookwise.config.json'), JSON.stringify({ plugins: {} }));
  });

  it('reads a pi session by its content, whatever its name', async () => {
    const result = await run('session.json', readFileSync(fixture('pi-session-long.jsonl'), 'utf8'));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ host: 'pi', toolCalls: 11, prompts: 3, malformedLines: 0 });
  });

  it('exits 1 with a clear message for a session header without an id', async () => {
    const result = await run('no-id.jsonl', `${JSON.stringify({ type: 'session', version: 3 })}\n`);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^hookwise report: .*no-id\.jsonl starts like a pi session file but its first line is not a session header/,
    );
  });

  it('counts cut and broken lines of a pi session and reports the rest', async () => {
    const lines = readFileSync(fixture('pi-session-long.jsonl'), 'utf8').trim().split('\n');
    const broken = [...lines.slice(0, 6), '{"type":"message","id":"x","mess', 'null', ...lines.slice(6), lines.at(-1)!.slice(0, 40)].join(
      '\n',
    );
    const result = await run('broken.jsonl', broken);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ host: 'pi', malformedLines: 3, malformed: [{ line: 7 }, { line: 8 }, { line: lines.length + 3 }] });
    // The cut last line was the leaf: the branch ends at the line before it, with every tool call.
    expect(report.toolCalls).toBe(11);
  });

  it('reports an empty pi session (a header alone) as empty', async () => {
    const result = await run('empty.jsonl', `${readFileSync(fixture('pi-session-long.jsonl'), 'utf8').split('\n')[0]}\n`);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ host: 'pi', toolCalls: 0, prompts: 0, timeline: [] });
  });
});
