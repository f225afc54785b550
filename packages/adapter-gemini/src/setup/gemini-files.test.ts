import { describe, expect, it } from 'vitest';
import { DEFAULT_CALL_TIMEOUT_MS, hookwiseEventsIn, type HookSettings } from '@hookwise/core/command-hook';
import { HOOK_TIMEOUT_MS, mergeGeminiHooks } from './gemini-files.js';

const command = (event: string) => `node /opt/hookwise/bin/hookwise.cjs run ${event}`;
const user: HookSettings = {
  model: { name: 'gemini-2.5-flash' },
  hooks: { AfterTool: [{ matcher: 'write_file', hooks: [{ type: 'command', command: 'prettier --write' }] }] },
};

describe('mergeGeminiHooks', () => {
  it("adds one hookwise command per event with Gemini's timeout in milliseconds, keeping every other hook and setting", () => {
    const { settings, changed } = mergeGeminiHooks(user, ['BeforeAgent', 'AfterTool'], command);
    expect(changed).toBe(true);
    expect(settings.model).toEqual(user.model);
    expect(settings.hooks?.AfterTool).toEqual([
      user.hooks!.AfterTool![0],
      { hooks: [{ type: 'command', name: 'hookwise', command: command('AfterTool'), timeout: 60_000 }] },
    ]);
    expect(mergeGeminiHooks(settings, ['BeforeAgent', 'AfterTool'], command).changed).toBe(false);
    const fewer = mergeGeminiHooks(settings, ['BeforeAgent'], command).settings;
    expect([...hookwiseEventsIn(fewer).keys()]).toEqual(['BeforeAgent']);
    expect(fewer.hooks?.AfterTool).toEqual(user.hooks!.AfterTool);
  });

  it("gives Gemini's timeout room above the hook call's own deadline, so hookwise always ends itself, exit 0", () => {
    // Gemini 0.61.0 does not bound a hook whose children keep stdout open: hookwise must not rely on Gemini's timeout.
    expect(HOOK_TIMEOUT_MS).toBeGreaterThan(DEFAULT_CALL_TIMEOUT_MS);
  });
});
