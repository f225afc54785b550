import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UnsafeNameError } from '../errors.js';
import { assertSafeName, isSafeName, resolveInside } from './safe-name.js';

function refusal(run: () => unknown): UnsafeNameError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(UnsafeNameError);
    return error as UnsafeNameError;
  }
  throw new Error('expected an UnsafeNameError, nothing was thrown');
}

describe('assertSafeName', () => {
  it.each([
    ['../x', /path separator/],
    ['a/b', /path separator "\/"/],
    ['/etc/passwd', /absolute path/],
    ['a\u0000b', /NUL/],
    ['x'.repeat(300), /300 characters long, more than the 128 allowed/],
    ['..', /"\.\." segment/],
    ['.', /is "\." \(the current directory\)/],
    ['C:\\x', /drive letter/],
    ['a b', /character " " \(U\+0020\)/],
    ['', /must not be empty/],
    ['\\\\server\\share', /absolute path/],
    ['a\\b', /backslash/],
    ['tab\there', /control character U\+0009/],
    ['del\u007f', /control character U\+007F/],
    ['ü', /character "ü"/],
    ['$(rm -rf)', /character "\$"/],
  ])('refuses %j with a clear reason', (value, reason) => {
    const error = refusal(() => assertSafeName(value, 'session id'));
    expect(error.message).toMatch(/^refused session id /);
    expect(error.message).toMatch(reason);
    expect(error.code).toBe('HW_UNSAFE_NAME');
    expect(isSafeName(value)).toBe(false);
  });

  it.each([[42], [null], [undefined], [{}], [['a']]])('refuses the non-string %j', (value) => {
    expect(refusal(() => assertSafeName(value, 'session id')).message).toMatch(/must be a string/);
  });

  it.each(['abc', '0f6b1c2e-8d1a-4c55-9a0e-2d6f5b1a7c3d', 'a.b_c:d-e', '..a', 'a..', '.hidden'])('accepts %j', (value) => {
    expect(assertSafeName(value, 'session id')).toBe(value);
    expect(isSafeName(value)).toBe(true);
  });

  it('honours maxLength', () => {
    expect(assertSafeName('x'.repeat(128), 'name')).toHaveLength(128);
    expect(refusal(() => assertSafeName('abcd', 'name', { maxLength: 3 })).message).toMatch(/more than the 3 allowed/);
  });

  describe('with allowSlash', () => {
    it.each(['a/b', 'scope/name/deeper', 'a.b/c-d'])('accepts %j', (value) => {
      expect(assertSafeName(value, 'namespace', { allowSlash: true })).toBe(value);
    });

    it.each([
      ['a//b', /empty path segment/],
      ['a/', /empty path segment/],
      ['/a', /absolute path/],
      ['a/../b', /"\.\." segment/],
      ['a/./b', /"\." segment/],
      ['../x', /"\.\." segment/],
      ['a\\b', /backslash/],
      ['a/b c', /character " "/],
    ])('refuses %j', (value, reason) => {
      expect(refusal(() => assertSafeName(value, 'namespace', { allowSlash: true })).message).toMatch(reason);
    });
  });
});

describe("assertSafeName: its one-pass check of accepted names gives the rules' answer", () => {
  // The rules as they read in the module comment, written independently of both checks.
  const byTheRules = (value: string, allowSlash: boolean, maxLength = 128): boolean =>
    value.length > 0 &&
    value.length <= maxLength &&
    !/^[A-Za-z]:/.test(value) &&
    (allowSlash || !value.includes('/')) &&
    value.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..' && /^[A-Za-z0-9._:-]+$/.test(segment));

  // Every string of up to 4 characters over an alphabet holding each class the rules tell apart.
  const alphabet = ['a', 'Z', '0', '9', '.', '_', ':', '-', '/', '\\', ' ', '\u0000', '\u007f', 'é', '@', '+', '=', 'C'];
  const strings: string[] = [''];
  for (let length = 1; length <= 4; length++) {
    for (const prefix of strings.filter((value) => value.length === length - 1))
      for (const character of alphabet) strings.push(prefix + character);
  }

  it.each([false, true])(
    'with allowSlash %s: accepts exactly what the rules accept, of every string up to 4 characters long',
    (allowSlash) => {
      const disagreements = strings.filter((value) => isSafeName(value, { allowSlash }) !== byTheRules(value, allowSlash));
      expect(disagreements).toEqual([]);
      for (const value of strings.filter((candidate) => !byTheRules(candidate, allowSlash)).slice(0, 2_000)) {
        expect(() => assertSafeName(value, 'name', { allowSlash })).toThrow(UnsafeNameError);
      }
    },
  );

  it('applies maxLength before the characters', () => {
    expect(isSafeName('abc', { maxLength: 2 })).toBe(false);
    expect(isSafeName('ab', { maxLength: 2 })).toBe(true);
    expect(isSafeName(`${'a/'.repeat(63)}ab`, { allowSlash: true })).toBe(true);
    expect(isSafeName(`${'a/'.repeat(64)}a`, { allowSlash: true })).toBe(false);
  });
});

