export { pruneToolOutputs, toolResultTokens, isUserPrompt, isPrunedOutput, DEFAULT_PROTECTED_TOOLS } from './prune-tool-outputs.js';
export type { PruneOptions, PruneResult, PruneDecision } from './prune-tool-outputs.js';
export { thresholdsFor, contextWindowFor, DEFAULT_PROTECT_TOKENS, DEFAULT_MINIMUM_TOKENS, DEFAULT_CONTEXT_WINDOW, EXTENDED_CONTEXT_WINDOW } from './thresholds.js';
export type { PruneThresholds } from './thresholds.js';
export { DEFAULT_PLACEHOLDER, DIGEST_PREFIX, digestOf, keyInputOf } from './digest.js';
export { prune, prunePluginOptionsSchema } from './plugin.js';
export type { PrunePluginOptions } from './plugin.js';
export { prune as default } from './plugin.js';
