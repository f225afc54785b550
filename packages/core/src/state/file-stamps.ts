import { statSync } from 'node:fs';

/** `[path, mtimeMs, size]`: what a cache remembers of a file it was built from. */
export type FileStamp = [path: string, mtimeMs: number, size: number];

/** The stamps of the files that exist (a missing file has none, so its later creation is not seen: watch its folder's files instead). */
export function fileStamps(files: Iterable<string>): FileStamp[] {
  const stamps: FileStamp[] = [];
  for (const file of files) {
    try {
      const stats = statSync(file);
      stamps.push([file, stats.mtimeMs, stats.size]);
    } catch {
      // gone or unreadable: nothing to remember
    }
  }
  return stamps;
}

/**
 * THE freshness rule for hookwise's caches (the TypeScript config's compiled output, the CLI's
 * run bundle): a cache is fresh while every file it was built from has the same mtime and size.
 * One `stat` per file, no reads: a hook process checks this on every call. (The CLI's CommonJS
 * fast path, which cannot load core, applies the same rule to the same stamps.)
 */
export function stampsFresh(stamps: readonly FileStamp[]): boolean {
  for (const [file, mtimeMs, size] of stamps) {
    try {
      const stats = statSync(file);
      if (stats.mtimeMs !== mtimeMs || stats.size !== size) return false;
    } catch {
      return false;
    }
  }
  return true;
}
