import { describe, expect, it } from 'vitest';
import type { Message } from './message-model.js';
import { isUserPrompt } from './user-prompt.js';

const user = (text: string, extra: Partial<Message> = {}): Message => ({ role: 'user', parts: [{ type: 'text', text }], ...extra });

describe('isUserPrompt (the one rule)', () => {
  it('takes what the user typed, slash commands and images included', () => {
    expect(isUserPrompt(user('fix the bug'))).toBe(true);
    expect(isUserPrompt(user('/babysit'))).toBe(true);
    expect(isUserPrompt(user('<command-name>/babysit</command-name>'))).toBe(true);
    expect(isUserPrompt({ role: 'user', parts: [{ type: 'image', data: 'AAAA', mediaType: 'image/png' }] })).toBe(true);
    expect(
      isUserPrompt({
        role: 'user',
        parts: [
          { type: 'text', text: '<system-reminder>x</system-reminder>' },
          { type: 'text', text: 'and this' },
        ],
      }),
    ).toBe(true);
  });

  it('refuses tool-result carriers, summaries, meta lines and other roles', () => {
    expect(
      isUserPrompt({
        role: 'user',
        parts: [
          { type: 'tool-result', toolCallId: 't1', output: 'x' },
          { type: 'text', text: 'hi' },
        ],
      }),
    ).toBe(false);
    expect(isUserPrompt(user('This session is being continued…', { compactSummary: true }))).toBe(false);
    expect(isUserPrompt(user('Caveat: …', { providerMetadata: { claudeCode: { isMeta: true } } }))).toBe(false);
    expect(isUserPrompt({ role: 'assistant', parts: [{ type: 'text', text: 'hi' }] })).toBe(false);
    expect(isUserPrompt(user('   '))).toBe(false);
    // Blank by trim's rule, every kind of space and line end included.
    expect(isUserPrompt(user(' \t\n\r\v\f\u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff'))).toBe(false);
    expect(isUserPrompt(user('\u00a0x\u3000'))).toBe(true);
  });

  // Used to disagree: the report counted these as prompts' neighbours differently from hook-prune.
  it('refuses text Claude Code writes for the user', () => {
    expect(isUserPrompt(user('<local-command-stdout>Total cost: $0.00</local-command-stdout>'))).toBe(false);
    expect(isUserPrompt(user('<local-command-caveat>Caveat</local-command-caveat>'))).toBe(false);
    expect(isUserPrompt(user('[Request interrupted by user]'))).toBe(false);
    expect(isUserPrompt(user('[Request interrupted by user for tool use]'))).toBe(false);
    expect(isUserPrompt(user('<system-reminder>hook context</system-reminder>'))).toBe(false);
  });
});
