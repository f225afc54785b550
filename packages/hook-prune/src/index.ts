// The plugin, the pure pruning and trimming functions a host or a test may call, a pruner for a
// host that prunes one session's history before every request, and the defaults they document;
// digest and path helpers stay internal (a plugin offers 10–20 names).
export {
  pruneToolOutputs,
  toolResultTokens,
  isPrunedOutput,
  DEFAULT_PROTECTED_TOOLS,
  DEFAULT_KEEP_RECENT,
  DEFAULT_PROTECT_TURNS,
  DEFAULT_SUPERSEDE,
  CACHE_AWARE_POLICY,
} from './prune-tool-outputs.js';
export type { PruneOptions, PruneResult, PruneDecision } from './prune-tool-outputs.js';
export { createPruner } from './pruner.js';
export type { Pruner } from './pruner.js';
export { thresholdsFor, DEFAULT_PROTECT_TOKENS, DEFAULT_MINIMUM_TOKENS } from './thresholds.js';
export type { PruneThresholds } from './thresholds.js';
export { DEFAULT_PLACEHOLDER, DIGEST_PREFIX, DEFAULT_DIGEST_INPUT_TOOLS } from './digest.js';
export { prune, prunePluginOptionsSchema } from './plugin.js';
export { trimToolOutput, DEFAULT_UNTRIMMED_TOOLS, DEFAULT_TRIM_OVER_CHARS } from './trim-output.js';
export type { TrimOptions, TrimmedOutput } from './trim-output.js';
export type { PrunePluginOptions } from './plugin.js';
export { prune as default } from './plugin.js';
