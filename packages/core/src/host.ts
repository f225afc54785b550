/**
 * `@hookwise/core/host`: what a host (an adapter, a binding, the CLI, a replay) is written on —
 * the engine, config loading, the host kit (emit if a hook listens, fail open, one deadline,
 * levelled logging), state stores, token counters. Safe names, the context window, the default
 * token counter, session state and the event log file are in `/plugin`, which hosts import too.
 */

// Engine and config
export { createEngine } from './engine.js';
export type { Engine, EngineOptions, EmitOptions, RegisteredHook } from './engine.js';
export { hookLabel } from './engine/failure-report.js';
export { loadConfig, findConfigFile, configFromBundle, loadPlugin } from './config.js';
export type { LoadedConfig, BundledConfig, CheckedJsonConfig } from './config.js';
export { pointSchema } from './point-schemas.js';
export type { PointSchemas } from './points.js';
export { parseWith } from './schema.js';

// Host kit
export {
  DEFAULT_HOOK_TIMEOUT_MS,
  deadlineBefore,
  deadlineSignal,
  withDeadline,
  withDeadlineSignal,
  emitIfListening,
  failOpen,
  isListening,
  keepingAlive,
  createLevelLogger,
  definedFields,
  errorMessage,
} from './host-kit.js';
export { createHost } from './host-kit/create-host.js';
export type { Host, HostOptions, HostNotice, HostErrorReport, EmitCallOptions } from './host-kit/create-host.js';
export type { HostSession, CommandAction, CommonFields, ContextUsage } from './host-kit/host-session.js';
export { createProjectHosts } from './host-kit/project-hosts.js';
export type { ProjectHosts } from './host-kit/project-hosts.js';
export { createPartConversion, emitLlmBefore } from './host-kit/part-conversion.js';
export type { PartConversion, PartConversionSpec } from './host-kit/part-conversion.js';
export { runCompaction, runTool } from './host-kit/wrapped-calls.js';
export type { CompactionSteps } from './host-kit/compaction-steps.js';
export { installedPackageFolder, readJsonObject, relativeEntry } from './host-kit/settings-file.js';
export { gitRoot } from './host-kit/git-root.js';
export type { JsonObjectRead } from './host-kit/settings-file.js';
export { checkSettingsEntry, entrySpec, mergeSettingsEntry, planSettingsEntry, settingsEntries } from './host-kit/settings-entry.js';
export type { PlannedSettingsFile, SettingsEntry, SettingsEntryCheck, SettingsEntryPlan } from './host-kit/settings-entry.js';
export { checkSettingsFile, packageEntryMatcher, settingsEntrySetup } from './host-kit/settings-setup.js';
export type { SettingsEntrySetup } from './host-kit/settings-setup.js';
export { lazyProjectEngine } from './project-engine.js';
export type { ProjectEngine, ProjectEngineOptions, ProjectEngineSeams } from './project-engine.js';
export type { DeadlineCause, DeadlineOptions, LogEntry } from './host-kit.js';

// Services: logging, state, event log, safe names
export { createLogger, createMemoryLogger, silentLogger } from './logger.js';
export { createFileStateStore, createMemoryStateStore } from './state/file-state-store.js';
export type { FileStateStoreOptions, FlushableStateStore, LockRetryOptions } from './state/file-state-store.js';
export { openStateStore, stateUrl } from './state/open-state-store.js';
export type { OpenStateStoreOptions } from './state/open-state-store.js';
export { createRedisStateStore, DEFAULT_STATE_TTL_SECONDS } from './state/redis-state-store.js';
export type { RedisStateStore, RedisStateStoreOptions } from './state/redis-state-store.js';
export { createMemoryEventLog } from './state/event-log.js';

// Tokens and the context window
export { createCalibratedTokenCounter, createCharsTokenCounter } from './token-counter.js';
// How a notice reads with its offers, in a host's words for the compact action.
export { noticeText } from './outcome.js';
export type { NoticeWording } from './outcome.js';
