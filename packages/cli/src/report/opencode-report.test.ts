import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HookFunction } from '@hookwise/core';
import type { Message } from '@hookwise/core/messages';
import { buildReport, type Report } from './analyze.js';
import { renderHtml } from './render-html.js';
import { renderText } from './render-text.js';
import { keepNewestResult, reportJsonOn, SHORT_SESSION_PRUNE, threePlugins } from './test-support.js';

const exportFile = fileURLToPath(new URL('./__fixtures__/opencode/opencode-export.json', import.meta.url));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const exported: any = JSON.parse(readFileSync(exportFile, 'utf8'));

/**
 * The Claude Code transcript of the same session, written here by hand from the export (one
 * assistant line per request with its usage, a user line of tool results after it, a compact
 * boundary and a summary line for the compaction): what the report must give the same figures for.
 */
function equivalentTranscript(): string {
  const lines: unknown[] = [];
  for (const { info, parts } of exported.messages) {
    if (info.role === 'user') {
      const compaction = parts.find((part: any) => part.type === 'compaction');
      if (compaction) {
        lines.push({ type: 'system', subtype: 'compact_boundary', compactMetadata: { trigger: compaction.auto ? 'auto' : 'manual' } });
        lines.push({ type: 'user', isCompactSummary: true, message: { role: 'user', content: 'What did we do so far?' } });
        continue;
      }
      const texts = parts.filter((part: any) => part.type === 'text');
      lines.push({
        type: 'user',
        ...(texts.every((part: any) => part.synthetic) ? { isMeta: true } : {}),
        message: { role: 'user', content: texts.map((part: any) => ({ type: 'text', text: part.text })) },
      });
      continue;
    }
    if (info.summary === true) continue;
    const content: unknown[] = [];
    const results: unknown[] = [];
    for (const part of parts) {
      if (part.type === 'text') content.push({ type: 'text', text: part.text });
      if (part.type !== 'tool') continue;
      content.push({ type: 'tool_use', id: part.callID, name: part.tool, input: part.state.input });
      results.push(
        part.state.status === 'completed'
          ? { type: 'tool_result', tool_use_id: part.callID, content: part.state.output }
          : { type: 'tool_result', tool_use_id: part.callID, content: part.state.error, is_error: true },
      );
    }
    const usage = {
      input_tokens: info.tokens.input,
      cache_read_input_tokens: info.tokens.cache.read,
      cache_creation_input_tokens: info.tokens.cache.write,
      output_tokens: info.tokens.output,
    };
    lines.push({ type: 'assistant', message: { id: info.id, model: info.modelID, role: 'assistant', content, usage } });
    if (results.length > 0) lines.push({ type: 'user', message: { role: 'user', content: results } });
  }
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

let dir: string;
let transcript: string;
const histories: Message[][] = [];

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'hookwise-opencode-report-'));
  transcript = path.join(dir, 'equivalent.jsonl');
  await writeFile(transcript, equivalentTranscript());
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('hookwise report on an OpenCode export', () => {
  let fromExport: Report;
  let fromTranscript: Report;
  let customExport: Report;
  let customTranscript: Report;

  beforeAll(async () => {
    fromExport = await buildReport(exportFile, { projectDir: dir, config: await threePlugins(SHORT_SESSION_PRUNE) });
    fromTranscript = await buildReport(transcript, { projectDir: dir, config: await threePlugins(SHORT_SESSION_PRUNE) });
    const record: HookFunction<'llm:before'> = (payload) => void histories.push(payload.messages);
    customExport = await buildReport(exportFile, { projectDir: dir, config: { on: { 'llm:before': [record, keepNewestResult] } } });
    customTranscript = await buildReport(transcript, { projectDir: dir, config: { on: { 'llm:before': keepNewestResult } } });
  });

  it('says where the session came from', () => {
    expect(fromExport.host).toBe('opencode');
    expect(fromTranscript.host).toBe('claude-code');
    expect(fromExport.sessionId).toBe(exported.info.id);
    expect(fromExport.model).toBe('m');
    expect(renderText(fromExport).split('\n')[1]).toContain('host: OpenCode');
    expect(renderText(fromTranscript).split('\n')[1]).toContain('host: Claude Code');
    expect(renderHtml(fromExport)).toContain('host: OpenCode');
  });

  it('gives the figures of the equivalent Claude Code transcript: requests, peak, tool calls, prompts, compaction', () => {
    expect(fromExport.timeline.length).toBe(8);
    const figures = (report: Report) =>
      report.timeline.map(({ contextTokens, inputTokens, cacheReadInputTokens, cacheCreationInputTokens, toolCalls }) => ({
        contextTokens,
        inputTokens,
        cacheReadInputTokens,
        cacheCreationInputTokens,
        toolCalls,
      }));
    expect(figures(fromExport)).toEqual(figures(fromTranscript));
    expect(fromExport.peakContextTokens).toBe(fromTranscript.peakContextTokens);
    expect(fromExport.toolCalls).toBe(fromTranscript.toolCalls);
    expect(fromExport.toolCalls).toBe(6);
    expect(fromExport.prompts).toBe(2);
    expect(fromExport.contextWindow).toBe(fromTranscript.contextWindow);
    const compaction = (report: Report) =>
      report.compactions.map(({ trigger, preTokens, postTokens, postTokensSource }) => ({
        trigger,
        preTokens,
        postTokens,
        postTokensSource,
      }));
    expect(compaction(fromExport)).toEqual(compaction(fromTranscript));
    expect(compaction(fromExport)).toEqual([
      {
        trigger: 'auto',
        preTokens: fromExport.timeline[6]!.contextTokens,
        postTokens: fromExport.timeline[7]!.contextTokens,
        postTokensSource: 'measured',
      },
    ]);
    expect(fromExport.hookErrors).toEqual([]);
  });

  it('gives the same prune figures per request up to the compaction, with hook-prune and with a transformer that always prunes', () => {
    const compactionAt = 7; // requests before OpenCode's compaction
    const prune = (report: Report) =>
      report.timeline.slice(0, compactionAt).map(({ pruneReclaimedTokens, prunedParts }) => ({ pruneReclaimedTokens, prunedParts }));
    expect(prune(fromExport)).toEqual(prune(fromTranscript));
    expect(prune(customExport)).toEqual(prune(customTranscript));
    expect(customExport.timeline.slice(0, compactionAt).some((entry) => (entry.prunedParts ?? 0) > 0)).toBe(true);
    expect(fromExport.compactions[0]!.prune).toEqual(fromTranscript.compactions[0]!.prune);
    expect(fromExport.prune).toMatchObject({ method: 'every-request', requests: 8 });
  });

  it('runs llm:before after the compaction on the history OpenCode sends: question, summary, the kept tail, then "Continue…"', () => {
    // The last request's history (the one after the compaction).
    const last = histories.at(-1)!;
    const text = (message: Message) => message.parts.map((part) => (part.type === 'text' ? part.text : part.type)).join(' ');
    expect(last[0]).toMatchObject({ role: 'user', compactSummary: true });
    expect(text(last[0]!)).toBe('What did we do so far?');
    expect(text(last[1]!)).toMatch(/^Summary:/);
    expect(text(last.at(-1)!)).toMatch(/^Continue if you have next steps/);
    // The tail holds the calls from tail_start_id on: glob, then the three of the second prompt.
    const calls = last.flatMap((message) => message.parts.flatMap((part) => (part.type === 'tool-call' ? [part.toolName] : [])));
    expect(calls).toEqual(['glob', 'read', 'read', 'edit']);
    expect(last.flatMap((message) => message.parts.filter((part) => part.type === 'tool-result'))).toHaveLength(4);
  });
});

