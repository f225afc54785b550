import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PointName } from '@hookwise/core';
import { createEngine, createMemoryEventLog, createMemoryStateStore, silentLogger, type Engine } from '@hookwise/core/host';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dispatchEvent } from './dispatch.js';
import type { GeminiInput, MappedEvent } from './events.js';

let dir: string;
let transcript: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hookwise-gemini-'));
  transcript = path.join(dir, 'session.jsonl');
  writeFileSync(transcript, `${JSON.stringify({ sessionId: 's1', kind: 'main' })}\n`);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const line = (record: unknown) => appendFileSync(transcript, `${JSON.stringify(record)}\n`);
const response = (input: number) =>
  line({ id: `g${input}`, type: 'gemini', content: '', tokens: { input, output: 5 }, model: 'gemini-2.5-flash' });
const snapshotHistory = (summary: string) =>
  line({
    $set: {
      messages: [
        { type: 'user', content: [{ text: '<session_context>…' }] },
        { type: 'user', content: [{ text: `<state_snapshot>${summary}</state_snapshot>` }] },
        { type: 'gemini', content: [{ text: 'Got it. Thanks for the additional context!' }] },
      ],
    },
  });

/** An engine whose one hook records every point it sees and answers with `answers[point]`. */
function engineRecording(
  seen: Array<{ point: PointName; payload: Record<string, unknown> }>,
  answers: Partial<Record<PointName, object>> = {},
): Engine {
  const points: PointName[] = [
    'session:start',
    'prompt:submit',
    'tool:before',
    'tool:after',
    'compact:before',
    'compact:after',
    'agent:stop',
    'session:end',
  ];
  const on = Object.fromEntries(
    points.map((point) => [
      point,
      (payload: Record<string, unknown>) => {
        seen.push({ point, payload });
        return answers[point];
      },
    ]),
  );
  return createEngine({
    config: { on },
    projectDir: dir,
    host: 'gemini',
    stateStore: createMemoryStateStore(),
    eventLog: createMemoryEventLog(),
    logger: silentLogger,
  });
}

/** One hook call; `output` is the JSON it prints ({} for nothing: the kit prints `{}` then). */
const call = async (engine: Engine, event: MappedEvent, fields: Partial<GeminiInput> = {}) => {
  const result = await dispatchEvent(engine, event, {
    session_id: 's1',
    transcript_path: transcript,
    cwd: dir,
    hook_event_name: event,
    ...fields,
  });
  return { ...result, output: result.stdout ? JSON.parse(result.stdout) : {} };
};

describe('PreCompress (fires before every model request in 0.61.0)', () => {
  it('emits nothing for a PreCompress that compressed nothing', async () => {
    const seen: Array<{ point: PointName; payload: Record<string, unknown> }> = [];
    const engine = engineRecording(seen);
    response(12_000);
    await call(engine, 'PreCompress', { trigger: 'auto' });
    response(12_400);
    await call(engine, 'AfterTool', { tool_name: 'run_shell_command', tool_response: { llmContent: 'ok' } });
    await call(engine, 'PreCompress', { trigger: 'auto' });
    await call(engine, 'AfterAgent', { prompt: 'p', prompt_response: 'done' });
    expect(seen.map((entry) => entry.point)).toEqual(['tool:after', 'agent:stop']);
  });

  it('emits compact:before and compact:after once, with the sizes, when the session file shows a new snapshot', async () => {
    const seen: Array<{ point: PointName; payload: Record<string, unknown> }> = [];
    const engine = engineRecording(seen, { 'compact:after': { context: 'RULES TO KEEP' } });
    response(900_000);
    await call(engine, 'PreCompress', { trigger: 'auto' });
    snapshotHistory('first');
    response(12_306);
    const first = await call(engine, 'AfterTool', { tool_name: 'run_shell_command', tool_response: { llmContent: 'ok' } });
    expect(seen.filter((entry) => entry.point.startsWith('compact:'))).toEqual([
      { point: 'compact:before', payload: expect.objectContaining({ trigger: 'auto', contextTokens: 900_000 }) },
      { point: 'compact:after', payload: expect.objectContaining({ trigger: 'auto', tokensBefore: 900_000, tokensAfter: 12_306 }) },
    ]);
    // Mid-turn: the tool result after the compression carries what must survive.
    expect(first.output.hookSpecificOutput).toEqual({ hookEventName: 'AfterTool', additionalContext: 'RULES TO KEEP' });
    const second = await call(engine, 'AfterTool', { tool_name: 'run_shell_command', tool_response: { llmContent: 'ok' } });
    expect(second.output.hookSpecificOutput).toBeUndefined();
    // The same snapshot written again (another rewrite of the history) is no new compression.
    await call(engine, 'PreCompress', { trigger: 'auto' });
    snapshotHistory('first');
    await call(engine, 'AfterAgent', {});
    expect(seen.filter((entry) => entry.point === 'compact:after')).toHaveLength(1);
    // Every later prompt carries it, so a compression in its turn keeps it (the current prompt is never summarized).
    for (const prompt of ['next', 'and next']) {
      const turn = await call(engine, 'BeforeAgent', { prompt });
      expect(turn.output.hookSpecificOutput).toEqual({ hookEventName: 'BeforeAgent', additionalContext: 'RULES TO KEEP' });
    }
  });
});

