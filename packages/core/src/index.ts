export { rootContainer, inject, injectable, injectAll, Lifecycle, delay, instanceCachingFactory } from './di.js';
export type { DependencyContainer, InjectionToken } from './di.js';
export * from './tokens.js';
export { HookwiseError, ConfigError, PluginError, HookExecutionError, HookTimeoutError, UnsafeNameError, StateCorruptError } from './errors.js';
export { createLogger, createMemoryLogger, silentLogger } from './logger.js';
export type { Logger, LogLevel } from './logger.js';
export { systemClock } from './clock.js';
export type { Clock } from './clock.js';
export { createCharsTokenCounter, createJsonAwareTokenCounter, createCalibratedTokenCounter, defaultTokenCounter, looksLikeJson, textKind, CALIBRATED_CHARS_PER_TOKEN } from './token-counter.js';
export type { TokenCounter, TextKind } from './token-counter.js';
export { points, pointSchemas, pointNames, isPointName } from './points.js';
export type { HookKind, PointName, PointPayload, PointInput, PointKind, GuardPoint, TransformPoint, TransformField, TransformValues } from './points.js';
export { joinText } from './outcome.js';
export type { ObserveOutcome, GuardOutcome, TransformOutcome, OutcomeOf, HookFailure, MergedOutcome, Notice, NoticeAction, MergedNotice } from './outcome.js';
export { On, defineHook, isHookSet, getClassHooks, isHookClass } from './hooks.js';
export type { HookContext, PluginContext, HookFunction, HookEntry, HookMap, HookSet, HookOrder, HookClass, ClassHookMetadata } from './hooks.js';
export { definePlugin, isPluginInstance } from './plugin.js';
export type { PluginDefinition, PluginInstance, PluginFactory, PluginMeta, PluginCommand, PluginCommandContext } from './plugin.js';
export { parseWith, formatSchemaError } from './schema.js';
export type { SchemaLike } from './schema.js';
export { createEngine, DEFAULT_HOOK_TIMEOUT_MS, PROJECT_SCOPE } from './engine.js';
export type { Engine, EngineOptions, EmitOptions, RegisteredHook } from './engine.js';
export { defineConfig, loadConfig, findConfigFile, configFromJson, configFromModule, CONFIG_FILE_NAMES, defaultExport, pluginFromModule, loadPlugin } from './config.js';
export type { HookwiseConfig, LoadedConfig, JsonConfigModules } from './config.js';
export type { JsonValue, StateStore, SessionState, EventLog, EventRecord } from './state/types.js';
export { createFileStateStore, createMemoryStateStore, createSessionState } from './state/file-state-store.js';
export type { FileStateStoreOptions, FlushableStateStore, LockRetryOptions } from './state/file-state-store.js';
export { checkDirectoryChain, readFileInside, sweepTempFiles, UnsafePathError, writeFileAtomicInside } from './state/safe-fs.js';
export { createEventLog, createMemoryEventLog, formatEventLine, DEFAULT_EVENT_LOG_MAX_BYTES, DEFAULT_EVENT_LOG_MAX_FILES, MAX_EVENT_LINE_BYTES } from './state/event-log.js';
export type { EventLogOptions } from './state/event-log.js';
export { assertSafeName, isSafeName, resolveInside, DEFAULT_MAX_NAME_LENGTH } from './state/safe-name.js';
export type { SafeNameOptions } from './state/safe-name.js';
export type { Message, MessagePart, MessageRole, TextPart, ReasoningPart, ImagePart, ToolCallPart, ToolResultPart, ToolResultContent } from './messages/message-model.js';
export { fromAnthropicMessages, toAnthropicMessages } from './messages/anthropic.js';
export type {
  AnthropicMessageParam,
  AnthropicContentBlock,
  AnthropicSystem,
  AnthropicTextBlock,
  AnthropicImageBlock,
  AnthropicBase64ImageSource,
  AnthropicUrlImageSource,
  AnthropicToolUseBlock,
  AnthropicToolResultBlock,
  AnthropicThinkingBlock,
  AnthropicRedactedThinkingBlock,
  AnthropicCacheControl,
} from './messages/anthropic.js';
export { fromOpenAIMessages, toOpenAIMessages } from './messages/openai.js';
export type {
  OpenAIChatMessage,
  OpenAISystemMessage,
  OpenAIUserMessage,
  OpenAIAssistantMessage,
  OpenAIToolMessage,
  OpenAIToolCall,
  OpenAITextContentPart,
  OpenAIImageContentPart,
  OpenAIRefusalContentPart,
} from './messages/openai.js';
export { validateToolPairing } from './messages/validate.js';
export { estimateMessageTokens, IMAGE_TOKEN_ESTIMATE } from './messages/estimate.js';
export { iterateTranscript, parseTranscriptText, readTranscript, transcriptFromText, readTranscriptEntries, transcriptEntriesOf, contextUsageOf, compactBoundaryOf } from './messages/transcript.js';
export type { TranscriptLine, Transcript, TranscriptCompaction, TranscriptCompactBoundary, TranscriptUsage, TranscriptEntry, TranscriptMessageEntry } from './messages/transcript.js';
export { readTranscriptTail, readContextTokens } from './messages/transcript-tail.js';
export type { TranscriptTail, TailReadOptions, ContextReading } from './messages/transcript-tail.js';
export { isUserPrompt } from './messages/user-prompt.js';
export { parseSlashCommand } from './slash-command.js';
export type { SlashCommand } from './slash-command.js';
export { contextWindowFor, resolveContextWindow, DEFAULT_CONTEXT_WINDOW, ONE_MILLION_CONTEXT_WINDOW } from './context-window.js';
export type { ResolvedContextWindow } from './context-window.js';
