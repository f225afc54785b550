import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { bigSession } from './__fixtures__/replay.js';
import { capacityBands, defaultSuggestOptions, suggestOptionsSchema } from './options.js';
import {
  countToolCall,
  dismissSuggestions,
  evaluateSuggestion,
  dismissNote,
  formatSuggestion,
  formatTokens,
  initialSuggestionState,
  measurement,
  rearmSuggestions,
  type Suggestion,
  type SuggestionState,
} from './suggestion-policy.js';

const options = defaultSuggestOptions;
const at = (percent: number) => measurement(percent * 2_000, 200_000);

/** Feeds measurements (percent of 200k) through the policy; returns the state and the bands suggested. */
function feed(state: SuggestionState, percents: number[]): { state: SuggestionState; bands: Array<number | undefined> } {
  const bands: Array<number | undefined> = [];
  for (const percent of percents) {
    const result = evaluateSuggestion(state, at(percent), options);
    state = result.state;
    if (result.suggestion) bands.push(result.suggestion.capacity?.band);
  }
  return { state, bands };
}

function calls(
  state: SuggestionState,
  count: number,
  current?: ReturnType<typeof measurement>,
): { state: SuggestionState; suggestions: Array<{ at: number; suggestion: Suggestion }> } {
  const suggestions: Array<{ at: number; suggestion: Suggestion }> = [];
  for (let index = 0; index < count; index++) {
    const result = evaluateSuggestion(countToolCall(state), current, options);
    state = result.state;
    if (result.suggestion) suggestions.push({ at: state.toolCallsSinceCompaction, suggestion: result.suggestion });
  }
  return { state, suggestions };
}

describe('options', () => {
  it('defaults to 70 % and 50 calls, bands every 10 % below 100', () => {
    expect(options).toMatchObject({ capacityPercent: 70, capacityStep: 10, toolCalls: 50, toolCallStep: 25, compactionNotice: true });
    expect(capacityBands(options)).toEqual([70, 80, 90]);
    expect(capacityBands({ capacityPercent: 75, capacityStep: 7.5 })).toEqual([75, 82.5, 90, 97.5]);
    expect(capacityBands({ capacityPercent: 60, capacityStep: 0.1 })).toHaveLength(400);
  });

  it('refuses unusable options', () => {
    expect(suggestOptionsSchema().safeParse({ capacityPercent: 0 }).success).toBe(false);
    expect(suggestOptionsSchema().safeParse({ capacityPercent: 100 }).success).toBe(false);
    expect(suggestOptionsSchema().safeParse({ toolCalls: 2.5 }).success).toBe(false);
    expect(suggestOptionsSchema().safeParse({ logPath: '/var/log/x.jsonl' }).success).toBe(false);
    expect(suggestOptionsSchema().safeParse({ capacityPercnt: 70 }).success).toBe(false);
  });

  it('the exported defaults are what the schema makes of no options', () => {
    // Same keys in the same order: a report or a test that prints them sees no difference.
    expect(JSON.stringify(defaultSuggestOptions)).toBe(JSON.stringify(suggestOptionsSchema().parse({})));
    expect(defaultSuggestOptions).toStrictEqual(suggestOptionsSchema().parse({}));
  });
});

describe('capacity bands', () => {
  it('suggests once per band, never on every call', () => {
    expect(feed(initialSuggestionState(), [50, 69.9, 70, 71, 75, 79.9, 80, 85, 90, 95, 99]).bands).toEqual([70, 80, 90]);
  });

  it('gives one suggestion for the highest band when the context jumps over several', () => {
    const { bands, state } = feed(initialSuggestionState(), [60, 85, 88]);
    expect(bands).toEqual([80]);
    expect(state.capacityBandHandled).toBe(80);
  });

  it('does not re-suggest a band after the context shrinks and grows back without a compaction', () => {
    expect(feed(initialSuggestionState(), [72, 60, 73]).bands).toEqual([70]);
  });

  it('carries the figures that triggered it', () => {
    const result = evaluateSuggestion(initialSuggestionState(), measurement(141_369, 200_000), options);
    expect(result.suggestion).toEqual({
      capacity: { band: 70, percent: 70.6845, contextTokens: 141_369, contextWindow: 200_000 },
      nextBand: 80,
    });
    expect(formatSuggestion(result.suggestion!)).toBe('Context at 71% (141,369 / 200,000 tokens).');
    expect(dismissNote(result.suggestion!)).toBe('quiet until 80%');
  });
});

