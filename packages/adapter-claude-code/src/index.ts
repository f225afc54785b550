export { hookwiseHooks } from './binding/agent-sdk.js';
export type {
  HookwiseHooksOptions,
  HookwiseHookCallback,
  HookwiseHookCallbackMatcher,
  HookwiseSdkHooks,
  SdkHookInput,
} from './binding/agent-sdk.js';
export { dispatchEvent, replaceAgentOutput, ADAPTER_NAMESPACE, SUBAGENT_TOOLS } from './binding/binding.js';
export type { DispatchResult } from './binding/binding.js';
export { CLAUDE_CODE_EVENTS, EVENT_POINTS, POINT_EVENTS, inputSchemas, isClaudeCodeEvent, isMappedEvent } from './binding/events.js';
export type { ClaudeCodeEvent, MappedEvent, HookInputOf, AnyHookInput } from './binding/events.js';
export { renderOutput, serializeOutput, capText, OUTPUT_CHARACTER_CAP } from './binding/output.js';
export type { EventResult, HookJsonOutput, HookSpecificOutput, RenderedOutput } from './binding/output.js';
export { runHook, resolveProjectDir, MAX_INPUT_BYTES } from './hook-process/hook-call.js';
export type { RunRequest, RunResult, EngineLoader } from './hook-process/hook-call.js';
export { mergeHookwiseHooks, eventsForPoints, settingsFileOf, hookwiseEventOf } from './setup/settings.js';
export type { Settings, SettingsScope } from './setup/settings.js';
