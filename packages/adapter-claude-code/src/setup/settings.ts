import os from 'node:os';
import path from 'node:path';
import {
  eventsForPoints as kitEventsForPoints,
  hookwiseEventOf,
  hookwiseEventsIn,
  mergeHookwiseHooks as mergeKitHooks,
  type HookSettings,
} from '@hookwise/core/command-hook';
import { EVENT_POINTS, type MappedEvent } from '../binding/events.js';
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
export const eventsForPoints = (points: Iterable<PointName>): MappedEvent[] => kitEventsForPoints(EVENT_POINTS, points, ['SessionStart']);

export type Settings = HookSettings;
export { hookwiseEventOf, hookwiseEventsIn };

/**
 * Puts exactly one hookwise command hook under each of `events` and removes hookwise's hooks
 * from other events, leaving everything else as it was (see the command-hook kit's `mergeHookwiseHooks`).
 */
export const mergeHookwiseHooks = (
  settings: Settings,
  events: readonly MappedEvent[],
  commandFor: (event: MappedEvent) => string,
): { settings: Settings; changed: boolean } =>
  mergeKitHooks(
    settings,
    events,
    commandFor as (event: string) => string,
    (event) => EVENT_TIMEOUTS[event as MappedEvent] ?? DEFAULT_TIMEOUT_SECONDS,
  );
