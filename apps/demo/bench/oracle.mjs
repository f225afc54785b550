// The oracle keep rule for `policies.mjs --oracle`: a transform on `llm:before` that knows every
// edit the session will make (read from the transcript ahead of the replay) and keeps, of the
// tool outputs and write-like inputs hook-prune may clear, only the newest part that shows the
// old text of an edit still to come. The rest goes as soon as hook-prune's fixed rules allow:
// never one of the newest results or the latest step, an error result, or a protected tool.
// No pruner can know the future; what the oracle costs bounds what any keep rule that loses no
// edit can cost under the same fixed rules, and its free-break floor bounds every schedule.
import { readTranscript } from '@hookwise/core/claude-code';
import { CACHE_READ_PRICE, CACHE_WRITE_PRICES, EditChecker, editedTexts, partTokens } from '@hookwise/core/counting';
import { DEFAULT_DIGEST_INPUT_TOOLS, DEFAULT_KEEP_RECENT, DEFAULT_PLACEHOLDER, DEFAULT_PROTECTED_TOOLS } from '@hookwise/hook-prune';

// Long strings of a write-like input go; short ones (paths) stay, as in hook-prune's digest.
const INPUT_KEEP_CHARS = 200;

/** The session's edits in order: each old text an edit quotes, with its tool call's place among the main chain's calls. */
export async function futureEdits(transcript) {
  const order = new Map();
  const edits = [];
  for (const message of (await readTranscript(transcript)).messages) {
    for (const part of message.parts) {
      if (part.type !== 'tool-call' || order.has(part.toolCallId)) continue;
      order.set(part.toolCallId, order.size);
      for (const text of editedTexts(part.input)) edits.push({ at: order.get(part.toolCallId), text });
    }
  }
  return { order, edits };
}

/** The text of a project config (`hookwise.config.mjs`) whose own `llm:before` hook is the oracle for `transcript`. */
export function oracleConfigSource(transcript, options = {}) {
  return `import { oracleTransform } from ${JSON.stringify(import.meta.url)};\nexport default { on: { 'llm:before': await oracleTransform(${JSON.stringify(transcript)}, ${JSON.stringify(options)}) } };\n`;
}

const clearedInput = (input) =>
  Object.fromEntries(
    Object.entries(input ?? {}).map(([key, value]) => [
      key,
      typeof value === 'string' && value.length > INPUT_KEEP_CHARS ? '[Old input cleared]' : value,
    ]),
  );

/**
 * The transform. `schedule`: `'at-once'` clears everything the rule allows on every request;
 * `'best-break'` clears, of what is allowed, everything after the one point that maximises
 * `horizon` future reads of what it frees minus rewriting what follows it.
 */
export async function oracleTransform(transcript, { schedule = 'at-once', horizon = 20 } = {}) {
  const { order, edits } = await futureEdits(transcript);
  const protectedTools = new Set(DEFAULT_PROTECTED_TOOLS);
  const digestTools = new Set(DEFAULT_DIGEST_INPUT_TOOLS);
  // Per edit, the newest part seen so far that shows its text, found in messages up to `scanned`.
  const sources = edits.map(() => undefined);
  const pruned = new Set();
  let scanned = 0;
  let first;
  let checker;

  return (payload, context) => {
    const messages = payload.messages;
    checker ??= new EditChecker(context.tokenCounter);
    // A shorter history or another first message: a compaction; search it all again.
    if (messages.length < scanned || messages[0] !== first) {
      sources.fill(undefined);
      scanned = 0;
    }
    first = messages[0];

    let now = -1;
    const results = [];
    const toolOf = new Map();
    for (const message of messages) {
      for (const part of message.parts) {
        if (part.type === 'tool-call') {
          toolOf.set(part.toolCallId, part.toolName);
          now = Math.max(now, order.get(part.toolCallId) ?? -1);
        } else if (part.type === 'tool-result') results.push(part);
      }
    }

    const keep = new Set();
    edits.forEach((edit, index) => {
      if (edit.at <= now) return;
      const newer = checker.sourceOf(edit.text, messages, scanned - 1);
      if (newer) sources[index] = newer;
      const part = sources[index]?.part;
      if (part?.type === 'tool-result') keep.add(`r:${part.toolCallId}`);
      else if (part?.type === 'tool-call') keep.add(`c:${part.toolCallId}`);
    });
    scanned = messages.length;

    const latestStep = messages.at(-1)?.parts.filter((part) => part.type === 'tool-result').length ?? 0;
    const recent = new Set(results.slice(-Math.max(DEFAULT_KEEP_RECENT, latestStep)).map((part) => part.toolCallId));
    const resultAllowed = (part) =>
      !recent.has(part.toolCallId) &&
      part.isError !== true &&
      !protectedTools.has(toolOf.get(part.toolCallId) ?? part.toolName) &&
      !keep.has(`r:${part.toolCallId}`);
    const allowedResults = new Set(results.filter(resultAllowed).map((part) => part.toolCallId));
    const keyOf = (part) => {
      if (part.type === 'tool-result') return allowedResults.has(part.toolCallId) ? `r:${part.toolCallId}` : undefined;
      if (
        part.type === 'tool-call' &&
        digestTools.has(part.toolName) &&
        allowedResults.has(part.toolCallId) &&
        !keep.has(`c:${part.toolCallId}`)
      )
        return `c:${part.toolCallId}`;
      return undefined;
    };

    // Candidates in history order, with where they start (tokens before them) and their size.
    const candidates = [];
    let offset = 0;
    for (const message of messages) {
      for (const part of message.parts) {
        const key = keyOf(part);
        const tokens = partTokens(part, context.tokenCounter);
        if (key !== undefined && !pruned.has(key)) candidates.push({ key, at: offset, tokens });
        offset += pruned.has(key) ? 0 : tokens;
      }
    }
    let from = schedule === 'at-once' ? 0 : candidates.length;
    if (schedule === 'best-break') {
      let best = 0;
      let freed = 0;
      for (let index = candidates.length - 1; index >= 0; index--) {
        freed += candidates[index].tokens;
        const rewritten = offset - candidates[index].at - freed;
        const net = CACHE_READ_PRICE * horizon * freed - (CACHE_WRITE_PRICES['5m'] - CACHE_READ_PRICE) * rewritten;
        if (net > best) [best, from] = [net, index];
      }
    }
    for (const candidate of candidates.slice(from)) pruned.add(candidate.key);
    if (pruned.size === 0) return undefined;

    let changed = false;
    const value = messages.map((message) => {
      let parts = message.parts;
      message.parts.forEach((part, index) => {
        const key = part.type === 'tool-result' ? `r:${part.toolCallId}` : part.type === 'tool-call' ? `c:${part.toolCallId}` : undefined;
        if (key === undefined || !pruned.has(key)) return;
        if (parts === message.parts) parts = [...parts];
        parts[index] =
          part.type === 'tool-result' ? { ...part, output: DEFAULT_PLACEHOLDER } : { ...part, input: clearedInput(part.input) };
        changed = true;
      });
      return parts === message.parts ? message : { ...message, parts };
    });
    return changed ? { value } : undefined;
  };
}
