import type * as Lockfile from 'proper-lockfile';
import type WriteFileAtomic from 'write-file-atomic';

// The lock and atomic-write libraries (with graceful-fs, which patches fs when it loads) are
// only needed once a hook writes state or rotates a log. Loading them on first use keeps
// them off the start-up path of every hook process that only reads.
let lockfilePromise: Promise<typeof Lockfile> | undefined;
let writeFileAtomicPromise: Promise<typeof WriteFileAtomic> | undefined;

export function loadLockfile(): Promise<typeof Lockfile> {
  lockfilePromise ??= import('proper-lockfile').then((module) => ((module as { default?: typeof Lockfile }).default ?? module) as typeof Lockfile);
  return lockfilePromise;
}

export function loadWriteFileAtomic(): Promise<typeof WriteFileAtomic> {
  writeFileAtomicPromise ??= import('write-file-atomic').then((module) => ((module as { default?: typeof WriteFileAtomic }).default ?? module) as typeof WriteFileAtomic);
  return writeFileAtomicPromise;
}
