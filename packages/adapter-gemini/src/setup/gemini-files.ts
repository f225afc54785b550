import path from 'node:path';
import { mergeHookwiseHooks, type HookSettings } from '@hookwise/core/command-hook';

/** Gemini's per-hook `timeout`, in MILLISECONDS: above the hook call's own 30 s deadline, so hookwise ends first, exit 0. */
export const HOOK_TIMEOUT_MS = 60_000;
/** Each entry's `name`: what Gemini shows of the hook (its warnings, `/hooks`). */
export const ENTRY_FIELDS = { name: 'hookwise' };

/** One hookwise command per event in Gemini's settings, with its timeout and name (see the command-hook kit's `mergeHookwiseHooks`). */
export const mergeGeminiHooks = (settings: HookSettings, events: readonly string[], commandFor: (event: string) => string) =>
  mergeHookwiseHooks(settings, events, commandFor, () => HOOK_TIMEOUT_MS, ENTRY_FIELDS);

/** `<project>/.gemini/settings.json` or `~/.gemini/settings.json`. */
export const settingsFileOf = (scope: 'project' | 'user', projectDir: string, home: string): string =>
  path.join(scope === 'user' ? home : projectDir, '.gemini', 'settings.json');
