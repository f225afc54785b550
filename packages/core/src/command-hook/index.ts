export type { CommandHookHost } from './host.js';
export {
  callScope,
  callTimeoutOf,
  CallDeadlineError,
  DEFAULT_CALL_TIMEOUT_MS,
  findProjectConfig,
  hookStopped,
  logCliRecord,
  MAX_INPUT_BYTES,
  runHook,
} from './call.js';
export type { CallScope, EngineLoader, RunProgress, RunRequest, RunResult } from './call.js';
export { runHookProcess } from './process.js';
export { describeError, escapeControl, printable, realExit, writeAllSync } from './process-io.js';
