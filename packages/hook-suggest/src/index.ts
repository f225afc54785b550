import { suggest } from './plugin.js';

export { suggest };
export default suggest;
export type { SuggestPluginState } from './plugin.js';
export { suggestOptionsSchema, defaultSuggestOptions, capacityBands, compactionLogPath, CLAUDE_CODE_COMPACTION_LOG, DEFAULT_COMPACTION_LOG } from './options.js';
export type { SuggestOptions, SuggestOptionsInput } from './options.js';
export { contextWindowFor, resolveContextWindow, DEFAULT_CONTEXT_WINDOW, ONE_MILLION_CONTEXT_WINDOW } from './context-window.js';
export type { ResolvedContextWindow } from './context-window.js';
export { readTranscriptTail, readContextUsageFromTranscript, readCompactionFromTranscript, DEFAULT_TAIL_MAX_BYTES } from './transcript-tail.js';
export type { TranscriptContextUsage, TranscriptCompactBoundary, TranscriptTail, TailReadOptions, ContextUsageReading } from './transcript-tail.js';
export {
  initialSuggestionState,
  countToolCall,
  measurement,
  evaluateSuggestion,
  dismissSuggestions,
  rearmSuggestions,
  formatSuggestion,
  formatTokens,
} from './suggestion-policy.js';
export type { SuggestionState, ContextMeasurement, Suggestion, SuggestionResult, PolicyOptions } from './suggestion-policy.js';
export { formatCompactionNotice, reductionPercent } from './compaction.js';
export type { CompactionRecord, CompactionSizeAfterRecord, CompactionNoticeInput, SizeSource } from './compaction.js';
