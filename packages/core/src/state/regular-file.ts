import { close, closeSync, constants, fstat, fstatSync, open, openSync, read, readFile, readFileSync, readSync, type Stats } from 'node:fs';
import { HookwiseError } from '../errors.js';

// Reading a file that must be a regular one (a transcript outside `.hookwise`): a FIFO, a device
// or a folder in its place is refused without blocking. Re-exported by safe-fs.ts.

const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/** A short description of a non-regular, non-link entry for messages. */
export function kindOf(stats: Stats): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'a device';
  if (stats.isSocket()) return 'a socket';
  return 'not a regular file';
}

/**
 * An open regular file: the part of `fs/promises`' FileHandle that hookwise's readers use, over
 * callback `fs`. Not a FileHandle because loading `node:fs/promises` lengthens a hook process's
 * start-up, and every PostToolUse call opens the transcript.
 */
export interface RegularFileHandle {
  readonly fd: number;
  stat(): Promise<Stats>;
  /** Reads at `position`, or at the current position when it is null (as FileHandle.read). */
  read<B extends NodeJS.ArrayBufferView>(
    buffer: B,
    offset: number,
    length: number,
    position: number | null,
  ): Promise<{ bytesRead: number; buffer: B }>;
  /** The rest of the file from the current position. */
  readFile(encoding: BufferEncoding): Promise<string>;
  close(): Promise<void>;
}

const settle =
  <T>(resolve: (value: T) => void, reject: (error: unknown) => void) =>
  (error: NodeJS.ErrnoException | null, value: T): void =>
    error ? reject(error) : resolve(value);

function handleOf(fd: number): RegularFileHandle {
  return {
    fd,
    stat: () => new Promise((resolve, reject) => fstat(fd, settle(resolve, reject))),
    read: (buffer, offset, length, position) =>
      new Promise((resolve, reject) =>
        read(fd, buffer, offset, length, position, (error, bytesRead) => (error ? reject(error) : resolve({ bytesRead, buffer }))),
      ),
    readFile: (encoding) => new Promise((resolve, reject) => readFile(fd, encoding, settle(resolve, reject))),
    close: () => new Promise((resolve, reject) => close(fd, (error) => (error ? reject(error) : resolve()))),
  };
}

/** The same handle over synchronous calls: each promise is settled when it is returned. */
function synchronousHandleOf(fd: number): RegularFileHandle {
  return {
    fd,
    stat: async () => fstatSync(fd),
    read: async (buffer, offset, length, position) => ({ bytesRead: readSync(fd, buffer, offset, length, position), buffer }),
    readFile: async (encoding) => readFileSync(fd, encoding),
    close: async () => closeSync(fd),
  };
}

let synchronousReads = false;

/**
 * Makes {@link openRegularFile} and {@link readRegularFile} work with synchronous calls in this
 * process: for a short-lived process that runs one thing at a time, such as the `hookwise run`
 * hook process. Its hooks run one after another, so a read blocking the thread for its few
 * microseconds keeps nothing else waiting, while the first asynchronous file call of a process
 * starts libuv's thread pool (four threads, a noticeable share of a hook call that reads one transcript).
 * FIFOs and devices are refused exactly as before: the open is non-blocking, then `fstat`
 * decides. Long-lived hosts (an editor) keep the default, asynchronous calls.
 */
export function useSynchronousReads(value = true): void {
  synchronousReads = value;
}

/**
 * Opens a file for reading only if it is a regular file (links are followed: transcripts live
 * outside `.hookwise`). `O_NONBLOCK` makes the open of a FIFO return at once instead of blocking
 * a libuv thread until a writer appears — a blocked thread keeps the process from exiting at all;
 * the `fstat` then refuses FIFOs, devices and folders. Reads of a regular file are unaffected.
 */
export async function openRegularFile(file: string, options: { synchronous?: boolean } = {}): Promise<RegularFileHandle> {
  // `synchronous`: this caller's reads block (see useSynchronousReads), whatever the process's setting.
  if (options.synchronous ?? synchronousReads) {
    const fd = openSync(file, constants.O_RDONLY | O_NONBLOCK);
    let stats: Stats;
    try {
      stats = fstatSync(fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    if (!stats.isFile()) {
      closeSync(fd);
      throw notRegular(file, stats);
    }
    return synchronousHandleOf(fd);
  }
  const handle = handleOf(
    await new Promise<number>((resolve, reject) => open(file, constants.O_RDONLY | O_NONBLOCK, settle(resolve, reject))),
  );
  let stats: Stats;
  try {
    stats = await handle.stat();
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (!stats.isFile()) {
    await handle.close();
    throw notRegular(file, stats);
  }
  return handle;
}

function notRegular(file: string, stats: Stats): HookwiseError {
  // A folder keeps the errno callers already test for; anything else gets a code of its own.
  return new HookwiseError(`${file} is ${kindOf(stats)}, not a regular file`, {
    code: stats.isDirectory() ? 'EISDIR' : 'HW_NOT_REGULAR_FILE',
  });
}

/** The text of a regular file (links followed), refusing FIFOs, devices and folders without blocking; see {@link openRegularFile}. */
export async function readRegularFile(file: string): Promise<string> {
  const handle = await openRegularFile(file);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
