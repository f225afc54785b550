/**
 * `@hookwise/core/fs`: file operations that stay inside a folder (no symbolic links, atomic
 * writes, stale temp files swept), for hosts that write caches of their own (the CLI's run
 * bundle). Plugins keep their data in session state and the event log instead.
 */
export { checkDirectoryChain, readFileInside, sweepTempFiles, UnsafePathError, writeFileAtomicInside } from './state/safe-fs.js';
export { fileStamps, stampsFresh } from './state/file-stamps.js';
export type { FileStamp } from './state/file-stamps.js';
