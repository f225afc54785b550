import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import { HookwiseError } from '../errors.js';
import { isProcessAlive } from './processes.js';
import { kindOf } from './regular-file.js';

export { isProcessAlive, processStartTime } from './processes.js';
export { openRegularFile, readRegularFile, useSynchronousReads, type RegularFileHandle } from './regular-file.js';

/**
 * File access below hookwise's own folder (`.hookwise/` or the configured `stateDir`) that never
 * follows a link out of it.
 *
 * Policy: **refuse and report.** A symbolic link anywhere between the root and the file — the
 * root itself included, so a `.hookwise` that is a link — makes the read or write fail with
 * {@link UnsafePathError} (code `HW_UNSAFE_PATH`), whose message names the link and where it
 * points. Nothing is read through it, written through it or deleted: the link may be the
 * user's, and replacing it would hide that something planted it (git checks links out of a
 * cloned repository even when `.hookwise/` is ignored). A regular file with more than one hard
 * link is refused the same way where hookwise would write into it in place (the event log).
 *
 * How: every directory level is checked with `lstat` (and created one level at a time, so a
 * failure names the real cause — `EACCES` on a read-only folder, not the `ENOENT` of a recursive
 * mkdir); the file itself is opened with `O_NOFOLLOW` and checked with `fstat`, so the check
 * and the use are the same open file. Reads also use `O_NONBLOCK`, so a FIFO or device planted
 * in place of a file cannot block a libuv thread; it is refused after `fstat`.
 *
 * Residual risk: a process that can rename directories inside the root between the `lstat` of a
 * level and the `open` below it can still race this. That needs a hostile process already
 * writing in the project, which is beyond what a hook can defend against; a planted link in a
 * checkout (the realistic case) is caught.
 */
export class UnsafePathError extends HookwiseError {
  readonly path: string;
  constructor(file: string, reason: string) {
    super(`refused ${file}: ${reason}; hookwise never follows links inside its folder — remove it`, { code: 'HW_UNSAFE_PATH' });
    this.name = 'UnsafePathError';
    this.path = file;
  }
}

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

function linkTarget(file: string): string {
  try {
    return ` (to ${JSON.stringify(readlinkSync(file))})`;
  } catch {
    return '';
  }
}

/** An fs error as one HookwiseError naming the operation, the path and the real cause. */
export function ioError(operation: string, file: string, error: unknown): HookwiseError {
  if (HookwiseError.isInstance(error)) return error;
  const code = (error as NodeJS.ErrnoException)?.code;
  const reason =
    code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'EROFS'
        ? 'read-only file system'
        : code === 'ENOSPC'
          ? 'no space left on the device'
          : code === 'EDQUOT'
            ? 'disk quota exceeded'
            : ((error as Error)?.message ?? String(error)).replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
  return new HookwiseError(`cannot ${operation} ${file}: ${reason}${code ? ` (${code})` : ''}`, { code: 'HW_STATE_IO', cause: error });
}

function isInside(root: string, target: string): boolean {
  const relation = path.relative(root, target);
  return relation === '' || (!path.isAbsolute(relation) && relation !== '..' && !relation.startsWith(`..${path.sep}`));
}

// An absolute POSIX path with no empty, `.` or `..` segment and no trailing slash: what
// path.resolve returns it as, unchanged.
const NOT_NORMAL = /\/\/|\/\.\.?(?:\/|$)/;
const isNormalAbsolute = (file: string): boolean =>
  path.sep === '/' && file.startsWith('/') && (file.length === 1 || !file.endsWith('/')) && !NOT_NORMAL.test(file);

/**
 * The folders from `root` down to `dir`, both absolute; throws when `dir` is outside `root`.
 * The paths hookwise builds are already absolute and normal, and a hook call checks a chain
 * several times: those take string operations, the same result as path.resolve/relative/join
 * (which cost a hook process measurably); anything else goes through them.
 */
function chainLevels(root: string, dir: string): string[] {
  if (isNormalAbsolute(root) && isNormalAbsolute(dir)) {
    if (dir === root) return [root];
    const prefix = root === '/' ? '/' : `${root}/`;
    if (dir.startsWith(prefix)) {
      const levels = [root];
      for (let at = dir.indexOf('/', prefix.length); at !== -1; at = dir.indexOf('/', at + 1)) levels.push(dir.slice(0, at));
      levels.push(dir);
      return levels;
    }
  }
  const absoluteRoot = path.resolve(root);
  const absoluteDir = path.resolve(dir);
  if (!isInside(absoluteRoot, absoluteDir)) throw new UnsafePathError(absoluteDir, `it is outside ${absoluteRoot}`);
  const levels = [absoluteRoot];
  const relation = path.relative(absoluteRoot, absoluteDir);
  if (relation !== '') {
    let current = absoluteRoot;
    for (const segment of relation.split(path.sep)) levels.push((current = path.join(current, segment)));
  }
  return levels;
}

