/**
 * `@hookwise/core/claude-code`: reading Claude Code transcripts — typed entries, context tokens,
 * compact boundaries, and the backwards tail a hook process reads (context tokens, the last
 * assistant text).
 */
export { iterateTranscript, readTranscript, readTranscriptEntries, transcriptEntriesOf } from './messages/transcript.js';
export type {
  TranscriptLine,
  Transcript,
  TranscriptCompaction,
  TranscriptCompactBoundary,
  TranscriptUsage,
  TranscriptEntry,
  TranscriptMessageEntry,
  TranscriptReadOptions,
} from './messages/transcript.js';
export { readTranscriptTail, readContextTokens, readLastAssistantText, contextReadingOf } from './messages/transcript-tail.js';
export { contextUsageFields } from './messages/context-usage.js';
export type { ContextUsageFields } from './messages/context-usage.js';
export type { TranscriptTail, TailReadOptions, ContextReading } from './messages/transcript-tail.js';
