export { dispatchEvent, ADAPTER_NAMESPACE } from './binding/dispatch.js';
export type { DispatchResult } from '@hookwise/core/command-hook';
export { GEMINI_EVENTS, EVENT_POINTS, isGeminiEvent, isMappedEvent, parseHookInput } from './binding/events.js';
export type { GeminiEvent, GeminiInput, MappedEvent } from './binding/events.js';
export { geminiHost } from './hook-process/hook-call.js';
export { HOOK_TIMEOUT_MS, mergeGeminiHooks, settingsFileOf } from './setup/gemini-files.js';
