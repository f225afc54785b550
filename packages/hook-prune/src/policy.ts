import type { TokenCounter } from '@hookwise/core';
import { defaultTokenCounter } from '@hookwise/core/plugin';
import type { Message } from '@hookwise/core/messages';
import { DEFAULT_DIGEST_INPUT_TOOLS, DEFAULT_PLACEHOLDER } from './digest.js';
import { countOutput } from './output-tokens.js';
import { DEFAULT_MINIMUM_TOKENS, DEFAULT_PROTECT_TOKENS } from './thresholds.js';

// The agentic defaults: an agent loop is one or two prompts and hundreds of tool calls, so
// protection is by recency. What each default buys on the recorded session is in bench/README.md.
/** Newest results kept whatever their size, as Anthropic's context editing keeps 3 tool uses. */
export const DEFAULT_KEEP_RECENT = 3;
/** Off in the one-shot function (the plugin's cache-aware policy turns it on: `CACHE_AWARE_POLICY`). */
export const DEFAULT_KEEP_FILE_CONTEXT = 0;
/** Off in the one-shot function (the plugin's cache-aware policy sets it: `CACHE_AWARE_POLICY`). */
export const DEFAULT_CACHE_BREAK_RATIO = 0;
/**
 * The plugin's default policy, cache-aware and edit-aware: clear right behind the newest
 * results, in batches that free at least twice what the prompt cache must write again, and keep
 * what the model quotes in its edits (the reads and writes of files in use). What each setting
 * buys on real sessions is in bench/README.md.
 */
export const CACHE_AWARE_POLICY = Object.freeze({
  protectTokens: 0,
  minimumTokens: 0,
  keepRecent: 1,
  cacheBreakRatio: 2,
  keepFileContext: 8,
  keepEditedFiles: true,
  placeholder: 'recall',
});
/** No protection by user turns (OpenCode's rule is 2: with it, one long prompt protects everything). */
export const DEFAULT_PROTECT_TURNS = 0;
/** A re-read of the same file or a re-run of the same command makes the older output stale. */
export const DEFAULT_SUPERSEDE = true;

/**
 * Tools whose output is never pruned: skill bodies and sub-agent reports are instructions or
 * unique evidence that cannot be re-fetched by running the tool again, and a todo list is state.
 */
export const DEFAULT_PROTECTED_TOOLS: readonly string[] = Object.freeze(['skill', 'Skill', 'Task', 'Agent', 'TodoWrite', 'todowrite']);

export interface PruneOptions {
  /**
   * Newest prunable tool tokens kept verbatim (default 40,000; see `thresholdsFor`). Results
   * protected by recency (latest step, `keepRecent`, `protectTurns`) do not count toward it.
   */
  protectTokens?: number;
  /** Commit only when the candidates total strictly more than this (default 20,000). */
  minimumTokens?: number;
  /**
   * The newest tool results (of any tool, errors included) never pruned, whatever their size.
   * Default 3, as Anthropic's `clear_tool_uses_20250919` keeps 3 tool uses.
   */
  keepRecent?: number;
  /**
   * Tool results with fewer than this many real user prompts at or after their message are
   * never pruned. Default 0: an agent loop is one or two prompts and hundreds of tool calls, so
   * protection is by recency. 2 is OpenCode's rule (the current and the previous turn).
   */
  protectTurns?: number;
  /** Tool names whose results are never counted or pruned (default `DEFAULT_PROTECTED_TOOLS`). */
  protectedTools?: readonly string[];
  /**
   * Replacement text; `'recall'` (the default) for a line that says what was there and how to get
   * it back (`[Read of src/x.ts, lines 1–200, cleared; read it again to edit it]`); `'digest'`
   * for a one-line digest (tool, key input, size, first error line).
   */
  placeholder?: string;
  /** The session's working directory: relative paths (a shell command's) are keyed against it. Learned from the history when left out. */
  workingDirectory?: string;
  /**
   * Also prune outputs made stale by a later identical call (same tool, same input), even inside
   * the protected window; never one of the latest step or the newest `keepRecent` (nor, with
   * `protectTurns` ≥ 1, of the current turn). Default true.
   */
  supersede?: boolean;
  /**
   * With a pruned output, also replace the large fields of its call's input by a digest (tool,
   * path, size, hash) for these tools: the content they wrote is on disk. The call keeps its id.
   * Default `DEFAULT_DIGEST_INPUT_TOOLS`; `false` or `[]` turns it off.
   */
  digestInputs?: readonly string[] | false;
  /**
   * Reads and writes of a file one of the newest this-many tool results touched are kept whole:
   * the model quotes them in its next edits of that file (see `file-context.ts`). 0 turns it off.
   */
  keepFileContext?: number;
  /** Also keep the reads and writes of every file edited since the latest compaction (default false): edits come in runs. */
  keepEditedFiles?: boolean;
  /** Keep every edit since the latest compaction whose input is `SHORT_EDIT_MAX_CHARS` or less (default false). */
  keepShortEdits?: boolean;
  /**
   * Prompt caching: pruning a result makes the provider write again everything after it. With a
   * ratio above 0, a batch is committed only when the tokens it frees are at least this multiple
   * of the tokens sent after its oldest result; older candidates wait for a batch that pays. 0 is
   * the plain rule (everything past the window, once it frees more than `minimumTokens`).
   */
  cacheBreakRatio?: number;
  /** Counts tokens (default core's calibrated counter). */
  tokenCounter?: TokenCounter;
  /**
   * Tool call ids an earlier run pruned. They are pruned again (unless now protected by
   * recency) without counting toward the window or the minimum, so a host that prunes a fresh
   * copy of its history before every request changes the prompt prefix once per batch, not once
   * per request.
   */
  previouslyPruned?: Iterable<string>;
}

