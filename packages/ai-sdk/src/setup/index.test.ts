import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import setup, { SNIPPET } from './index.js';

describe('hookwise init --host ai-sdk', () => {
  it('writes no file of its own and prints the lines an app adds', async () => {
    const printed: string[] = [];
    const plan = await setup.init({
      projectDir: '/project',
      home: undefined,
      stdout: (text) => printed.push(text),
      stderr: () => {},
      options: {},
      pointsInUse: async () => new Map(),
      relative: (file) => file,
    });
    expect(plan).toEqual({ ok: true, files: [] });
    expect(printed.join('\n')).toContain(SNIPPET);
    expect(SNIPPET).toContain('wrapLanguageModel({ model: yourModel, middleware: hookwise })');
  });

  it('doctor says when the AI SDK is missing', async () => {
    const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-ai-sdk-doctor-')));
    try {
      const problems: string[] = [];
      await setup.doctor({
        projectDir: dir,
        home: undefined,
        stdout: () => {},
        stderr: () => {},
        configFile: undefined,
        pointsInUse: new Map(),
        ok: () => {},
        problem: (text) => problems.push(text),
        warn: () => {},
      });
      expect(problems).toEqual([expect.stringContaining('`ai`) is not installed')]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
