// The public API: what a plugin author needs and what the packages' READMEs use. Internals
// (tsyringe's container, the merge and point tables' parts, helpers of one module) stay
// internal; the Anthropic/OpenAI wire types live under `@hookwise/core/wire`, the safe file
// operations hosts use for their own caches under `@hookwise/core/fs`.

// Writing plugins and hooks
export { definePlugin } from './plugin.js';
export type { PluginDefinition, PluginInstance, PluginFactory, PluginMeta, PluginCommand, PluginCommandContext } from './plugin.js';
export { defineHook, On } from './hooks.js';
export type { HookContext, PluginContext, HookFunction, HookEntry, HookMap, HookSet, HookOrder, HookClass } from './hooks.js';
export { inject, injectable } from './di.js';
export type { DependencyContainer, InjectionToken } from './di.js';
export { TOKENS } from './tokens.js';

// Lifecycle points and outcomes
export { points } from './points.js';
export type { HookKind, PointName, PointPayload, PointInput, PointKind, GuardPoint, TransformPoint, TransformField, TransformValues } from './points.js';
export { joinText } from './outcome.js';
export type { ObserveOutcome, GuardOutcome, TransformOutcome, OutcomeOf, HookFailure, MergedOutcome, Notice, NoticeAction, MergedNotice } from './outcome.js';

// Engine and config (hosts)
export { createEngine, PROJECT_SCOPE } from './engine.js';
export type { Engine, EngineOptions, EmitOptions, RegisteredHook } from './engine.js';
export { defineConfig, loadConfig, findConfigFile, configFromBundle, loadPlugin } from './config.js';
export type { HookwiseConfig, LoadedConfig, BundledConfig, CheckedJsonConfig } from './config.js';
// Host kit: what every adapter is written on (to move under a `/host` subpath)
export { DEFAULT_HOOK_TIMEOUT_MS, withDeadline, emitIfListening, failOpen, createLevelLogger, definedFields, errorMessage } from './host-kit.js';
export type { DeadlineCause, DeadlineOptions, LogEntry } from './host-kit.js';
export { parseWith } from './schema.js';
export type { SchemaLike } from './schema.js';

// Errors
export { HookwiseError, ConfigError, UnsafeNameError } from './errors.js';

// Services: logging, state, event log, safe names
export { createLogger, createMemoryLogger, silentLogger } from './logger.js';
export type { Logger, LogLevel } from './logger.js';
export type { Clock } from './clock.js';
export { createFileStateStore, createMemoryStateStore, createSessionState } from './state/file-state-store.js';
export type { FileStateStoreOptions, FlushableStateStore, LockRetryOptions } from './state/file-state-store.js';
export { createEventLog, createMemoryEventLog } from './state/event-log.js';
export type { EventLogOptions } from './state/event-log.js';
export type { JsonValue, StateStore, SessionState, EventLog, EventRecord } from './state/types.js';
export { assertSafeName, isSafeName, resolveInside } from './state/safe-name.js';
export type { SafeNameOptions } from './state/safe-name.js';

// Tokens and the context window
export { createCalibratedTokenCounter, createCharsTokenCounter, defaultTokenCounter } from './token-counter.js';
export type { TokenCounter, TextKind } from './token-counter.js';
export { estimateMessageTokens, IMAGE_TOKEN_ESTIMATE } from './messages/estimate.js';
export { contextWindowFor, resolveContextWindow } from './context-window.js';
export type { ResolvedContextWindow } from './context-window.js';

// Messages
export type { Message, MessagePart, MessageRole, TextPart, ReasoningPart, ImagePart, ToolCallPart, ToolResultPart, ToolResultContent } from './messages/message-model.js';
export { fromAnthropicMessages, toAnthropicMessages } from './messages/anthropic.js';
export { fromOpenAIMessages, toOpenAIMessages } from './messages/openai.js';
export { validateToolPairing } from './messages/validate.js';
export { isUserPrompt } from './messages/user-prompt.js';
export { parseSlashCommand } from './slash-command.js';
export type { SlashCommand } from './slash-command.js';

// Claude Code transcripts
export { iterateTranscript, readTranscript, readTranscriptEntries, transcriptEntriesOf } from './messages/transcript.js';
export type { TranscriptLine, Transcript, TranscriptCompaction, TranscriptCompactBoundary, TranscriptUsage, TranscriptEntry, TranscriptMessageEntry, TranscriptReadOptions } from './messages/transcript.js';
export { readTranscriptTail, readContextTokens, readLastAssistantText } from './messages/transcript-tail.js';
export type { TranscriptTail, TailReadOptions, ContextReading } from './messages/transcript-tail.js';