describe('tool-call suggestions', () => {
  it('come at 50, then at gaps that double (75, 125, 225, 425) since the last compaction', () => {
    const { suggestions, state } = calls(initialSuggestionState(), 500);
    expect(suggestions.map((entry) => entry.at)).toEqual([50, 75, 125, 225, 425]);
    expect(suggestions[0]!.suggestion).toEqual({ toolCalls: { count: 50, threshold: 50 }, nextBand: 70 });
    expect(state.toolCalls).toBe(500);
    expect(formatSuggestion(suggestions[0]!.suggestion)).toBe('50 tool calls since the last compaction.');
    expect(dismissNote(suggestions[0]!.suggestion)).toBe('quiet until 70%');
  });

  it('after the first, pass in silence while the context is under half the first band (35 %)', () => {
    const low = calls(initialSuggestionState(), 300, at(20));
    expect(low.suggestions.map((entry) => entry.at)).toEqual([50]);
    expect(low.state.nextToolCallSuggestion).toBe(425);
    const pressed = calls(initialSuggestionState(), 130, at(40));
    expect(pressed.suggestions.map((entry) => entry.at)).toEqual([50, 75, 125]);
    // With no size known, the count alone decides.
    expect(calls(initialSuggestionState(), 130).suggestions.map((entry) => entry.at)).toEqual([50, 75, 125]);
  });

  it('keep a fixed step and repeat at any size when told (toolCallBackoff 1, quietBelowPercent 0)', () => {
    let state = initialSuggestionState();
    const at20 = at(20);
    const seen: number[] = [];
    for (let index = 0; index < 130; index++) {
      const result = evaluateSuggestion(countToolCall(state), at20, { ...options, toolCallBackoff: 1, quietBelowPercent: 0 });
      state = result.state;
      if (result.suggestion?.toolCalls) seen.push(state.toolCallsSinceCompaction);
    }
    expect(seen).toEqual([50, 75, 100, 125]);
  });

  it('come once when concurrent calls push the count past a threshold in one step', () => {
    const state = { ...initialSuggestionState(), toolCallsSinceCompaction: 53, toolCalls: 53 };
    const first = evaluateSuggestion(state, undefined, options);
    expect(first.suggestion?.toolCalls).toEqual({ count: 53, threshold: 50 });
    expect(first.state.nextToolCallSuggestion).toBe(75);
    expect(evaluateSuggestion(countToolCall(first.state), undefined, options).suggestion).toBeUndefined();
  });

  it('merge with a capacity suggestion due at the same moment', () => {
    const state = { ...initialSuggestionState(), toolCallsSinceCompaction: 49, toolCalls: 49 };
    const { suggestion } = evaluateSuggestion(countToolCall(state), at(72), options);
    expect(suggestion).toMatchObject({ capacity: { band: 70 }, toolCalls: { count: 50 } });
    expect(formatSuggestion(suggestion!)).toBe('Context at 72% (144,000 / 200,000 tokens). 50 tool calls since the last compaction.');
  });

  it('word a size against an assumed window in tokens only', () => {
    const { suggestion } = evaluateSuggestion(initialSuggestionState(), measurement(144_000), options);
    expect(suggestion?.capacity).toMatchObject({ band: 70, contextWindow: 200_000, windowAssumed: true });
    expect(formatSuggestion(suggestion!)).toBe('Context at 144,000 tokens.');
  });
});

describe('dismissal', () => {
  it('silences both kinds until the context reaches the next band', () => {
    let state = feed(initialSuggestionState(), [72]).state;
    state = { ...state, toolCallsSinceCompaction: 40, toolCalls: 40 };
    state = dismissSuggestions(state);
    expect(state.dismissed).toEqual({ untilBand: 80, untilToolCalls: null });
    const quiet = calls(state, 30, at(75)); // passes 50 and 75 calls, still below 80 %
    expect(quiet.suggestions).toEqual([]);
    const woken = evaluateSuggestion(countToolCall(quiet.state), at(81), options);
    expect(woken.suggestion).toMatchObject({ capacity: { band: 80 }, toolCalls: { count: 71, threshold: 50 } });
    expect(woken.state.dismissed).toBeNull();
    expect(woken.state.nextToolCallSuggestion).toBe(75);
  });

  it('silences a band not reached yet when dismissed below the first band', () => {
    const state = dismissSuggestions(feed(initialSuggestionState(), [40]).state);
    expect(state.dismissed).toEqual({ untilBand: 70, untilToolCalls: null });
    expect(feed(state, [69]).bands).toEqual([]);
    expect(feed(state, [70]).bands).toEqual([70]);
  });

  it('lasts until the next compaction above the last band', () => {
    const state = dismissSuggestions(feed(initialSuggestionState(), [93]).state);
    expect(state.dismissed).toEqual({ untilBand: null, untilToolCalls: null });
    expect(calls(state, 200, at(99)).suggestions).toEqual([]);
    expect(calls(rearmSuggestions(state, 'compaction'), 50, at(20)).suggestions).toHaveLength(1);
  });

  it('counts tool calls instead when no size is known', () => {
    let state = calls(initialSuggestionState(), 55).state; // suggested at 50
    state = dismissSuggestions(state);
    expect(state.dismissed).toEqual({ untilBand: null, untilToolCalls: 80 });
    const { suggestions } = calls(state, 30);
    expect(suggestions.map((entry) => entry.at)).toEqual([80]);
  });
});

