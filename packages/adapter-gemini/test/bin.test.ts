import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// Gemini CLI 0.61.0 reads stderr when stdout is empty and takes any exit code but 0 and 1 as a
// deny: the bin must exit 0 and print JSON on every path, so hookwise's lines on stderr are never output.
const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(packageRoot, 'bin', 'hookwise.cjs');
const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function project(config?: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hookwise-gemini-bin-'));
  dirs.push(dir);
  if (config) {
    writeFileSync(path.join(dir, 'hookwise.config.mjs'), config);
    symlinkSync(path.join(packageRoot, 'node_modules'), path.join(dir, 'node_modules'));
  }
  return dir;
}

const run = (dir: string, args: string[], stdin: string) =>
  spawnSync(process.execPath, [bin, ...args], {
    input: stdin,
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, GEMINI_PROJECT_DIR: dir },
  });
const payload = (event: string, extra: object = {}) => JSON.stringify({ session_id: 's1', hook_event_name: event, cwd: '/', ...extra });

describe('bin/hookwise.cjs under Gemini CLI', () => {
  it('prints {} and exits 0 for a project without config, bad input and an unknown event', () => {
    const dir = project();
    for (const [args, stdin] of [
      [['run', 'BeforeAgent'], payload('BeforeAgent', { prompt: 'hi' })],
      [['run', 'BeforeAgent'], '{not json'],
      [['run', 'Nonsense'], payload('Nonsense')],
    ] as const) {
      const result = run(dir, [...args], stdin);
      expect(result.status).toBe(0);
      expect(result.stdout).toBe('{}');
    }
  });

  it("a plugin that throws leaves {} on stdout, its report on stderr, exit 0; another plugin's context still gets through", () => {
    const dir = project(
      `import { defineHook } from '@hookwise/core';
      export default { hooks: [
        defineHook({ name: 'broken', on: { 'prompt:submit': () => { throw new Error('plugin exploded'); } } }),
        defineHook({ name: 'fine', on: { 'prompt:submit': () => ({ context: 'still here' }) } }),
      ] };\n`,
    );
    const result = run(dir, ['run', 'BeforeAgent'], payload('BeforeAgent', { prompt: 'hi' }));
    expect(result.status).toBe(0);
    const bad = run(dir, ['run', 'BeforeAgent'], '{not json');
    expect([bad.status, bad.stdout]).toEqual([0, '{}']);
    expect(bad.stderr).toMatch(/stdin is not valid JSON/);
    expect(JSON.parse(result.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'BeforeAgent', additionalContext: 'still here' } });
    expect(result.stderr).toMatch(/plugin exploded/);
  });
});
