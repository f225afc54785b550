import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { expandedCommand, tomlPrompt } from './commands.js';

describe('tomlPrompt', () => {
  it('reads multi-line, literal and basic strings', () => {
    expect(tomlPrompt('description = "x"\nprompt = """\nline 1\nline 2\n"""')).toBe('line 1\nline 2\n');
    expect(tomlPrompt("prompt = '''\nraw \\n text'''")).toBe('raw \\n text');
    expect(tomlPrompt('prompt = "a\\nb \\"q\\""')).toBe('a\nb "q"');
    expect(tomlPrompt('description = "no prompt"')).toBeUndefined();
  });
});

describe('expandedCommand (what Gemini CLI 0.61.0 sends for a custom command)', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'hookwise-gemini-commands-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const project = path.join(root, 'project');
  const home = path.join(root, 'home');
  const command = (dir: string, file: string, prompt: string) => {
    const full = path.join(dir, '.gemini', 'commands', file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, `prompt = ${JSON.stringify(prompt)}\n`);
  };
  command(project, 'review.toml', 'Review {{args}} carefully.');
  command(project, 'babysit.toml', 'Watch the build.');
  command(project, 'git/diff.toml', 'Diff:\n!{git diff}\nSummarise.');
  command(project, 'empty.toml', '  ');
  command(home, 'babysit.toml', 'Watch the build.');
  command(home, 'mine.toml', 'Mine: @{notes.md}');

  it('takes {{args}} as the arguments, and names a command in a folder `a:b`', () => {
    expect(expandedCommand('Review src/a.ts carefully.', project, home)).toEqual({ name: 'review', args: 'src/a.ts' });
    expect(expandedCommand('Diff:\n+ a line\nSummarise.', project, home)).toEqual({ name: 'git:diff', args: '' });
  });

  it("without {{args}}: the bare prompt, or the prompt with the typed command appended; the project's command first", () => {
    expect(expandedCommand('Watch the build.', project, home)).toEqual({ name: 'babysit', args: '' });
    expect(expandedCommand('Watch the build.\n\n/babysit now please', project, home)).toEqual({ name: 'babysit', args: 'now please' });
  });

  it("finds the user's commands, and nothing for another prompt", () => {
    expect(expandedCommand('Mine: the notes', project, home)).toEqual({ name: 'mine', args: '' });
    expect(expandedCommand('Mine: the notes', project, undefined)).toBeUndefined();
    expect(expandedCommand('Watch the build and more.', project, home)).toBeUndefined();
  });
});
