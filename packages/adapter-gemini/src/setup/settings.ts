import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { MappedEvent } from '../events.js';

/** Gemini's per-hook `timeout`, in MILLISECONDS: above the hook call's own 30 s deadline, so hookwise ends first, exit 0. */
export const HOOK_TIMEOUT_MS = 60_000;

interface CommandHook {
  type?: string;
  command?: string;
  [key: string]: unknown;
}
interface HookGroup {
  hooks?: CommandHook[];
  [key: string]: unknown;
}
export type Settings = { hooks?: Record<string, HookGroup[]>; [key: string]: unknown };

/** `<prefix> run <Event>` is hookwise's when the prefix names hookwise. */
export const hookwiseEventOf = (command: unknown): string | undefined =>
  typeof command === 'string' ? /hookwise[^\s]*["']?\s+run\s+([A-Za-z]+)\s*$/.exec(command)?.[1] : undefined;

/**
 * Exactly one hookwise command under each of `events`, none elsewhere; every other hook, group
 * and setting kept. `changed` is false when the settings already had exactly these entries.
 */
export function mergeHookwiseHooks(settings: Settings, events: readonly MappedEvent[], commandFor: (event: MappedEvent) => string) {
  const next = structuredClone(settings);
  const hooks: Record<string, HookGroup[]> = next.hooks && typeof next.hooks === 'object' && !Array.isArray(next.hooks) ? next.hooks : {};
  const wanted = new Set<string>(events);
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    let kept = false;
    const filtered = groups.filter((group) => {
      if (!Array.isArray(group?.hooks) || group.hooks.length === 0) return true;
      group.hooks = group.hooks.filter((hook) => {
        if (hookwiseEventOf(hook?.command) === undefined) return true;
        if (!wanted.has(event) || kept) return false;
        kept = true;
        return true;
      });
      return group.hooks.length > 0;
    });
    if (filtered.length > 0) hooks[event] = filtered;
    else delete hooks[event];
  }
  for (const event of events) {
    const entry = { type: 'command', name: 'hookwise', command: commandFor(event), timeout: HOOK_TIMEOUT_MS };
    const groups = (hooks[event] ??= []);
    const existing = groups.flatMap((group) => group?.hooks ?? []).find((hook) => hookwiseEventOf(hook?.command) !== undefined);
    if (existing) Object.assign(existing, entry);
    else groups.push({ hooks: [entry] });
  }
  if (Object.keys(hooks).length > 0 || next.hooks !== undefined) next.hooks = hooks;
  return { settings: next, changed: JSON.stringify(next) !== JSON.stringify(settings) };
}

/** The hookwise commands of each event in the given settings. */
export function hookwiseEventsIn(...list: Array<Settings | undefined>): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const settings of list)
    for (const [event, groups] of Object.entries(settings?.hooks ?? {}))
      for (const group of Array.isArray(groups) ? groups : [])
        for (const hook of group?.hooks ?? [])
          if (hookwiseEventOf(hook?.command) === event) found.set(event, [...(found.get(event) ?? []), hook.command as string]);
  return found;
}

/** `<project>/.gemini/settings.json` or `~/.gemini/settings.json`. */
export const settingsFileOf = (scope: 'project' | 'user', projectDir: string, home: string): string =>
  path.join(scope === 'user' ? home : projectDir, '.gemini', 'settings.json');

/**
 * Reads a settings file. Gemini accepts comments in it; hookwise writes plain JSON, so a file with
 * comments is refused (with what to add by hand) rather than rewritten without them.
 */
export function readSettings(file: string): { ok: true; value: Settings; text: string | undefined } | { ok: false; message: string } {
  if (!existsSync(file)) return { ok: true, value: {}, text: undefined };
  const text = readFileSync(file, 'utf8');
  if (text.trim() === '') return { ok: true, value: {}, text };
  try {
    const value = JSON.parse(text) as unknown;
    if (typeof value !== 'object' || value === null || Array.isArray(value))
      return { ok: false, message: `${file} must hold a JSON object` };
    return { ok: true, value: value as Settings, text };
  } catch (error) {
    const comments = /^\s*\/\/|\/\*/m.test(text) ? ' (it has comments, which hookwise would not keep)' : '';
    return { ok: false, message: `${file} is not plain JSON${comments}: ${(error as Error).message}` };
  }
}
