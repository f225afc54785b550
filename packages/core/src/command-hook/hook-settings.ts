import path from 'node:path';

// The hook settings Claude Code (`.claude/settings.json`), Codex (`.codex/hooks.json`) and Gemini
// CLI (`.gemini/settings.json`) share: `{"hooks": {"<Event>": [{"matcher"?, "hooks": [{"type":
// "command", "command", "timeout"}]}]}}`. hookwise owns one `<prefix> run <Event>` command per event.

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
export type HookSettings = { hooks?: Record<string, MatcherGroup[]>; [key: string]: unknown };

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
 * `timeoutOf` is the `timeout` written with each entry, in the host's unit; `fields` are further
 * fields each entry carries (a `name` the host shows).
 */
export function mergeHookwiseHooks<S extends HookSettings>(
  settings: S,
  events: readonly string[],
  commandFor: (event: string) => string,
  timeoutOf: (event: string) => number,
  fields: Readonly<Record<string, unknown>> = {},
): { settings: S; changed: boolean } {
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
    const timeout = timeoutOf(event);
    const groups = (hooks[event] ??= []);
    const existing = groups.flatMap((group) => group?.hooks ?? []).find((hook) => hookwiseEventOf(hook?.command) !== undefined);
    if (existing) {
      existing.command = command;
      existing.type = 'command';
      existing.timeout = timeout;
      Object.assign(existing, fields);
    } else {
      groups.push({ hooks: [{ type: 'command', ...fields, command, timeout }] });
    }
  }
  if (Object.keys(hooks).length > 0 || next.hooks !== undefined) next.hooks = hooks;
  return { settings: next, changed: JSON.stringify(next) !== JSON.stringify(settings) };
}

/** Events whose settings call hookwise, with their commands, from any number of settings objects. */
export function hookwiseEventsIn(...settingsList: Array<HookSettings | undefined>): Map<string, string[]> {
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

/**
 * The events `hookwise init` registers for plugins listening on `points`, in the host's event
 * order: SessionStart always (plugin commands need the last session).
 */
export function eventsForPoints<E extends string>(
  eventPoints: Readonly<Record<E, readonly string[]>>,
  points: Iterable<string>,
  always: readonly E[] = [],
): E[] {
  const wanted = new Set<string>(points);
  return (Object.keys(eventPoints) as E[]).filter(
    (event) => always.includes(event) || eventPoints[event].some((point) => wanted.has(point)),
  );
}

/** The file a `node "<file>" run …` command names, when it does not exist (`$VAR` / `${VAR}` from `vars`). */
export function missingCommandFile(
  command: string,
  vars: Readonly<Record<string, string>>,
  exists: (file: string) => boolean,
): string | undefined {
  const match = /^\s*node\s+("([^"]+)"|'([^']+)'|(\S+))/.exec(command);
  const file = match?.[2] ?? match?.[3] ?? match?.[4];
  if (!file) return undefined;
  const expanded = file.replace(/\$\{?([A-Z_][A-Z0-9_]*)\}?/g, (whole, name: string) => vars[name] ?? whole);
  return exists(expanded) ? undefined : expanded;
}

/**
 * The program a hook command starts, when it is not `node` and no folder of `pathEnv` has it (a
 * path: when it is not executable). Undefined when it resolves.
 */
export function missingProgram(command: string, pathEnv: string, isExecutable: (file: string) => boolean): string | undefined {
  const program = /^\s*(\S+)/.exec(command)?.[1];
  if (!program || program === 'node') return undefined;
  const candidates = program.includes('/') ? [program] : pathEnv.split(path.delimiter).map((dir) => path.join(dir, program));
  return candidates.some(isExecutable) ? undefined : program;
}
