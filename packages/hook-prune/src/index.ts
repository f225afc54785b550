export { pruneToolOutputs, toolResultTokens, isPrunedOutput, DEFAULT_PROTECTED_TOOLS } from './prune-tool-outputs.js';
export type { PruneOptions, PruneResult, PruneDecision } from './prune-tool-outputs.js';
export { thresholdsFor, DEFAULT_PROTECT_TOKENS, DEFAULT_MINIMUM_TOKENS } from './thresholds.js';
export type { PruneThresholds } from './thresholds.js';
export { DEFAULT_PLACEHOLDER, DIGEST_PREFIX, digestOf, keyInputOf } from './digest.js';
export { prune, prunePluginOptionsSchema } from './plugin.js';
export type { PrunePluginOptions } from './plugin.js';
export { prune as default } from './plugin.js';