describe('re-arming', () => {
  it('a compaction resets bands, the count since compaction and a dismissal, and keeps the session total', () => {
    let state = feed(initialSuggestionState(), [91]).state;
    state = dismissSuggestions(calls(state, 60, at(91)).state);
    state = rearmSuggestions(state, 'compaction');
    expect(state).toEqual({
      toolCalls: 60,
      toolCallsSinceCompaction: 0,
      capacityBandHandled: null,
      nextToolCallSuggestion: 50,
      dismissed: null,
      compactions: 1,
      lastMeasurement: null,
    });
    expect(feed(state, [71]).bands).toEqual([70]);
    expect(rearmSuggestions(state, 'clear').compactions).toBe(1);
  });
});

describe('on the recorded session (fixtures, PROVENANCE.md)', () => {
  type Turn = { line: number; tokens: number; inputAndCacheRead: number; toolUses: number };
  async function turns(): Promise<Turn[]> {
    const lines = (await readFile(bigSession, 'utf8')).split('\n');
    const result: Turn[] = [];
    lines.forEach((text, index) => {
      if (!text.trim()) return;
      const record = JSON.parse(text) as {
        type?: string;
        isSidechain?: boolean;
        message?: { usage?: Record<string, number>; content?: Array<{ type?: string }> };
      };
      const usage = record.message?.usage;
      if (record.type !== 'assistant' || record.isSidechain || !usage) return;
      const inputAndCacheRead = (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
      const toolUses = (record.message?.content ?? []).filter((block) => block.type === 'tool_use').length;
      result.push({ line: index + 1, tokens: inputAndCacheRead + (usage.cache_creation_input_tokens ?? 0), inputAndCacheRead, toolUses });
    });
    return result;
  }

  it('suggests capacity first at the turn on line 1464 (141,369 tokens, all three usage fields)', async () => {
    let state = initialSuggestionState();
    const suggested: Array<{ line: number; band: number | undefined; tokens: number | undefined }> = [];
    for (const turn of await turns()) {
      if (turn.line > 1481) break; // the compaction
      const result = evaluateSuggestion(state, measurement(turn.tokens, 200_000), options);
      state = result.state;
      if (result.suggestion?.capacity)
        suggested.push({ line: turn.line, band: result.suggestion.capacity.band, tokens: result.suggestion.capacity.contextTokens });
    }
    expect(suggested).toEqual([{ line: 1464, band: 70, tokens: 141_369 }]);
  });

  it('would suggest 9 lines late with the input + cache-read formula AgileFlow uses (line 1473)', async () => {
    let state = initialSuggestionState();
    let first: number | undefined;
    for (const turn of await turns()) {
      const result = evaluateSuggestion(state, measurement(turn.inputAndCacheRead, 200_000), options);
      state = result.state;
      if (result.suggestion?.capacity && first === undefined) first = turn.line;
    }
    expect(first).toBe(1473);
  });

  it('suggests by tool calls at the 50th tool_use, on line 580', async () => {
    let state = initialSuggestionState();
    let first: { line: number; count: number } | undefined;
    for (const turn of await turns()) {
      for (let index = 0; index < turn.toolUses && !first; index++) {
        const result = evaluateSuggestion(countToolCall(state), undefined, options);
        state = result.state;
        if (result.suggestion?.toolCalls) first = { line: turn.line, count: result.suggestion.toolCalls.count };
      }
    }
    expect(first).toEqual({ line: 580, count: 50 });
  });
});

describe('formatTokens', () => {
  it('writes token counts as toLocaleString("en-US") does', () => {
    const values = [
      0,
      1,
      12,
      999,
      1_000,
      35_641,
      199_999.5,
      200_000,
      1_000_000,
      123_456_789,
      -0.4,
      -1_234,
      -999_999,
      2 ** 53 + 2,
      1e21,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ];
    for (let value = 0; value < 5_000_000; value = value * 3 + 7) values.push(value, -value);
    for (const value of values) expect(formatTokens(value)).toBe(Math.round(value).toLocaleString('en-US'));
  });
});
