import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UnsafeNameError } from '@hookwise/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assertCommandName, DEFAULT_COMMAND_FOLDERS, expandHome, findCommandFile } from './command-files.js';

let root: string;
let project: string;
let home: string;

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'hookwise-precompact-files-'));
  project = path.join(root, 'project');
  home = path.join(root, 'home');
  mkdirSync(path.join(project, '.claude/commands/agileflow/story'), { recursive: true });
  mkdirSync(path.join(home, '.claude/commands'), { recursive: true });
  writeFileSync(path.join(project, '.claude/commands/review.md'), 'project review');
  writeFileSync(path.join(home, '.claude/commands/review.md'), 'user review');
  writeFileSync(path.join(home, '.claude/commands/personal.md'), 'user only');
  writeFileSync(path.join(project, '.claude/commands/agileflow/story/list.md'), 'story list');
  writeFileSync(path.join(root, 'secret.md'), 'outside the commands folder');
});

afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const find = (name: string) => findCommandFile(name, DEFAULT_COMMAND_FOLDERS, { projectDir: project, homeDir: home });

describe('assertCommandName', () => {
  it.each([
    ['../etc/passwd', /\.\./],
    ['/abs', /absolute/],
    ['a\u0000b', /NUL/],
    ['a b', /only letters/],
    ['a;rm', /only letters/],
    ['a//b', /empty path segment/],
    ['a/./b', /"\." segment/],
    ['x'.repeat(200), /characters long/],
  ])('refuses %j', (name, reason) => {
    expect(() => assertCommandName(name)).toThrow(reason);
    try {
      assertCommandName(name);
    } catch (error) {
      expect(UnsafeNameError.isInstance(error)).toBe(true);
    }
  });

  it('accepts colon, slash, dot, dash and underscore names', () => {
    for (const name of ['babysit', 'agileflow:story:list', 'story/list', 'v1.2_fix-it']) expect(assertCommandName(name)).toBe(name);
  });
});

describe('findCommandFile', () => {
  it("finds Gemini CLI's <name>.toml commands, a sub-folder's as `a:b`, in the project and the user's home", async () => {
    mkdirSync(path.join(project, '.gemini/commands/git'), { recursive: true });
    mkdirSync(path.join(home, '.gemini/commands'), { recursive: true });
    writeFileSync(path.join(project, '.gemini/commands/git/commit.toml'), 'prompt = "commit"');
    writeFileSync(path.join(home, '.gemini/commands/standup.toml'), 'prompt = "standup"');
    writeFileSync(path.join(project, '.gemini/commands/plain.md'), 'not a Gemini command');
    expect(await find('git:commit')).toMatchObject({ found: true, markdown: 'prompt = "commit"' });
    expect(await find('standup')).toMatchObject({ found: true, markdown: 'prompt = "standup"' });
    expect(await find('plain')).toMatchObject({ found: false });
  });

  it("finds OpenCode's commands in the project and in the user's config folder", async () => {
    mkdirSync(path.join(project, '.opencode/command'), { recursive: true });
    mkdirSync(path.join(home, '.config/opencode/command'), { recursive: true });
    writeFileSync(path.join(project, '.opencode/command/deploy.md'), 'opencode deploy');
    writeFileSync(path.join(home, '.config/opencode/command/standup.md'), 'opencode standup');
    const deploy = await find('deploy');
    expect(deploy.found && deploy.file).toBe(path.join(project, '.opencode/command/deploy.md'));
    const standup = await find('standup');
    expect(standup.found && standup.markdown).toBe('opencode standup');
  });

  it('prefers the project over the user folder, and finds user-only commands under the fake home', async () => {
    const project_ = await find('review');
    expect(project_.found && project_.markdown).toBe('project review');
    const personal = await find('personal');
    expect(personal.found && personal.file).toBe(path.join(home, '.claude/commands/personal.md'));
  });

  it('maps a:b to a/b.md, and strips a folder namespace', async () => {
    const colon = await find('agileflow:story:list');
    expect(colon.found && colon.file).toBe(path.join(project, '.claude/commands/agileflow/story/list.md'));
    // AgileFlow's own folder `.claude/commands/agileflow` (namespace agileflow) also finds the bare name.
    const bare = await find('story:list');
    expect(bare.found && bare.file).toBe(path.join(project, '.claude/commands/agileflow/story/list.md'));
  });

  it('reports a missing file with the folders it searched', async () => {
    const result = await find('nothing-here');
    expect(result.found).toBe(false);
    expect(!result.found && result.searched).toContain(path.join(project, '.claude/commands/nothing-here.md'));
  });

  it.each(['../etc/passwd', '/abs', 'a\u0000b', '../../secret'])('refuses %j without reading anything', async (name) => {
    const result = await find(name);
    expect(result.found).toBe(false);
    expect(!result.found && result.refused).toMatch(/refused command name/);
  });

  it('refuses a symlink in the commands folder that points outside it', async () => {
    symlinkSync(path.join(root, 'secret.md'), path.join(project, '.claude/commands/leak.md'));
    const result = await find('leak');
    expect(result.found).toBe(false);
    expect(!result.found && result.refused).toMatch(/symbolic link/);
  });

  it('refuses a symlinked sub-folder that points outside', async () => {
    mkdirSync(path.join(root, 'elsewhere'));
    writeFileSync(path.join(root, 'elsewhere/x.md'), 'elsewhere');
    symlinkSync(path.join(root, 'elsewhere'), path.join(project, '.claude/commands/linked'));
    const result = await find('linked:x');
    expect(result.found).toBe(false);
    expect(!result.found && result.refused).toMatch(/symbolic link/);
  });

  it('reports the same for a search path of missing folders as the full checks give, and still refuses a dangling link above a missing folder', async () => {
    // .opencode/command(s) and the AgileFlow folders do not exist: skipped without the full checks.
    const missing = await find('nothing-here');
    expect(missing).toEqual({
      found: false,
      searched: DEFAULT_COMMAND_FOLDERS.map((folder) =>
        path.join(path.resolve(project, expandHome(folder.path, home)), `nothing-here${folder.extension ?? '.md'}`),
      ),
    });
    // A dangling link where a folder's parent should be: nothing is at the folder, but the full
    // checks see the link and refuse, as they did for every folder.
    symlinkSync(path.join(root, 'gone'), path.join(project, '.opencode'));
    const refused = await find('nothing-here');
    expect(refused.found).toBe(false);
    expect(!refused.found && refused.refused).toMatch(/dangling symbolic link .*\.opencode/);
    // And a dangling link as the folder itself.
    rmSync(path.join(project, '.opencode'));
    mkdirSync(path.join(project, '.opencode'));
    symlinkSync(path.join(root, 'gone'), path.join(project, '.opencode/command'));
    const linked = await find('nothing-here');
    expect(!linked.found && linked.refused).toMatch(/dangling symbolic link .*\.opencode\/command/);
  });

  it('follows a symlink that stays inside the folder', async () => {
    symlinkSync(path.join(project, '.claude/commands/review.md'), path.join(project, '.claude/commands/alias.md'));
    const result = await find('alias');
    expect(result.found && result.markdown).toBe('project review');
  });
});

describe('expandHome', () => {
  it('expands ~ and ~/ only', () => {
    expect(expandHome('~/.claude/commands', '/fake/home')).toBe(path.join('/fake/home', '.claude/commands'));
    expect(expandHome('~', '/fake/home')).toBe('/fake/home');
    expect(expandHome('a/~/b', '/fake/home')).toBe('a/~/b');
    expect(expandHome('~user/x', '/fake/home')).toBe('~user/x');
  });
});
