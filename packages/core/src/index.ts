// The main entry: what a plugin author and a config file need. Everything else lives under a
// subpath per audience — `/host` (adapters: engine, config loading, state, logging, the host
// kit), `/messages` (the message model and its conversions), `/claude-code` (transcripts),
// `/di` (decorator-style hooks; loads tsyringe), `/fs`, `/wire`, `/counting`. This entry loads
// no zod and no tsyringe (index.test.ts counts its runtime names).

// Writing plugins and hooks
export { definePlugin } from './plugin.js';
export type { PluginDefinition, PluginInstance, PluginFactory, PluginMeta, PluginCommand, PluginCommandContext } from './plugin.js';
export type { HookContext, PluginContext, HookFunction, HookEntry, HookSpec, HookMap, HookOrder, HookClass } from './hooks.js';
export type { Measurements } from './outcome.js';
export type { RecordEntry } from './engine/recorder.js';
export type { SchemaLike } from './schema.js';

// Config files
export { defineConfig } from './define-config.js';
export type { HookwiseConfig } from './config.js';

// Lifecycle points and outcomes
export { points } from './points.js';
export type {
  HookKind,
  PointName,
  PointPayload,
  PointInput,
  PointKind,
  GuardPoint,
  TransformPoint,
  TransformField,
  TransformValues,
} from './points.js';
export { joinText } from './outcome.js';
export type {
  ObserveOutcome,
  GuardOutcome,
  TransformOutcome,
  OutcomeOf,
  HookFailure,
  MergedOutcome,
  Notice,
  NoticeAction,
  MergedNotice,
} from './outcome.js';

// Errors
export { HookwiseError, ConfigError, UnsafeNameError } from './errors.js';

// The services a hook's context carries
export type { Logger, LogLevel } from './logger.js';
export type { Clock } from './clock.js';
export type { JsonValue, StateStore, SessionState, EventLog, EventRecord } from './state/types.js';
export type { TokenCounter, TextKind } from './token-counter.js';
