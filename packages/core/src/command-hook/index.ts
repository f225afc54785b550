export { hostEvents, snakeCaseHost } from './host.js';
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
export { EventDispatch, compactTrigger, noticeIn, sessionSource } from './dispatch.js';
export type { CommonFields, ContextUsageReader, DispatchResult, EventDispatchOptions, EventResult, PointFields } from './dispatch.js';
export { capText, renderHookJson } from './output.js';
export { fileSize, jsonLinesFrom } from './json-lines.js';
export type { HookJsonOutput, HookOutputFormat } from './output.js';
export { BASE_INPUT_FIELDS, createInputParser, inputSchemaOf, parseInputFields } from './input-fields.js';
export type { FieldKind, InputFields, InputOf, SchemaOfKind } from './input-fields.js';
export {
  eventsForPoints,
  hookwiseEventOf,
  hookwiseEventsIn,
  mergeHookwiseHooks,
  missingCommandFile,
  missingProgram,
} from './hook-settings.js';
export type { HookSettings } from './hook-settings.js';
