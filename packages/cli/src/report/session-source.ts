import { closeSync, openSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { clineSessionEntries, isClineSession } from './cline-session.js';
import { geminiSessionEntries, isGeminiSessionHeader } from './gemini-session.js';
import { isKiloExport, isOpenCodeExport, openCodeEntries } from './opencode-export.js';
import { isPiSessionHeader, piSessionEntries } from './pi-session.js';
import { codexRolloutEntries, isCodexRolloutHeader } from './codex-rollout.js';
import { replayEntries, replayTranscript } from './replay.js';
import type { ReplayOptions, ReplayResult, SessionHost } from './replay-result.js';

/**
 * Which host a session file comes from, by its content (never its name, nor which adapter is
 * installed): a Claude Code transcript is JSONL of the entries Claude Code writes;
 * `opencode export` prints one JSON object `{ info, messages }`, pretty-printed (its first line
 * is `{` alone) or on one line; a pi session file is JSONL whose first line is its header
 * `{ "type": "session", "id": … }`.
 */

/** A file the report does not read: not a session of any host it knows, or an export that is not valid JSON. */
export class SessionFormatError extends Error {
  override readonly name = 'SessionFormatError';
}

/** What the report reads, for the one line that refuses anything else. */
export const EXPECTED_SESSION =
  'expected a Claude Code transcript (JSONL of { "type": "user" | "assistant" | …, "message": … } lines), an OpenCode export (`opencode export <sessionID>` JSON, or a `kilo export`), a pi session file (JSONL whose first line is { "type": "session", "id": … }), a Gemini CLI session file (JSONL whose first line is { "sessionId", "projectHash", … }), a Cline session (~/.cline/data/sessions/<id>/<id>.messages.json) or a Codex rollout (JSONL whose first line is { "type": "session_meta", … })';

function refuse(file: string, reason: string): SessionFormatError {
  return new SessionFormatError(`${file} ${reason}: ${EXPECTED_SESSION}`);
}

const HEAD_BYTES = 64 * 1024;
/** How far to look for a Claude Code line when the first 64 KiB hold none whole (a pasted prompt, a cut first line). */
const SCAN_BYTES = 8 * 1024 * 1024;

/** The first `bytes` of `file` as text, and whether that is the whole file. */
function head(file: string, bytes: number): { text: string; whole: boolean } {
  const descriptor = openSync(file, 'r');
  try {
    const buffer = Buffer.allocUnsafe(bytes);
    const read = readSync(descriptor, buffer, 0, bytes, 0);
    return {
      text: buffer
        .subarray(0, read)
        .toString('utf8')
        .replace(/^\uFEFF/, ''),
      whole: read < bytes,
    };
  } finally {
    closeSync(descriptor);
  }
}

function parse(text: string): { ok: true; value: unknown } | { ok: false; reason: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}

// The entry types Claude Code writes into a transcript (2.1.x) that no other host's file has at
// the top level: its messages, compaction boundaries and summaries, and its bookkeeping lines.
const CLAUDE_CODE_ENTRY_TYPES = new Set(['user', 'assistant', 'system', 'summary', 'file-history-snapshot', 'progress', 'queue-operation']);

/** Whether one line of a JSONL file is a Claude Code transcript entry: a message (`user` / `assistant` with `message`) or one of its other top-level entry types. */
export function isClaudeCodeEntry(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const type = (value as Record<string, unknown>)['type'];
  if (typeof type !== 'string' || !CLAUDE_CODE_ENTRY_TYPES.has(type)) return false;
  return type === 'user' || type === 'assistant' ? 'message' in value : true;
}

/** Whether some whole line of `text` (the last one only when `complete`) is a Claude Code transcript entry. */
function hasClaudeCodeLine(text: string, complete: boolean): boolean {
  const lines = text.split('\n');
  if (!complete) lines.pop();
  for (const line of lines) {
    const trimmed = line.trim();
    if (!trimmed.startsWith('{')) continue;
    const parsed = parse(trimmed);
    if (parsed.ok && isClaudeCodeEntry(parsed.value)) return true;
  }
  return false;
}

export type SessionFile =
  | { host: 'claude-code' }
  | { host: 'opencode' | 'kilo'; exported: Parameters<typeof openCodeEntries>[0] }
  | { host: 'pi' }
  | { host: 'cline'; session: Parameters<typeof clineSessionEntries>[0] }
  | { host: 'gemini' }
  | { host: 'codex' };

/** An OpenCode-shaped export: OpenCode's, or Kilo's (`kilo export`, the same JSON), told apart by content. */
const exportOf = (exported: Parameters<typeof openCodeEntries>[0]): SessionFile => ({
  host: isKiloExport(exported) ? 'kilo' : 'opencode',
  exported,
});

/**
 * Which host `file` comes from, by its content: an OpenCode export (one JSON document, read
 * whole), a pi session file (its header line), or a Claude Code transcript (a line Claude Code
 * writes, found in the first 64 KiB, or the first 8 MiB when those hold no whole line of it).
 * Throws a {@link SessionFormatError}, one line naming what the report reads, for anything else
 * (an empty file, other JSONL, a JSON document of another shape, an export cut short); malformed
 * lines of a transcript are left to the replay, which counts them. Throws the file system's
 * error when the file cannot be read.
 */
export async function identifySession(file: string): Promise<SessionFile> {
  const { text, whole } = head(file, HEAD_BYTES);
  const start = text.trimStart();
  if (start === '') throw refuse(file, 'is empty');
  if (!start.startsWith('{') && !start.startsWith('[')) throw refuse(file, 'is not JSON');
  const newline = start.indexOf('\n');
  const firstLine = (newline === -1 ? start : start.slice(0, newline)).trim();
  const first = parse(firstLine);
  if (first.ok && isOpenCodeExport(first.value)) return exportOf(first.value);
  if (first.ok && isPiSessionHeader(first.value)) return { host: 'pi' };
  if (first.ok && isClineSession(first.value)) return { host: 'cline', session: first.value };
  // Gemini CLI's chat session file (JSONL): its first line is { sessionId, projectHash, startTime, … }.
  if (first.ok && isGeminiSessionHeader(first.value)) return { host: 'gemini' };
  if (first.ok && isCodexRolloutHeader(first.value)) return { host: 'codex' };
  if (
    first.ok &&
    typeof first.value === 'object' &&
    first.value !== null &&
    (first.value as Record<string, unknown>)['type'] === 'session'
  ) {
    throw new SessionFormatError(
      `${file} starts like a pi session file but its first line is not a session header ({ "type": "session", "id": "…", … })`,
    );
  }
  if (hasClaudeCodeLine(text, whole)) return { host: 'claude-code' };
  if (!whole) {
    const more = head(file, SCAN_BYTES);
    if (hasClaudeCodeLine(more.text, more.whole)) return { host: 'claude-code' };
  }
  // Not one object per line: a whole JSON document (a pretty-printed or long export), or something else.
  const document = parse((await readFile(file, 'utf8')).replace(/^\uFEFF/, ''));
  if (document.ok) {
    if (isOpenCodeExport(document.value)) return exportOf(document.value);
    if (isClineSession(document.value)) return { host: 'cline', session: document.value };
    throw refuse(file, 'is JSON but not a session file');
  }
  if (firstLine === '{' || firstLine === '[')
    throw new SessionFormatError(
      `${file} is not valid JSON (an OpenCode export is one JSON document, from \`opencode export <sessionID>\`): ${document.reason}`,
    );
  throw refuse(file, 'is JSONL but not a session file');
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Replays a session file of any host: a Claude Code transcript (streamed), an OpenCode export or a pi session file (read whole: its active branch is found from the end). */
export async function replaySession(
  file: string,
  options: ReplayOptions,
  identified?: SessionFile,
): Promise<ReplayResult & { host: SessionHost }> {
  const source = identified ?? (await identifySession(file));
  if (source.host === 'claude-code') return { ...(await replayTranscript(file, options)), host: 'claude-code' };
  const session = await sessionEntriesOf(source, file);
  const replay = await replayEntries(file, [session.entries], {
    ...options,
    ...(options.sessionId === undefined && SAFE_ID.test(session.sessionId) ? { sessionId: session.sessionId } : {}),
  });
  return { ...replay, host: source.host };
}

/** The entries of a session file that is not a Claude Code transcript, by its host's reader. */
async function sessionEntriesOf(source: Exclude<SessionFile, { host: 'claude-code' }>, file: string) {
  switch (source.host) {
    case 'opencode':
    case 'kilo':
      return openCodeEntries(source.exported);
    case 'cline':
      return clineSessionEntries(source.session);
    case 'gemini':
      return geminiSessionEntries(await readFile(file, 'utf8'));
    case 'pi':
      return piSessionEntries(await readFile(file, 'utf8'));
    case 'codex':
      return codexRolloutEntries(await readFile(file, 'utf8'));
  }
}
