import { describe, expect, it } from 'vitest';
import { EVENT_POINTS, type MappedEvent } from './events.js';
import type { MergedNotice } from '@hookwise/core';
import { capText, noticeOf, OUTPUT_CHARACTER_CAP, renderOutput, serializeOutput } from './output.js';

const events = Object.keys(EVENT_POINTS) as MappedEvent[];

/**
 * Output forms checked against the protocol reference (§1.3, §2.2): hookSpecificOutput only for
 * events that have a variant, with the matching hookEventName; PreCompact context as plain
 * stdout; systemMessage not on events that discard it; blocks in each event's own form.
 */
describe('renderOutput', () => {
  it.each(['SessionStart', 'UserPromptSubmit', 'UserPromptExpansion', 'PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'Stop'] as const)(
    '%s: context → hookSpecificOutput.additionalContext',
    (event) => {
      expect(renderOutput(event, { context: 'remember X' })).toEqual({
        kind: 'json',
        value: { hookSpecificOutput: { hookEventName: event, additionalContext: 'remember X' } },
      });
    },
  );

  it('PreCompact: context → plain stdout (the compaction instructions), never JSON', () => {
    expect(renderOutput('PreCompact', { context: 'keep /babysit', notice: 'ignored' })).toEqual({ kind: 'text', value: 'keep /babysit' });
    expect(renderOutput('PreCompact', { context: '{"looks":"like json"}' })).toEqual({
      kind: 'text',
      value: 'Compaction instructions:\n{"looks":"like json"}',
    });
  });

  it.each(['PostCompact', 'SessionEnd', 'SubagentStop'] as const)('%s: context is not emitted (no channel to the model)', (event) => {
    expect(renderOutput(event, { context: 'x' })).toEqual({ kind: 'none' });
  });

  it.each(events.filter((event) => !['PreCompact', 'PostCompact', 'SessionEnd'].includes(event)))('%s: notice → systemMessage', (event) => {
    expect(renderOutput(event, { notice: 'Consider /compact' })).toEqual({ kind: 'json', value: { systemMessage: 'Consider /compact' } });
  });

  it.each(['PreCompact', 'PostCompact', 'SessionEnd'] as const)(
    '%s: notice is dropped (Claude Code discards systemMessage there)',
    (event) => {
      expect(renderOutput(event, { notice: 'x' })).toEqual({ kind: 'none' });
    },
  );

  it('PreToolUse: block → permissionDecision deny with the reason', () => {
    expect(renderOutput('PreToolUse', { block: { reason: 'no rm -rf' } })).toEqual({
      kind: 'json',
      value: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'no rm -rf' } },
    });
  });

  it.each(['UserPromptSubmit', 'UserPromptExpansion', 'Stop', 'PreCompact'] as const)(
    '%s: block → decision "block" with the reason',
    (event) => {
      expect(renderOutput(event, { block: { reason: 'because' } })).toEqual({
        kind: 'json',
        value: { decision: 'block', reason: 'because' },
      });
    },
  );

  it('PreCompact: a block wins over instructions', () => {
    expect(renderOutput('PreCompact', { block: { reason: 'not now' }, context: 'keep X' })).toEqual({
      kind: 'json',
      value: { decision: 'block', reason: 'not now' },
    });
  });

  it.each(['SessionStart', 'PostToolUse', 'SessionEnd', 'PostCompact'] as const)('%s: a block has no form and is not emitted', (event) => {
    expect(renderOutput(event, { block: { reason: 'x' } })).toEqual({ kind: 'none' });
  });

  it('PostToolUse: updatedToolOutput only there', () => {
    expect(renderOutput('PostToolUse', { updatedToolOutput: { content: [{ type: 'text', text: 'summary' }] } })).toEqual({
      kind: 'json',
      value: { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: { content: [{ type: 'text', text: 'summary' }] } } },
    });
    expect(renderOutput('PostToolUseFailure', { updatedToolOutput: 'x' })).toEqual({ kind: 'none' });
  });

  it('combines context, notice and a replaced output in one object', () => {
    const rendered = renderOutput('PostToolUse', { context: 'c', notice: 'n', updatedToolOutput: 'u' });
    expect(rendered).toEqual({
      kind: 'json',
      value: { systemMessage: 'n', hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'c', updatedToolOutput: 'u' } },
    });
    expect(JSON.parse(serializeOutput(rendered))).toEqual((rendered as { value: unknown }).value);
  });

  it('emits nothing for an empty or blank result', () => {
    expect(renderOutput('PostToolUse', {})).toEqual({ kind: 'none' });
    expect(renderOutput('PostToolUse', { context: '  ', notice: '' })).toEqual({ kind: 'none' });
    expect(serializeOutput({ kind: 'none' })).toBe('');
  });

  it('keeps every string under the 10,000-character cap', () => {
    const long = 'a'.repeat(25_000);
    const rendered = renderOutput('PostToolUse', {
      context: long,
      notice: long,
      updatedToolOutput: { content: [{ type: 'text', text: long }] },
    });
    const strings: string[] = [];
    JSON.parse(serializeOutput(rendered), (_key, value: unknown) => (typeof value === 'string' && strings.push(value), value));
    expect(Math.max(...strings.map((text) => text.length))).toBeLessThan(OUTPUT_CHARACTER_CAP);
    const text = renderOutput('PreCompact', { context: long });
    expect(text.kind === 'text' && text.value.length).toBeLessThan(OUTPUT_CHARACTER_CAP);
  });
});

describe('capText', () => {
  it('leaves short text alone and marks what it cut', () => {
    expect(capText('short')).toBe('short');
    const cut = capText('b'.repeat(12_000));
    expect(cut.length).toBe(OUTPUT_CHARACTER_CAP - 1);
    expect(cut).toMatch(/\[… cut by hookwise: 2001 more characters\]$/);
  });

  it('does not split a surrogate pair', () => {
    const emoji = '😀'.repeat(6_000);
    const cut = capText(emoji);
    expect(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(cut)).toBe(false);
  });
});

describe('notices in Claude Code’s terms', () => {
  const notice = (statement: string, actions: MergedNotice['actions'] = []): MergedNotice => ({
    text: statement,
    statement,
    about: [],
    actions,
    pluginName: 'p',
    hookName: 'tool:after',
  });

  it('words the compact action as its /compact command and a plugin command as its command line', () => {
    const suggestion = notice('Context at 71% (141,369 / 200,000 tokens).', [
      { label: 'Compact now', hostAction: 'compact' },
      { label: 'Dismiss', command: 'suggest dismiss', note: 'quiet until 80%' },
    ]);
    expect(noticeOf({ notices: [suggestion, notice('plain'), notice('  ')] }, 'claude-code')).toBe(
      'Context at 71% (141,369 / 200,000 tokens). Consider /compact now. (hookwise suggest dismiss: quiet until 80%)\nplain',
    );
  });

  it('keeps the engine’s host-neutral text under the Agent SDK', () => {
    expect(
      noticeOf({ notice: 'neutral', notices: [notice('statement', [{ label: 'Compact now', hostAction: 'compact' }])] }, 'agent-sdk'),
    ).toBe('neutral');
  });

  it('is undefined without notices', () => {
    expect(noticeOf({ notices: [] }, 'claude-code')).toBeUndefined();
    expect(noticeOf(undefined, 'claude-code')).toBeUndefined();
  });
});
