import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { HostDoctorContext } from '@hookwise/cli';
import type { PointName } from '@hookwise/core';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { checkGeminiSetup } from './doctor.js';

let root: string;
let project: string;
let home: string;
beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'hookwise-gemini-doctor-'));
  project = path.join(root, 'project');
  home = path.join(root, 'home');
  mkdirSync(path.join(project, '.gemini'), { recursive: true });
  mkdirSync(path.join(home, '.gemini'), { recursive: true });
  vi.stubEnv('GEMINI_CLI_TRUST_WORKSPACE', '');
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(root, { recursive: true, force: true });
});

async function doctor(points: PointName[]) {
  const lines: string[] = [];
  const context = {
    projectDir: project,
    home,
    configFile: undefined,
    pointsInUse: new Map(points.map((point) => [point, ['@hookwise/hook-suggest']])),
    ok: (text: string) => lines.push(`ok ${text}`),
    problem: (text: string) => lines.push(`problem ${text}`),
    warn: (text: string) => lines.push(`warn ${text}`),
    stdout: () => undefined,
    stderr: () => undefined,
  } as unknown as HostDoctorContext;
  await checkGeminiSetup(context);
  return lines;
}

const settings = (hooks: object) => writeFileSync(path.join(project, '.gemini', 'settings.json'), JSON.stringify({ hooks }));
const entry = (command: string) => [{ hooks: [{ type: 'command', command }] }];

describe('doctor --host gemini', () => {
  it('names a hook command that does not resolve: Gemini would take its exit 127 as a deny', async () => {
    settings({
      SessionStart: entry('node $GEMINI_PROJECT_DIR/missing/hookwise.cjs run SessionStart'),
      AfterTool: entry('no-such-hookwise-bin run AfterTool'),
    });
    const lines = await doctor(['tool:after']);
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          /^problem the SessionStart hook runs .*missing\/hookwise\.cjs, which does not resolve: Gemini takes its exit 127 as a deny/,
        ),
        expect.stringMatching(/^problem the AfterTool hook runs no-such-hookwise-bin, which does not resolve/),
      ]),
    );
  });

  it('tells an untrusted folder from a trusted one and from DO_NOT_TRUST', async () => {
    settings({});
    expect(await doctor([])).toContainEqual(expect.stringMatching(/^warn this folder is not trusted yet/));
    writeFileSync(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [root]: 'TRUST_FOLDER' }));
    expect(await doctor([])).toContainEqual(expect.stringMatching(/trustedFolders\.json trusts this folder/));
    writeFileSync(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [project]: 'DO_NOT_TRUST' }));
    expect(await doctor([])).toContainEqual(expect.stringMatching(/^problem .* marks this folder DO_NOT_TRUST/));
  });

  it('says what Gemini cannot do for the plugins in use', async () => {
    settings({});
    const lines = await doctor(['llm:before', 'tool:after']);
    expect(lines).toContainEqual(expect.stringMatching(/^warn Gemini lets no hook rewrite a model request/));
    expect(lines).toContainEqual(expect.stringMatching(/oversized outputs are not trimmed here/));
  });
});