describe('hookwise report on a file that is not a session', () => {
  const run = (name: string, text: string) => reportJsonOn(dir, name, text);

  beforeAll(async () => {
    await writeFile(path.join(dir, 'hookwise.config.json'), JSON.stringify({ plugins: {} }));
  });

  it('reads a one-line export by its content, whatever its name', async () => {
    const result = await run('session.jsonl', JSON.stringify(exported));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ host: 'opencode', toolCalls: 6, malformedLines: 0 });
  });

  it('exits 1 with a clear message for an export that is not valid JSON', async () => {
    const text = readFileSync(exportFile, 'utf8');
    const result = await run('cut.json', text.slice(0, Math.floor(text.length / 2)));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^hookwise report: .*cut\.json is not valid JSON \(an OpenCode export is one JSON document/);
  });

  it('exits 1 for a JSON document of neither shape', async () => {
    for (const [name, value] of [
      ['other.json', { sessions: [] }],
      ['array.json', [1, 2]],
      ['no-messages.json', { info: { id: 'ses_x' }, messages: 'none' }],
    ] as const) {
      const result = await run(name, JSON.stringify(value, null, 2));
      expect(result.code, name).toBe(1);
      expect(result.stderr, name).toContain('is JSON but not a session file');
    }
  });

  it('counts a malformed message of an export and reports the rest', async () => {
    const broken = { ...exported, messages: [...exported.messages.slice(0, 3), { nope: true }, ...exported.messages.slice(3)] };
    const result = await run('broken.json', JSON.stringify(broken, null, 2));
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ host: 'opencode', malformedLines: 1, malformed: [{ line: 4 }], toolCalls: 6 });
  });

  it('still reads a Claude Code transcript whose first line is cut as JSONL, counting the line', async () => {
    const result = await run('cut-first.jsonl', `{"type":"user","mess\n${equivalentTranscript()}`);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ host: 'claude-code', malformedLines: 1, toolCalls: 6 });
  });
});
