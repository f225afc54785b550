export { dispatchEvent, ADAPTER_NAMESPACE } from './binding/dispatch.js';
export type { DispatchResult } from '@hookwise/core/command-hook';
export { CODEX_EVENTS, EVENT_POINTS, isCodexEvent, isMappedEvent, parseHookInput } from './binding/events.js';
export type { AnyHookInput, CodexEvent, HookInputOf, MappedEvent } from './binding/events.js';
export { codexHost } from './hook-process/hook-call.js';
export { CODEX_LIMITS } from './setup/doctor.js';
