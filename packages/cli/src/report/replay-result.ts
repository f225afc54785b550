import type { HookFailure, MergedNotice, PointName } from '@hookwise/core';
import type { Engine } from '@hookwise/core/host';
import type { TranscriptEntry, TranscriptUsage } from '@hookwise/core/claude-code';
import type { CacheFigures } from '@hookwise/core/counting';

// What a replay of a Claude Code transcript gives back (see replay.ts).

/** One main-chain response's usage (core's transcript figures), as the replay saw it. */
export interface UsagePoint extends Omit<TranscriptUsage, 'isSidechain'> {
  /** Main-chain tool calls made before this response. */
  toolCallsBefore: number;
  /** What the `llm:before` transformers changed in the request that produced this response; undefined when none ran. */
  prune?: PruneFigure;
}

export interface PruneFigure {
  reclaimedTokens: number;
  parts: number;
  /** Messages the request carried. */
  messages: number;
  /** Tokens of the history it carried, by the engine's counter (the one `reclaimedTokens` uses); on compactions only. */
  historyTokens?: number;
  /** The request's message tokens read from and written to the prompt cache, as the host sent it and as transformed; requests only, `every-request` sampling only. */
  cache?: { without: CacheFigures; withPrune: CacheFigures };
}

/** An edit whose old text the request that made it showed (sourced); lost when the transformed request no longer did. */
export interface ReplayEdit {
  line: number;
  toolName: string;
  lost: boolean;
  /** Tokens of the replaced output that showed the text: what the re-read costs. */
  rereadTokens: number;
}

export interface ReplayNotice {
  /** Line of the event whose outcome carried the notice. */
  eventLine: number;
  point: PointName;
  text: string;
  /** Line of the usage figure the event carried as `contextTokens` (first line of that response). */
  usageLine?: number;
  contextTokens?: number;
  /** For tool events: the line of the `tool_use` block. */
  toolUseLine?: number;
  /** Main-chain tool calls so far (the current one included). */
  toolCalls: number;
  /** What the event's hooks measured (`contextWindow`, …), when they said. */
  measurements?: Record<string, number>;
  /** The notices one by one, as the engine merged them: kind, actions, the hook each came from. */
  notices: MergedNotice[];
}

export interface ReplayCompaction {
  line: number;
  trigger: 'manual' | 'auto';
  preTokens?: number;
  postTokens?: number;
  postTokensSource?: 'metadata' | 'measured';
  /** Labels the `compact:before` hooks preserved (hook-precompact: active commands, intents…). */
  preserved: string[];
  /** Text the `compact:before` hooks added to the compaction instructions. */
  instructions?: string;
  blockedBy?: string;
  prune?: PruneFigure;
}

export interface ReplayHookError extends HookFailure {
  line: number;
  point: PointName;
}

/**
 * A message that is part of the live history again without happening again: no hook event, no
 * request. OpenCode and pi keep a tail of recent messages after a compaction, sent after the summary.
 */
export interface HistoryEntry {
  type: 'history';
  line: number;
  role: 'user' | 'assistant';
  content: unknown[];
  messageId?: string;
  compactSummary?: true;
}

/** What a replay consumes: core's transcript entries, plus history re-added by a source (see `HistoryEntry`). */
export type ReplayEntry = TranscriptEntry | HistoryEntry;

/** Where the replayed session came from. */
export type SessionHost = 'claude-code' | 'opencode' | 'kilo' | 'pi' | 'cline' | 'gemini' | 'codex';

export interface ReplayResult {
  /** Where the session came from (a Claude Code transcript, an `opencode export` or a pi session file); claude-code when not said. */
  host?: SessionHost;
  transcript: string;
  sessionId: string;
  /** Number of the last line read. */
  lines: number;
  malformed: Array<{ line: number; reason: string }>;
  model?: string;
  usage: UsagePoint[];
  toolCalls: Array<{ line: number; toolName: string; toolUseId?: string }>;
  prompts: Array<{ line: number; command?: string }>;
  notices: ReplayNotice[];
  compactions: ReplayCompaction[];
  hookErrors: ReplayHookError[];
  /** Whether some hook listens on `llm:before` (it runs only before requests: none in a session without one). */
  requestHooks: boolean;
  /** Times `llm:before` ran (0 when no hook listens there, or the session made no request). */
  pruneRuns: number;
  pruneSampling: 'turn' | 'every-request';
  /** Sourced edits (see `ReplayEdit`), when `llm:before` ran before every request. */
  edits: ReplayEdit[];
  /** Tool outputs a `tool:after` hook replaced as they arrived (hook-prune's arrival trim): what Claude Code applies. */
  outputTransforms: Array<{ line: number; toolName: string; charsBefore: number; charsAfter: number }>;
}

export interface ReplayOptions {
  engine: Engine;
  /** Session id for the events; default: the file name when it is a safe name, else `replay`. */
  sessionId?: string;
  /** Called for every non-blank line read (for a progress bar). */
  onLine?: (line: number) => void;
  /** Given each line's `timestamp`, so the engine's clock follows the recorded session. */
  clock?: { setTimestamp(text: string): void };
  /**
   * `every-request` (default): run `llm:before` before every request and on each compaction.
   * `turn`: only on the first request after each user message, carrying its figure to the other
   * requests of the turn — about a quarter of the cost, but exact only for a transformer whose
   * choice changes when a user prompt arrives (hook-prune's OpenCode rule, `protectTurns: 2`),
   * not for its default agentic policy, which prunes inside a turn.
   */
  pruneSampling?: 'turn' | 'every-request';
  /** Read the transcript with blocking calls (core's `synchronous` read): for a caller with nothing to draw meanwhile. */
  synchronousReads?: boolean;
  /**
   * The session's context window, given to every point as a live host that knows it gives it.
   * Without it plugins infer it as they would (Claude Code's transcripts name models without
   * `[1m]`: 1M only once a request passed 200,000 tokens).
   */
  contextWindow?: number;
}

// A compaction waits this many entries at most for the next measured size.