/**
 * Checks that `dir` (inside `root`, or `root` itself) is a chain of real directories, creating
 * missing levels one at a time when `create` is set. Returns false when a level is missing and
 * `create` is not set. Throws {@link UnsafePathError} for a link or a non-directory.
 */
export function checkDirectoryChain(root: string, dir: string, create: boolean): boolean {
  const levels = chainLevels(root, dir);
  for (const [index, level] of levels.entries()) {
    let stats;
    try {
      // A missing level is the usual answer (a session's first write, a plugin that keeps no
      // project state): `throwIfNoEntry` says so without the cost of an exception.
      stats = lstatSync(level, { throwIfNoEntry: false });
    } catch (error) {
      throw ioError('inspect', level, error);
    }
    if (stats === undefined) {
      if (!create) return false;
      try {
        // The root's own parents are the project's business (they may be links, e.g. a home on
        // another disk); from the root down hookwise creates each level itself.
        if (index === 0) mkdirSync(path.dirname(level), { recursive: true });
        mkdirSync(level);
      } catch (mkdirError) {
        if ((mkdirError as NodeJS.ErrnoException).code !== 'EEXIST') throw ioError('create the folder', level, mkdirError);
      }
      stats = lstatSync(level);
    }
    if (stats.isSymbolicLink()) throw new UnsafePathError(level, `it is a symbolic link${linkTarget(level)}`);
    if (!stats.isDirectory()) throw new UnsafePathError(level, `it is ${kindOf(stats)}, expected a folder`);
  }
  return true;
}

