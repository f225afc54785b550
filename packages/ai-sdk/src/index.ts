// The middleware and the types an app writes against; the binding and the prompt conversion stay internal.
export { hookwiseMiddleware } from './middleware.js';
export type {
  HookwiseMiddleware,
  HookwiseSession,
  CallParams,
  ModelInfo,
  ToolLike,
  FinishEvent,
  CompactionReport,
  CompactOptions,
} from './middleware.js';
export type { HookwiseMiddlewareOptions, HookwiseNotice, HookwiseErrorReport } from './binding.js';
export type { PromptMessage, PromptPart } from './prompt.js';
