import { readFileSync } from 'node:fs';
import path from 'node:path';
import { mergeHookwiseHooks, type HookSettings } from '@hookwise/core/command-hook';
import { readJsonObject, type JsonObjectRead } from '@hookwise/core/host';

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

/**
 * Reads a settings file; an empty one is `{}`. Gemini accepts comments in it; hookwise writes
 * plain JSON, so a file with comments is refused (with what to add by hand) rather than rewritten without them.
 */
export function readSettings(file: string): JsonObjectRead {
  const read = readJsonObject(file);
  if (read.ok) return read;
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return { ok: true, file, value: {}, text };
  return /^\s*\/\/|\/\*/m.test(text)
    ? { ok: false, file, message: `${file} is not plain JSON (it has comments, which hookwise would not keep)` }
    : read;
}
