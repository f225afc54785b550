import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PointName } from '@hookwise/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { HostDoctorContext } from '../host-setup.js';
import { checkHooksFile, commandHookSetup, defaultCommandPrefix, readHooksFile } from './setup.js';

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

describe("the command-hook kit's doctor check of points no event feeds", () => {
  it('warns of each such point in use, in the words given for it, only when asked', () => {
    const read = settings({ Stop: entry('hookwise run Stop') });
    const unserved = { 'llm:before': 'the host lets no hook rewrite a request' };
    expect(check(['agent:stop', 'llm:before', 'phase:end'], read, { unserved })).toEqual([
      'ok the hooks in the settings call hookwise for Stop',
      'warn the host lets no hook rewrite a request (plugin-x)',
      'warn no x hook event feeds phase:end: it never runs there (plugin-x)',
    ]);
    expect(check(['agent:stop', 'llm:before'], read)).toEqual(['ok the hooks in the settings call hookwise for Stop']);
  });
});

describe('the default command prefix init writes', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hookwise-prefix-'));
  const adapter = path.join(root, 'adapter');
  const project = path.join(root, 'project');
  mkdirSync(adapter);
  writeFileSync(
    path.join(adapter, 'package.json'),
    JSON.stringify({ name: '@hookwise/adapter-x', bin: { 'hookwise-x': './bin/hookwise.cjs' } }),
  );
  const files = { root: adapter, bin: path.join(adapter, 'bin', 'hookwise.cjs'), runtime: '' };
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("is this bin's path until the project has its own install, then that install as the host may name it", () => {
    const own = `node ${JSON.stringify(files.bin)}`;
    expect(defaultCommandPrefix(files, project, { allowed: true })).toBe(own);
    const installed = path.join(project, 'node_modules', '@hookwise', 'adapter-x', 'bin');
    mkdirSync(installed, { recursive: true });
    writeFileSync(path.join(installed, 'hookwise.cjs'), '');
    expect(defaultCommandPrefix(files, project, { allowed: true })).toBe(`node ${JSON.stringify(path.join(installed, 'hookwise.cjs'))}`);
    expect(defaultCommandPrefix(files, project, { allowed: true, projectVar: 'X_DIR' })).toBe(
      'node "$X_DIR/node_modules/@hookwise/adapter-x/bin/hookwise.cjs"',
    );
    expect(defaultCommandPrefix(files, project, { allowed: true, projectVar: 'X_DIR', varQuotedByHost: true })).toBe(
      'node $X_DIR/node_modules/@hookwise/adapter-x/bin/hookwise.cjs',
    );
    expect(defaultCommandPrefix(files, project, { allowed: false, projectVar: 'X_DIR' })).toBe(own);
  });

  it("gives a command-hook host's setup the --command option, naming the adapter's bin", () => {
    const setup = commandHookSetup(files, {
      host: 'x',
      describe: 'X',
      init: async () => ({ ok: true, files: [] }),
      doctor: async () => {},
    });
    expect(setup.initOptions?.map((option) => option.flags)).toEqual(['--command <prefix>']);
    expect(setup.initOptions?.[0]?.description).toContain('"npx hookwise-x"');
    expect(typeof setup.run).toBe('function');
  });
});

describe("the command-hook kit's hooks file reader", () => {
  it('takes an empty file as {} and refuses a file with comments rather than rewrite it without them', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'hookwise-hooks-file-'));
    try {
      const file = path.join(dir, 'settings.json');
      expect(readHooksFile(file)).toEqual({ ok: true, file, value: {}, text: undefined });
      writeFileSync(file, '  \n');
      expect(readHooksFile(file)).toEqual({ ok: true, file, value: {}, text: '  \n' });
      writeFileSync(file, '{\n  // my model\n  "model": { "name": "gemini-2.5-pro" }\n}\n');
      const read = readHooksFile(file);
      expect(!read.ok && read.message).toMatch(/is not plain JSON \(it has comments, which hookwise would not keep\)/);
      writeFileSync(file, '{"a":');
      expect(readHooksFile(file)).toMatchObject({ ok: false, message: expect.stringMatching(/is not valid JSON/) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
