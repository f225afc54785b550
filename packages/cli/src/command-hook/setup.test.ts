import type { PointName } from '@hookwise/core';
import { describe, expect, it } from 'vitest';
import type { HostDoctorContext } from '../host-setup.js';
import { checkHooksFile } from './setup.js';

const EVENT_POINTS = { SessionStart: ['session:start'], AfterTool: ['tool:after'], Stop: ['agent:stop'] };
const settings = (hooks: object) => ({ ok: true as const, file: '/p/hooks.json', value: { hooks }, text: '{}' });
const entry = (command: string) => [{ hooks: [{ type: 'command', command }] }];

function check(points: PointName[], reads: Parameters<typeof checkHooksFile>[1]['read'], extra: object = {}) {
  const lines: string[] = [];
  const context = {
    projectDir: '/p',
    pointsInUse: new Map(points.map((point) => [point, ['plugin-x']])),
    ok: (text: string) => lines.push(`ok ${text}`),
    problem: (text: string) => lines.push(`problem ${text}`),
    warn: (text: string) => lines.push(`warn ${text}`),
  } as unknown as HostDoctorContext;
  checkHooksFile(context, { read: reads, label: 'the settings', eventPoints: EVENT_POINTS, host: 'x', ...extra });
  return lines;
}

describe("the command-hook kit's doctor check", () => {
  it('takes the hooks of several files together, in the host event order, with the always-registered events', () => {
    const project = settings({ Stop: entry('hookwise run Stop') });
    const user = settings({ SessionStart: entry('hookwise run SessionStart') });
    expect(check(['agent:stop'], [project, user], { always: ['SessionStart'] })).toEqual([
      'ok the hooks in the settings call hookwise for SessionStart, Stop',
    ]);
    expect(check(['agent:stop'], [project, user, { ok: false, file: '/u', message: '/u is not valid JSON' }])).toEqual([
      'problem /u is not valid JSON',
      'ok the hooks in the settings call hookwise for Stop',
    ]);
    expect(check(['tool:after'], [project], { always: ['SessionStart'] })).toEqual([
      'problem the hooks in the settings do not call `hookwise run SessionStart`; run `hookwise init --host x`',
      'problem the hooks in the settings do not call `hookwise run AfterTool`, which plugin-x (tool:after) need; run `hookwise init --host x`',
    ]);
  });

  it('finds a program off PATH only when asked, and says what the host does then', () => {
    const read = settings({ Stop: entry('no-such-hookwise-program run Stop') });
    expect(check(['agent:stop'], read)).toEqual(['ok the hooks in the settings call hookwise for Stop']);
    expect(check(['agent:stop'], read, { programs: true, unresolvedMeans: 'the host denies' })).toEqual([
      'problem the Stop hook runs no-such-hookwise-program, which does not resolve: the host denies; run `hookwise init --host x` again',
      'ok the hooks in the settings call hookwise for Stop',
    ]);
  });
});
