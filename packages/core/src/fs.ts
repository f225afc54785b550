/**
 * `@hookwise/core/fs`: what hosts need from the file system beyond the config. File operations
 * that stay inside a folder (no symbolic links, atomic writes, stale temp files swept), for hosts
 * that write caches of their own (the CLI's run bundle); and the installed hookwise plugins, found
 * by their `package.json` marker (for `hookwise init` and the report). Plugins keep their data in
 * session state and the event log; they use these helpers for files that are not state: a project
 * file they read (`readRegularFile`: a FIFO planted there must not hang the hook process) or a
 * file they write under `.hookwise` (hook-prune's trimmed outputs).
 */
export type { RegularFileHandle } from './state/safe-fs.js';
export {
  checkDirectoryChain,
  openRegularFile,
  readFileInside,
  readRegularFile,
  sweepTempFiles,
  UnsafePathError,
  useSynchronousReads,
  writeFileAtomicInside,
} from './state/safe-fs.js';
export { acquireFileLock } from './state/lock.js';
export type { HeldLock } from './state/lock.js';
export { fileStamps, stampsFresh } from './state/file-stamps.js';
export type { FileStamp } from './state/file-stamps.js';
export { findInstalledPlugins, installedPackages, PLUGIN_KEYWORD } from './plugin-discovery.js';
export type { InstalledPackage } from './plugin-discovery.js';
