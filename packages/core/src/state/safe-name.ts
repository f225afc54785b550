import { lstatSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { UnsafeNameError } from '../errors.js';

/**
 * Validation for any input that becomes part of a file-system path: session ids, state
 * namespaces, command names. Session ids arrive from the hook's stdin, so they are untrusted;
 * a session id of `../../.ssh` must never turn into a path outside `.hookwise/`.
 *
 * The rules are an allow-list rather than a deny-list, because the set of characters that is
 * dangerous somewhere (Windows, macOS, shells, terminals) is larger than the set anyone needs.
 */
export interface SafeNameOptions {
  /** Allows `/` between segments that are each safe (`scope/name`). Default false. */
  allowSlash?: boolean;
  /** Longest accepted name in characters. Default 128. */
  maxLength?: number;
}

export const DEFAULT_MAX_NAME_LENGTH = 128;

const ALLOWED_SEGMENT = /^[A-Za-z0-9._:-]+$/;
const FIRST_DISALLOWED_CHARACTER = /[^A-Za-z0-9._:-]/;
// Both C0 controls and DEL: they can hide the real name in logs and terminals.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;
const DRIVE_LETTER_PREFIX = /^[A-Za-z]:/;

/**
 * Returns `value` unchanged when it is safe to use as a path component (or, with
 * `allowSlash`, a relative path of safe components); throws {@link UnsafeNameError} with the
 * reason otherwise. `what` names the input in the message, e.g. `"session id"`.
 */
export function assertSafeName(value: unknown, what: string, options: SafeNameOptions = {}): string {
  const maxLength = options.maxLength ?? DEFAULT_MAX_NAME_LENGTH;
  return checkName(value, what, options, maxLength);
}

/** Returns `value` when it is a safe name; throws the {@link UnsafeNameError} that says why not otherwise. */
function checkName(value: unknown, what: string, options: SafeNameOptions, maxLength: number): string {
  if (typeof value !== 'string') {
    throw new UnsafeNameError(what, describeNonString(value), `must be a string, got ${value === null ? 'null' : typeof value}`);
  }
  if (value.length === 0) throw new UnsafeNameError(what, value, 'must not be empty');
  if (value.length > maxLength) {
    throw new UnsafeNameError(what, value, `is ${value.length} characters long, more than the ${maxLength} allowed`);
  }
  if (value.includes('\u0000')) throw new UnsafeNameError(what, value, 'contains a NUL character');
  const control = CONTROL_CHARACTER.exec(value);
  if (control) throw new UnsafeNameError(what, value, `contains the control character ${codePoint(control[0])}`);
  // Absolute forms first: `/etc/passwd` should be reported as absolute, not as "contains /".
  if (value.startsWith('/') || value.startsWith('\\')) throw new UnsafeNameError(what, value, 'is an absolute path');
  if (DRIVE_LETTER_PREFIX.test(value)) throw new UnsafeNameError(what, value, 'starts with a drive letter (absolute path on Windows)');
  if (value.includes('\\')) throw new UnsafeNameError(what, value, 'contains a backslash path separator');
  if (value.includes('/') && !options.allowSlash) throw new UnsafeNameError(what, value, 'contains the path separator "/"');

  const segments = value.split('/');
  for (const segment of segments) {
    if (segment === '') throw new UnsafeNameError(what, value, 'has an empty path segment (leading, trailing or doubled "/")');
    if (segment === '..') throw new UnsafeNameError(what, value, 'contains a ".." segment (parent directory)');
    if (segment === '.') {
      throw new UnsafeNameError(
        what,
        value,
        segments.length === 1 ? 'is "." (the current directory)' : 'contains a "." segment (current directory)',
      );
    }
    if (!ALLOWED_SEGMENT.test(segment)) {
      const bad = FIRST_DISALLOWED_CHARACTER.exec(segment)?.[0] ?? '';
      throw new UnsafeNameError(
        what,
        value,
        `contains the character ${JSON.stringify(bad)} (${codePoint(bad)}); only letters, digits, ".", "_", ":" and "-"${options.allowSlash ? ' and "/" between segments' : ''} are allowed`,
      );
    }
  }
  return value;
}

/** {@link assertSafeName} as a predicate. */
export function isSafeName(value: unknown, options: SafeNameOptions = {}): value is string {
  try {
    assertSafeName(value, 'name', options);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves `relative` against `root` and returns the resulting absolute path with symlinks
 * resolved, refusing (with {@link UnsafeNameError}) anything that ends up outside `root`:
 * `..` escapes, absolute paths, and symlinks inside `root` that point elsewhere. The part of the
 * path that does not exist yet is resolved lexically below the real path of its longest existing
 * prefix, so the result is safe to create. A dangling symlink on the way is refused, because
 * creating a file through it would write wherever it points. `root` itself is allowed.
 *
 * This is a check at one moment: a process that can change the tree under `root` between this
 * call and the use of the path can still race it. It protects against hostile *input*, not a
 * hostile file system.
 */
export function resolveInside(root: string, relative: string): string {
  const what = 'path';
  if (typeof relative !== 'string') throw new UnsafeNameError(what, describeNonString(relative), 'must be a string');
  if (relative.includes('\u0000')) throw new UnsafeNameError(what, relative, 'contains a NUL character');
  if (path.isAbsolute(relative) || path.win32.isAbsolute(relative) || DRIVE_LETTER_PREFIX.test(relative)) {
    throw new UnsafeNameError(what, relative, 'is an absolute path');
  }
  const lexicalRoot = path.resolve(root);
  const lexicalTarget = path.resolve(lexicalRoot, relative);
  if (!isInsideOrEqual(lexicalRoot, lexicalTarget)) {
    throw new UnsafeNameError(what, relative, `resolves outside ${lexicalRoot}`);
  }
  const realRoot = realpathOfExistingPrefix(lexicalRoot, relative);
  // The target's walk up meets the root, which the line above has just resolved.
  const realTarget = realpathOfExistingPrefix(lexicalTarget, relative, { path: lexicalRoot, real: realRoot });
  if (!isInsideOrEqual(realRoot, realTarget)) {
    throw new UnsafeNameError(what, relative, `resolves outside ${lexicalRoot} through a symbolic link (to ${realTarget})`);
  }
  return realTarget;
}

/** True when `child` is `parent` or below it. Compares whole segments, so `/a/bc` is not inside `/a/b` and `/a/..x` is inside `/a`. */
function isInsideOrEqual(parent: string, child: string): boolean {
  const relation = path.relative(parent, child);
  if (relation === '') return true;
  if (path.isAbsolute(relation)) return false;
  return relation !== '..' && !relation.startsWith(`..${path.sep}`);
}

/**
 * realpath of the longest existing prefix of `absolutePath`, with the missing rest appended.
 * Walks upwards so that a not-yet-created file (the usual case for state and command files)
 * can still be checked. `resolved` is an ancestor already walked and what the walk gave.
 */
function realpathOfExistingPrefix(absolutePath: string, inputForErrors: string, resolved?: { path: string; real: string }): string {
  const missingTail: string[] = [];
  let current = absolutePath;
  for (;;) {
    // A path already walked (`resolved.real` is this function's answer for `resolved.path`): the
    // rest of the walk would give the same answer.
    if (current === resolved?.path) return missingTail.length === 0 ? resolved.real : path.join(resolved.real, ...missingTail.reverse());
    // Nothing at all there (the usual case for a file not created yet): neither a path to
    // resolve nor a dangling link, so straight to the parent, without the two exceptions the
    // checks below would throw.
    if (isAbsent(current)) {
      const parent = path.dirname(current);
      if (parent === current) return absolutePath;
      missingTail.push(path.basename(current));
      current = parent;
      continue;
    }
    try {
      const real = realpathSync.native(current);
      return missingTail.length === 0 ? real : path.join(real, ...missingTail.reverse());
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw error;
    }
    // realpath failed but lstat succeeds only for a dangling symlink: following it later would
    // create a file wherever it points, so refuse instead of guessing.
    if (isDanglingSymlink(current)) {
      throw new UnsafeNameError('path', inputForErrors, `passes through the dangling symbolic link ${current}`);
    }
    const parent = path.dirname(current);
    if (parent === current) return absolutePath; // nothing exists at all, not even the file-system root
    missingTail.push(path.basename(current));
    current = parent;
  }
}

/** True only when `lstat` says nothing is there (ENOENT, ENOTDIR); any other answer is left to the full checks. */
function isAbsent(candidate: string): boolean {
  try {
    return lstatSync(candidate, { throwIfNoEntry: false }) === undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR';
  }
}

function isDanglingSymlink(candidate: string): boolean {
  try {
    return lstatSync(candidate).isSymbolicLink();
  } catch {
    return false;
  }
}

function codePoint(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

function describeNonString(value: unknown): string {
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
