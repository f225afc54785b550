import type { Message } from '@hookwise/core/messages';
import type { PruneOptions, PruneResult } from './policy.js';
import { createPruner } from './pruner.js';

export { CACHE_AWARE_POLICY, DEFAULT_KEEP_RECENT, DEFAULT_PROTECT_TURNS, DEFAULT_PROTECTED_TOOLS, DEFAULT_SUPERSEDE } from './policy.js';
export type { PruneDecision, PruneOptions, PruneResult } from './policy.js';
export { isPrunedOutput } from './digest.js';
export { toolResultTokens } from './output-tokens.js';

/**
 * Clears old tool outputs, newest to oldest. The default policy is for agent loops (one or two
 * prompts, hundreds of tool calls), protection by recency as Anthropic's context editing does:
 * - never pruned: the results of the latest assistant step (a parallel batch counts whole), the
 *   newest `keepRecent` results, error results, `protectedTools`, results with fewer than
 *   `protectTurns` user prompts after them, anything before the latest compaction summary;
 * - the other results are summed newest to oldest (output, plus the input of write/edit-like
 *   calls when `digestInputs`); once the sum is strictly greater than `protectTokens`, that
 *   result (whole) and every older one are candidates;
 * - the candidates are replaced only if they total strictly more than `minimumTokens`;
 * - with `supersede`, an output made stale by a later identical call is a candidate even inside
 *   the window.
 * Tool call and result ids stay, so pairing holds. `{ protectTurns: 2, keepRecent: 0,
 * supersede: false }` is OpenCode's rule, as this function applied it before the agentic
 * default (add `digestInputs: false` for histories with write/edit calls).
 *
 * Pure and idempotent: running it on its own output changes nothing and returns the very same
 * array. It keeps nothing between calls; a host that prunes its growing history before every
 * request uses a pruner per session (`createPruner`), which gives the same results.
 */
export function pruneToolOutputs(messages: Message[], options: PruneOptions = {}): PruneResult {
  return createPruner().prune(messages, options);
}
