import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EVENT_POINTS, POINT_EVENTS, type MappedEvent } from '../binding/events.js';
import type { PointName } from '@hookwise/core';

export type SettingsScope = 'project' | 'local' | 'user';

/** The settings file of a scope. `home` defaults to the user's home (`$HOME`). */
export function settingsFileOf(scope: SettingsScope, projectDir: string, home = process.env.HOME ?? os.homedir()): string {
  if (scope === 'user') return path.join(home, '.claude', 'settings.json');
  return path.join(projectDir, '.claude', scope === 'local' ? 'settings.local.json' : 'settings.json');
}

/** Per-event `timeout` (seconds) written with each entry. SessionEnd's also raises Claude Code's 1.5 s SessionEnd budget. */
export const EVENT_TIMEOUTS: Partial<Record<MappedEvent, number>> = { SessionEnd: 10, UserPromptSubmit: 30 };
export const DEFAULT_TIMEOUT_SECONDS = 60;

/** The Claude Code events to register for plugins listening on `points` (SessionStart always: plugin commands need the last session). */
export function eventsForPoints(points: Iterable<PointName>): MappedEvent[] {
  const events = new Set<MappedEvent>(['SessionStart']);
  for (const point of points) for (const event of POINT_EVENTS[point] ?? []) events.add(event);
  // Keep Claude Code's event order so the written file reads naturally and diffs stay stable.
  return (Object.keys(EVENT_POINTS) as MappedEvent[]).filter((event) => events.has(event));
}

interface CommandHook {
  type: string;
  command?: string;
  timeout?: number;
  [key: string]: unknown;
}
interface MatcherGroup {
  matcher?: string;
  hooks?: CommandHook[];
  [key: string]: unknown;
}
export type Settings = { hooks?: Record<string, MatcherGroup[]>; [key: string]: unknown };

/** `<prefix> run <Event>` is a hookwise command when the prefix names hookwise. */
const HOOKWISE_COMMAND = /hookwise[^\s]*["']?\s+run\s+([A-Za-z]+)\s*$/;

/** The event a settings command runs hookwise for, if it is one of hookwise's. */
export function hookwiseEventOf(command: unknown): string | undefined {
  if (typeof command !== 'string') return undefined;
  return HOOKWISE_COMMAND.exec(command)?.[1];
}

/**
 * Puts exactly one hookwise command hook under each of `events` and removes hookwise's hooks
 * from other events, leaving every other hook, matcher group and setting as it was. Returns
 * a new object; `changed` is false when the settings already had exactly these entries.
 */
export function mergeHookwiseHooks(
  settings: Settings,
  events: readonly MappedEvent[],
  commandFor: (event: MappedEvent) => string,
): { settings: Settings; changed: boolean } {
  const next = structuredClone(settings);
  const hooks: Record<string, MatcherGroup[]> =
    next.hooks && typeof next.hooks === 'object' && !Array.isArray(next.hooks) ? next.hooks : {};
  const wanted = new Set<string>(events);

  // Drop hookwise entries for events no longer wanted, and duplicates.
  for (const [event, groups] of Object.entries(hooks)) {
    if (!Array.isArray(groups)) continue;
    let kept = false;
    const filtered: MatcherGroup[] = [];
    for (const group of groups) {
      if (!group || !Array.isArray(group.hooks)) {
        filtered.push(group);
        continue;
      }
      const before = group.hooks.length;
      group.hooks = group.hooks.filter((hook) => {
        if (hookwiseEventOf(hook?.command) === undefined) return true;
        if (!wanted.has(event) || kept) return false;
        kept = true;
        return true;
      });
      // A group hookwise emptied goes; a group that was already empty is the user's business.
      if (group.hooks.length > 0 || before === 0) filtered.push(group);
    }
    if (filtered.length > 0) hooks[event] = filtered;
    else delete hooks[event];
  }

  for (const event of events) {
    const command = commandFor(event);
    const timeout = EVENT_TIMEOUTS[event] ?? DEFAULT_TIMEOUT_SECONDS;
    const groups = (hooks[event] ??= []);
    const existing = groups.flatMap((group) => group?.hooks ?? []).find((hook) => hookwiseEventOf(hook?.command) !== undefined);
    if (existing) {
      existing.command = command;
      existing.type = 'command';
      existing.timeout = timeout;
    } else {
      groups.push({ hooks: [{ type: 'command', command, timeout }] });
    }
  }
  if (Object.keys(hooks).length > 0 || next.hooks !== undefined) next.hooks = hooks;
  return { settings: next, changed: JSON.stringify(next) !== JSON.stringify(settings) };
}

/** Events whose settings call hookwise, from any number of settings objects. */
export function hookwiseEventsIn(...settingsList: Array<Settings | undefined>): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const settings of settingsList) {
    for (const [event, groups] of Object.entries(settings?.hooks ?? {})) {
      if (!Array.isArray(groups)) continue;
      for (const group of groups) {
        for (const hook of group?.hooks ?? []) {
          if (hookwiseEventOf(hook?.command) === event && typeof hook.command === 'string')
            found.set(event, [...(found.get(event) ?? []), hook.command]);
        }
      }
    }
  }
  return found;
}

export function readJsonFile<T>(file: string): { ok: true; value: T | undefined } | { ok: false; message: string } {
  if (!existsSync(file)) return { ok: true, value: undefined };
  try {
    const text = readFileSync(file, 'utf8');
    if (text.trim() === '') return { ok: true, value: undefined };
    return { ok: true, value: JSON.parse(text) as T };
  } catch (error) {
    return { ok: false, message: `${file} is not valid JSON: ${(error as Error).message}` };
  }
}

export function readSettings(file: string): { ok: true; value: Settings } | { ok: false; message: string } {
  const read = readJsonFile<Settings>(file);
  if (!read.ok) return read;
  if (read.value !== undefined && (typeof read.value !== 'object' || read.value === null || Array.isArray(read.value)))
    return { ok: false, message: `${file} must hold a JSON object` };
  return { ok: true, value: read.value ?? {} };
}
