// The middleware and the types an app writes against (everything middleware.ts exports is public).
export * from './middleware.js';
export type { HookwiseMiddlewareOptions, HookwiseNotice, HookwiseErrorReport } from './binding.js';
export type { PromptMessage, PromptPart } from './prompt.js';
