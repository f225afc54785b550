import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
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
      `export default { on: { 'prompt:submit': [
        { name: 'broken', handler: () => { throw new Error('plugin exploded'); } },
        { name: 'fine', handler: () => ({ context: 'still here' }) },
      ] } };\n`,
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

describe('the run bundle beside another command-hook host', () => {
  it("keeps its own bundle in .hookwise/cache/gemini, never rebuilds for another host's, never removes it", () => {
    const dir = project();
    writeFileSync(path.join(dir, 'hookwise.config.json'), JSON.stringify({ plugins: { '@hookwise/hook-suggest': {} } }));
    symlinkSync(path.join(packageRoot, 'node_modules'), path.join(dir, 'node_modules'));
    // What Claude Code's hook calls leave in the same project: its own manifest and bundle.
    const other = path.join(dir, '.hookwise', 'cache', 'claude-code');
    mkdirSync(other, { recursive: true });
    writeFileSync(path.join(other, 'run-bundle.json'), '{"format":1,"bundle":"run-0123456789abcdef.cjs"}');
    writeFileSync(path.join(other, 'run-0123456789abcdef.cjs'), 'exports.run = () => {};');
    const manifestFile = path.join(dir, '.hookwise', 'cache', 'gemini', 'run-bundle.json');
    const call = () =>
      run(dir, ['run', 'AfterTool'], payload('AfterTool', { tool_name: 'run_shell_command', tool_input: {}, tool_response: {} }));
    expect(call().status).toBe(0);
    const built = JSON.parse(readFileSync(manifestFile, 'utf8')) as { bundle?: string; builtAt: string };
    expect(built.bundle).toMatch(/^run-[0-9a-f]{16}\.cjs$/);
    expect(call().status).toBe(0);
    expect((JSON.parse(readFileSync(manifestFile, 'utf8')) as { builtAt: string }).builtAt).toBe(built.builtAt);
    expect(readdirSync(other).sort()).toEqual(['run-0123456789abcdef.cjs', 'run-bundle.json']);
  });
});
