import { suggest } from './plugin.js';

export { suggest };
export default suggest;
export type { SuggestPluginState } from './plugin.js';
export { suggestOptionsSchema, defaultSuggestOptions, capacityBands, compactionLogPath, DEFAULT_COMPACTION_LOG } from './options.js';
export type { SuggestOptions, SuggestOptionsInput } from './options.js';
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
