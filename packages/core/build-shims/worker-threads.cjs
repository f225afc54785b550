'use strict';
// Stands in for node:worker_threads inside core's bundled write-file-atomic, which reads only
// `threadId` to make temp-file names unique across threads of one process. Loading the real
// module pulls in the stream modules in every hook process. Core writes a state file only
// while holding that file's cross-process lock (a directory on disk, so threads exclude each
// other too), so two threads never write the same file at once and a constant is safe.
module.exports = { threadId: 0, isMainThread: true };