/** Whether `error` (from a write, a lock or a read below a checked folder) says the folder itself is gone: removed after it was checked. */
export function isMissingFolderError(error: unknown): boolean {
  const cause = HookwiseError.isInstance(error) ? (error as { cause?: unknown }).cause : error;
  return (cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

/**
 * How long a folder chain checked by {@link ChainChecks} is taken as checked: longer than one
 * hook call's file operations, short enough that a long-lived host (an editor's extension host)
 * checks again before each burst of work.
 */
export const CHAIN_CHECK_REUSE_MS = 250;

/**
 * {@link checkDirectoryChain} with each folder's answer reused for {@link CHAIN_CHECK_REUSE_MS}.
 * One hook call reads and writes the same session folder several times within milliseconds
 * (adapter state, each plugin's state, the lock, the temp file); checking its chain once is as
 * safe as checking it before each use, because nothing hookwise does can make a checked chain
 * unsafe: hookwise processes only ever create real folders (one `mkdir` per level) and remove
 * a session folder (`clear`). A removal shows as ENOENT at the next use, and the owner then
 * calls {@link ChainChecks.forget} and checks again, creating the levels. What remains is
 * another process replacing a checked folder with a link between the check and the use — the
 * race the module comment already names (it exists between any `lstat` and the `open` that
 * follows it); a link planted before the call (a checkout) is refused at the first check.
 * Only positive answers are kept: a missing level is looked up again every time.
 */
export class ChainChecks {
  private readonly checkedAt = new Map<string, number>();

  constructor(
    private readonly root: string,
    private readonly reuseMs = CHAIN_CHECK_REUSE_MS,
  ) {}

  /** {@link checkDirectoryChain}`(root, dir, create)`, or true when `dir` was found safe a moment ago. */
  check(dir: string, create: boolean): boolean {
    const at = this.checkedAt.get(dir);
    const now = Date.now();
    // A clock set back makes `now < at`: checked again.
    if (at !== undefined && now - at < this.reuseMs && now >= at) return true;
    if (!checkDirectoryChain(this.root, dir, create)) return false;
    this.checkedAt.set(dir, now);
    return true;
  }

  /** Forgets `dir` and every folder below it (hookwise removed it, or a use found it gone). */
  forget(dir: string): void {
    const below = `${dir}${path.sep}`;
    for (const key of this.checkedAt.keys()) if (key === dir || key.startsWith(below)) this.checkedAt.delete(key);
  }
}

/**
 * Reads a regular file below `root` without following links; undefined when it (or a folder on
 * the way) does not exist. FIFOs, devices and folders are refused without blocking.
 */
export function readFileInside(root: string, file: string): string | undefined {
  if (!checkDirectoryChain(root, path.dirname(file), false)) return undefined;
  return readFileNoFollow(file);
}

/**
 * The file half of {@link readFileInside}, for a caller that has checked the folder chain
 * itself (the state store, see its {@link ChainChecks}): the file is opened with `O_NOFOLLOW |
 * O_NONBLOCK` and must be a regular file. Undefined when it does not exist.
 */
export function readFileNoFollow(file: string): string | undefined {
  // Most reads of a hook call find no file (state a session has not written yet): one lstat
  // answers that, where a failed open costs an exception. What is there is judged on the open
  // file below, so this answers only "nothing there".
  try {
    if (lstatSync(file, { throwIfNoEntry: false }) === undefined) return undefined;
  } catch {
    // ENOTDIR, EACCES…: the open below reports it
  }
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP' || code === 'EMLINK') throw new UnsafePathError(file, `it is a symbolic link${linkTarget(file)}`);
    throw ioError('read', file, error);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw new UnsafePathError(file, `it is ${kindOf(stats)}`);
    return readFileSync(fd, 'utf8');
  } catch (error) {
    throw HookwiseError.isInstance(error) ? error : ioError('read', file, error);
  } finally {
    closeSync(fd);
  }
}

/** Name of a temp file for `file` written by this process; {@link sweepTempFiles} recognises it. */
export function tempNameFor(file: string, tag = 'tmp'): string {
  return `${file}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.${tag}`;
}

/**
 * Writes `file` (below `root`) atomically: a new temp file beside it (`O_EXCL | O_NOFOLLOW`,
 * so nothing existing is written through), then `rename` over the target, which replaces a
 * directory entry and never writes through a link. The temp file is removed when any step
 * fails (a full disk leaves nothing behind).
 */
export function writeFileAtomicInside(root: string, file: string, text: string | Uint8Array, options: WriteAtomicOptions = {}): void {
  checkDirectoryChain(root, path.dirname(file), true);
  try {
    const stats = lstatSync(file);
    if (stats.isSymbolicLink()) throw new UnsafePathError(file, `it is a symbolic link${linkTarget(file)}`);
    if (!stats.isFile()) throw new UnsafePathError(file, `it is ${kindOf(stats)}`);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw HookwiseError.isInstance(error) ? error : ioError('inspect', file, error);
  }
  writeFileAtomicChecked(file, text, options);
}

export interface WriteAtomicOptions {
  /** fsync the temp file before the rename. */
  fsync?: boolean;
  /** Runs right before the rename; what it throws aborts the write (the temp file is removed) and passes through as is. */
  beforeRename?: () => void;
}

/**
 * The write half of {@link writeFileAtomicInside}, for a caller that has checked the folder
 * chain and what is at `file` itself (the state store does both under its lock). A folder
 * removed meanwhile fails with a HookwiseError whose `cause` has code `ENOENT` (see
 * {@link isMissingFolderError}).
 */
export function writeFileAtomicChecked(file: string, text: string | Uint8Array, options: WriteAtomicOptions = {}): void {
  const temporary = tempNameFor(file);
  let fd: number | undefined;
  try {
    fd = openSync(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o666);
    const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    let offset = 0;
    while (offset < bytes.length) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    if (options.fsync) fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    options.beforeRename?.();
    renameSync(temporary, file);
  } catch (error) {
    if (fd !== undefined) {
      try {
        closeSync(fd);
      } catch {
        // already failing
      }
    }
    try {
      unlinkSync(temporary);
    } catch {
      // never created, or already renamed
    }
    // Only file-system errors are reworded; anything else (a lost lock from beforeRename) passes through.
    throw HookwiseError.isInstance(error) || typeof (error as NodeJS.ErrnoException)?.code !== 'string'
      ? error
      : ioError('write', file, error);
  }
}

const TEMP_NAME = /\.(\d+)\.[a-z0-9]+\.(tmp|lock-tmp|stale-tmp)$/;
const ORPHAN_AGE_MS = 10 * 60 * 1000;

/**
 * Removes temp files left in `dir` by writers that died (kill -9, power loss, a crash between
 * write and rename): names `<file>.<pid>.<random>.tmp` whose pid is no longer running, or that
 * are older than ten minutes (a reused pid). One readdir: the state store runs it under a lock
 * when a crash may have left temp files (see file-state-store.ts), not on every write.
 */
export function sweepTempFiles(dir: string, prefix = ''): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const match = TEMP_NAME.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    const file = path.join(dir, name);
    let orphan = !isProcessAlive(pid);
    if (!orphan) {
      try {
        orphan = Date.now() - lstatSync(file).mtimeMs > ORPHAN_AGE_MS;
      } catch {
        continue;
      }
    }
    if (pid === process.pid && !orphan) continue;
    if (orphan) {
      try {
        const stats = lstatSync(file);
        if (stats.isDirectory()) rmSync(file, { recursive: true, force: true });
        else unlinkSync(file);
      } catch {
        // another sweeper got it first
      }
    }
  }
}