describe('SessionStart', () => {
  it('never renders context there (--resume drops a prompt a SessionStart hook prefixed); BeforeAgent carries it', async () => {
    const engine = engineRecording([], {
      'session:start': { context: 'start ctx', notice: 'hello' },
      'prompt:submit': { context: 'turn ctx' },
    });
    const start = await call(engine, 'SessionStart', { source: 'startup' });
    expect(start.output).toEqual({ systemMessage: 'hello' });
    const turn = await call(engine, 'BeforeAgent', { prompt: 'hi' });
    expect(turn.output.hookSpecificOutput).toEqual({ hookEventName: 'BeforeAgent', additionalContext: 'turn ctx' });
  });

  it("does not take resume's stub transcript for the session's file", async () => {
    const seen: Array<{ point: PointName; payload: Record<string, unknown> }> = [];
    const engine = engineRecording(seen);
    await call(engine, 'SessionStart', { source: 'resume', transcript_path: path.join(dir, 'stub.jsonl') });
    expect(seen[0]).toEqual({ point: 'session:start', payload: expect.objectContaining({ source: 'resume' }) });
    expect(seen[0]!.payload.transcriptPath).toBeUndefined();
  });
});

describe('blocks and output', () => {
  it('denies where Gemini lets a hook deny (BeforeAgent, BeforeTool); a tool:after transform is not passed off as a trim', async () => {
    const engine = engineRecording([], {
      'tool:before': { block: { reason: 'not this one' } },
      'tool:after': { value: 'short', block: { reason: 'x' } },
    });
    expect((await call(engine, 'BeforeTool', { tool_name: 'run_shell_command', tool_input: { command: 'rm -rf /' } })).output).toEqual({
      decision: 'deny',
      reason: 'not this one',
    });
    expect((await call(engine, 'AfterTool', { tool_name: 'run_shell_command', tool_response: { llmContent: 'long' } })).output).toEqual({});
  });

  it("a custom command's expansion reaches prompt:submit as the command", async () => {
    const seen: Array<{ point: PointName; payload: Record<string, unknown> }> = [];
    const engine = engineRecording(seen);
    const commands = path.join(dir, '.gemini', 'commands');
    (await import('node:fs')).mkdirSync(commands, { recursive: true });
    writeFileSync(path.join(commands, 'review.toml'), 'description = "r"\nprompt = """\nReview {{args}} carefully.\n"""\n');
    await call(engine, 'BeforeAgent', { prompt: 'Review src/a.ts carefully.' });
    expect(seen[0]!.payload.command).toEqual({ name: 'review', args: 'src/a.ts' });
  });
});
