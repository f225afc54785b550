import { describe, expect, it } from 'vitest';
import { eventsForPoints, hookwiseEventOf, hookwiseEventsIn, mergeHookwiseHooks, settingsFileOf, type Settings } from './settings.js';

const command = (event: string) => `node "/opt/hookwise/bin/hookwise.cjs" run ${event}`;

const userSettings: Settings = {
  permissions: { allow: ['Bash(ls:*)'] },
  hooks: {
    PostToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'prettier --write "$FILE"' }] }],
    Notification: [{ hooks: [{ type: 'command', command: 'notify-send done' }] }],
  },
};

describe('mergeHookwiseHooks', () => {
  it('adds one hookwise hook per event and keeps every other hook and setting', () => {
    const { settings, changed } = mergeHookwiseHooks(userSettings, ['SessionStart', 'PostToolUse'], command);
    expect(changed).toBe(true);
    expect(settings.permissions).toEqual(userSettings.permissions);
    expect(settings.hooks?.Notification).toEqual(userSettings.hooks?.Notification);
    expect(settings.hooks?.PostToolUse).toEqual([
      { matcher: 'Edit|Write', hooks: [{ type: 'command', command: 'prettier --write "$FILE"' }] },
      { hooks: [{ type: 'command', command: command('PostToolUse'), timeout: 60 }] },
    ]);
    expect(settings.hooks?.SessionStart).toEqual([{ hooks: [{ type: 'command', command: command('SessionStart'), timeout: 60 }] }]);
    // The input is not mutated.
    expect(userSettings.hooks?.SessionStart).toBeUndefined();
  });

  it('is idempotent: a second merge changes nothing', () => {
    const once = mergeHookwiseHooks(userSettings, ['SessionStart', 'PostToolUse', 'SessionEnd'], command).settings;
    const twice = mergeHookwiseHooks(once, ['SessionStart', 'PostToolUse', 'SessionEnd'], command);
    expect(twice.changed).toBe(false);
    expect(twice.settings).toEqual(once);
  });

  it('updates a moved command in place and removes hookwise from events no longer needed', () => {
    const once = mergeHookwiseHooks(userSettings, ['SessionStart', 'PostToolUse', 'PreCompact'], command).settings;
    const moved = mergeHookwiseHooks(once, ['SessionStart', 'PostToolUse'], (event) => `npx hookwise run ${event}`);
    expect(moved.changed).toBe(true);
    expect(moved.settings.hooks?.PreCompact).toBeUndefined();
    expect(hookwiseEventsIn(moved.settings)).toEqual(
      new Map([
        ['PostToolUse', ['npx hookwise run PostToolUse']],
        ['SessionStart', ['npx hookwise run SessionStart']],
      ]),
    );
    expect(moved.settings.hooks?.PostToolUse?.[0]).toEqual(userSettings.hooks?.PostToolUse?.[0]);
  });

  it('removes duplicate hookwise entries of one event', () => {
    const duplicated: Settings = {
      hooks: {
        Stop: [{ hooks: [{ type: 'command', command: command('Stop') }] }, { hooks: [{ type: 'command', command: command('Stop') }] }],
      },
    };
    const { settings } = mergeHookwiseHooks(duplicated, ['Stop'], command);
    expect(hookwiseEventsIn(settings).get('Stop')).toHaveLength(1);
  });

  it('writes SessionEnd with a timeout that raises its 1.5 s budget', () => {
    const { settings } = mergeHookwiseHooks({}, ['SessionEnd'], command);
    expect(settings.hooks?.SessionEnd?.[0]?.hooks?.[0]?.timeout).toBe(10);
  });
});

describe('helpers', () => {
  it('hookwiseEventOf recognises hookwise commands only', () => {
    expect(hookwiseEventOf(command('PreCompact'))).toBe('PreCompact');
    expect(hookwiseEventOf('npx hookwise run Stop')).toBe('Stop');
    expect(hookwiseEventOf('node "$CLAUDE_PROJECT_DIR/node_modules/@hookwise/adapter-claude-code/bin/hookwise.cjs" run PostToolUse')).toBe(
      'PostToolUse',
    );
    expect(hookwiseEventOf('prettier --write')).toBeUndefined();
    expect(hookwiseEventOf(42)).toBeUndefined();
  });

  it('eventsForPoints: always SessionStart, in Claude Code event order', () => {
    expect(eventsForPoints([])).toEqual(['SessionStart']);
    expect(eventsForPoints(['compact:after', 'tool:after', 'compact:before'])).toEqual([
      'SessionStart',
      'PostToolUse',
      'PostToolUseFailure',
      'PreCompact',
      'PostCompact',
    ]);
    expect(eventsForPoints(['phase:end', 'llm:before'])).toEqual(['SessionStart', 'PostToolUse', 'SubagentStop']);
  });

  it('settingsFileOf', () => {
    expect(settingsFileOf('project', '/p', '/h')).toBe('/p/.claude/settings.json');
    expect(settingsFileOf('local', '/p', '/h')).toBe('/p/.claude/settings.local.json');
    expect(settingsFileOf('user', '/p', '/h')).toBe('/h/.claude/settings.json');
  });
});