export type PruneDecision =
  /** Something was pruned; `messages` differs from the input. */
  | 'pruned'
  /** Earlier prunes were re-applied, no new batch was worth it. */
  | 'reapplied'
  /** Fewer real user prompts than `protectTurns` (the name is OpenCode's rule of 2). */
  | 'fewer-than-two-user-prompts'
  | 'nothing-eligible'
  | 'within-protected-window'
  | 'below-minimum';

export interface PruneResult {
  /** The input array itself when nothing changed; otherwise a new array in which only changed messages are new objects. */
  messages: Message[];
  /** Tokens of the pruned outputs minus tokens of their replacements. */
  tokensReclaimed: number;
  /** Tool results replaced by this run (re-applied ones included). */
  prunedCount: number;
  /** Tool results looked at (everything after the latest compaction summary). */
  scannedCount: number;
  /** Tool call ids of every result this run replaced: hand them back as `previouslyPruned`. */
  prunedIds: string[];
  decision: PruneDecision;
  /** Why, in one sentence. */
  reason: string;
}

/** The options of one run, checked and with their defaults. */
export interface Policy {
  readonly protectTokens: number;
  readonly minimumTokens: number;
  readonly keepRecent: number;
  readonly keepFileContext: number;
  readonly keepEditedFiles: boolean;
  readonly keepShortEdits: boolean;
  readonly workingDirectory: string | undefined;
  readonly cacheBreakRatio: number;
  readonly protectTurns: number;
  /** Stale outputs and earlier prunes are never touched in the current turn when turns are protected at all. */
  readonly staleTurns: number;
  readonly supersede: boolean;
  readonly counter: TokenCounter;
  /** The option as given (`'digest'` included): with the tool lists, what an entry's facts depend on. */
  readonly placeholderOption: string;
  /** The text a pruned output is recognised by (the default one with digests). */
  readonly placeholder: string;
  /** Replacement text made per output (`'digest'`, `'recall'`), or undefined for the one placeholder text. */
  readonly perOutput: 'digest' | 'recall' | undefined;
  readonly placeholderTokens: number;
  /** Read during the run, not copied: a run is synchronous, and a few names are looked up faster in a list than a set is built per request. */
  readonly protectedTools: readonly string[];
  readonly digestTools: readonly string[] | undefined;
  /** Whether any tool's input is digested (`digestTools` names one). */
  readonly digests: boolean;
}

function checkCount(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number ≥ 0, got ${value}`);
  return value;
}

export function policyOf(options: PruneOptions): Policy {
  const protectTokens = checkCount(options.protectTokens, DEFAULT_PROTECT_TOKENS, 'protectTokens');
  const minimumTokens = checkCount(options.minimumTokens, DEFAULT_MINIMUM_TOKENS, 'minimumTokens');
  const keepRecent = checkCount(options.keepRecent, DEFAULT_KEEP_RECENT, 'keepRecent');
  const protectTurns = checkCount(options.protectTurns, DEFAULT_PROTECT_TURNS, 'protectTurns');
  const keepFileContext = checkCount(options.keepFileContext, DEFAULT_KEEP_FILE_CONTEXT, 'keepFileContext');
  const cacheBreakRatio = checkCount(options.cacheBreakRatio, DEFAULT_CACHE_BREAK_RATIO, 'cacheBreakRatio');
  const counter = options.tokenCounter ?? defaultTokenCounter;
  const placeholderOption = options.placeholder ?? DEFAULT_PLACEHOLDER;
  const perOutput = placeholderOption === 'digest' || placeholderOption === 'recall' ? placeholderOption : undefined;
  const placeholder = perOutput !== undefined ? DEFAULT_PLACEHOLDER : placeholderOption;
  const protectedTools = options.protectedTools ?? DEFAULT_PROTECTED_TOOLS;
  const digestTools = options.digestInputs === false ? undefined : (options.digestInputs ?? DEFAULT_DIGEST_INPUT_TOOLS);
  return {
    protectTokens,
    minimumTokens,
    keepRecent,
    keepFileContext,
    keepEditedFiles: options.keepEditedFiles ?? false,
    keepShortEdits: options.keepShortEdits ?? false,
    workingDirectory: options.workingDirectory,
    cacheBreakRatio,
    protectTurns,
    staleTurns: Math.min(protectTurns, 1),
    supersede: options.supersede ?? DEFAULT_SUPERSEDE,
    counter,
    placeholderOption,
    placeholder,
    perOutput,
    placeholderTokens: perOutput !== undefined ? 0 : countOutput(placeholder, counter),
    protectedTools,
    digestTools,
    digests: digestTools !== undefined && digestTools.length > 0,
  };
}
