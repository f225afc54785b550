/**
 * `@hookwise/core/codex`: reading Codex CLI rollout files (the `transcript_path` its hooks get):
 * the newest request's usage and whether a compaction came after it.
 */
export { readRolloutTail, rolloutContextTokens, rolloutUsageFields, rolloutUsageOf } from './messages/codex-rollout.js';
export type { RolloutTail, RolloutUsage } from './messages/codex-rollout.js';