describe('resolveInside', () => {
  let sandbox: string;
  let root: string;
  let outside: string;

  beforeEach(async () => {
    sandbox = await realpath(await mkdtemp(path.join(tmpdir(), 'hookwise-resolve-')));
    root = path.join(sandbox, 'root');
    outside = path.join(sandbox, 'outside');
    await mkdir(path.join(root, 'commands'), { recursive: true });
    await mkdir(outside, { recursive: true });
    await writeFile(path.join(outside, 'secret.md'), 'secret');
  });

  afterEach(async () => {
    await rm(sandbox, { recursive: true, force: true });
  });

  it('resolves existing and not-yet-existing paths inside root', () => {
    expect(resolveInside(root, 'commands/compact.md')).toBe(path.join(root, 'commands', 'compact.md'));
    expect(resolveInside(root, 'new/deeper/file.md')).toBe(path.join(root, 'new', 'deeper', 'file.md'));
    expect(resolveInside(root, 'commands/../commands/x.md')).toBe(path.join(root, 'commands', 'x.md'));
    expect(resolveInside(root, '..name')).toBe(path.join(root, '..name'));
    expect(resolveInside(root, '')).toBe(root);
  });

  it.each([['../outside/secret.md'], ['commands/../../outside'], ['..']])('refuses the escape %j', (relative) => {
    expect(refusal(() => resolveInside(root, relative)).message).toMatch(/resolves outside/);
  });

  it.each([['/etc/passwd'], ['C:\\Windows'], ['\\\\server\\share']])('refuses the absolute path %j', (relative) => {
    expect(refusal(() => resolveInside(root, relative)).message).toMatch(/absolute path/);
  });

  it('refuses a NUL byte', () => {
    expect(refusal(() => resolveInside(root, 'a\u0000b')).message).toMatch(/NUL/);
  });

  it('refuses a symlink inside root that points outside, for the link and anything below it', async () => {
    await symlink(outside, path.join(root, 'commands', 'escape'));
    expect(refusal(() => resolveInside(root, 'commands/escape')).message).toMatch(/through a symbolic link/);
    expect(refusal(() => resolveInside(root, 'commands/escape/secret.md')).message).toMatch(/through a symbolic link/);
    expect(refusal(() => resolveInside(root, 'commands/escape/not-yet/created.md')).message).toMatch(/through a symbolic link/);
  });

  it('refuses a dangling symlink, which would create its target outside root', async () => {
    await symlink(path.join(outside, 'not-there.md'), path.join(root, 'commands', 'dangling.md'));
    expect(refusal(() => resolveInside(root, 'commands/dangling.md')).message).toMatch(/dangling symbolic link/);
  });

  it('allows symlinks that stay inside root, and a root that is itself a symlink', async () => {
    await symlink(path.join(root, 'commands'), path.join(root, 'alias'));
    expect(resolveInside(root, 'alias/x.md')).toBe(path.join(root, 'commands', 'x.md'));
    const linkedRoot = path.join(sandbox, 'linked-root');
    await symlink(root, linkedRoot);
    expect(resolveInside(linkedRoot, 'commands/x.md')).toBe(path.join(root, 'commands', 'x.md'));
  });
});
