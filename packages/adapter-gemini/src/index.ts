export { dispatchEvent, ADAPTER_NAMESPACE } from './dispatch.js';
export type { GeminiOutput } from './dispatch.js';
export { GEMINI_EVENTS, EVENT_POINTS, eventsForPoints, isGeminiEvent, isMappedEvent, parseInput } from './events.js';
export type { GeminiEvent, GeminiInput, MappedEvent } from './events.js';
export { geminiHost, runHook, resolveProjectDir } from './hook-process/hook-call.js';
export { mergeHookwiseHooks, hookwiseEventsIn, settingsFileOf, HOOK_TIMEOUT_MS } from './setup/settings.js';
export type { Settings } from './setup/settings.js';
