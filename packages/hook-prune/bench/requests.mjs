// The requests of a recorded Claude Code session as `hookwise report` replays them: before each
// API response (one assistant message), the history since the latest compaction as it stood,
// with the context the previous response measured; and at each compaction, the history it
// summarised. Built from core's transcript reader; every request's array holds the same
// message objects as the one before, new ones appended (a compaction starts a new history).
import { readTranscript } from '@hookwise/core/claude-code';

/** @param {string} file */
export async function sessionRequests(file) {
  const { messages, compactions, usage } = await readTranscript(file);
  const usageById = new Map(usage.map((entry) => [entry.messageId, entry]));
  const compactionAt = new Map(compactions.map((compaction) => [compaction.messageIndex, compaction]));
  const requests = [];
  let start = 0;
  let contextTokens;
  let model;
  for (let index = 0; index < messages.length; index++) {
    const compaction = compactionAt.get(index);
    if (compaction !== undefined) {
      if (index > start)
        requests.push({
          start,
          end: index,
          ...(compaction.preTokens !== undefined ? { contextTokens: compaction.preTokens } : {}),
          ...(model ? { model } : {}),
        });
      start = index;
      contextTokens = compaction.preTokens;
    }
    const message = messages[index];
    if (message.role !== 'assistant') continue;
    if (index > start)
      requests.push({ start, end: index, ...(contextTokens !== undefined ? { contextTokens } : {}), ...(model ? { model } : {}) });
    const measured = usageById.get(message.providerMetadata?.claudeCode?.messageId);
    if (measured !== undefined) {
      contextTokens = measured.contextTokens;
      model ??= measured.model;
    }
  }
  return { messages, requests };
}
