import { closeSync, openSync, readSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { isOpenCodeExport, openCodeEntries } from './opencode-export.js';
import { isPiSessionHeader, piSessionEntries } from './pi-session.js';
import { replayEntries, replayTranscript } from './replay.js';
import type { ReplayOptions, ReplayResult, SessionHost } from './replay-result.js';

/**
 * Which host a session file comes from, by its content (never its name): a Claude Code
 * transcript is JSONL, one object per line; `opencode export` prints one JSON object
 * `{ info, messages }`, pretty-printed (its first line is `{` alone) or on one line; a pi
 * session file is JSONL whose first line is its header `{ "type": "session", "id": … }`.
 */

/** A session file that is neither format, or an export that is not valid JSON. */
export class SessionFormatError extends Error {
  override readonly name = 'SessionFormatError';
}

const HEAD_BYTES = 64 * 1024;

function head(file: string): string {
  const descriptor = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(HEAD_BYTES);
    const read = readSync(descriptor, buffer, 0, HEAD_BYTES, 0);
    return buffer.subarray(0, read).toString('utf8').replace(/^\uFEFF/, '');
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

const EXPECTED = 'expected a Claude Code transcript (JSONL of user/assistant lines, from ~/.claude/projects), an OpenCode export (`opencode export <sessionID>`) or a pi session file (JSONL opening with a session header)';

/**
 * Whether a JSONL line is one Claude Code writes: an object with a `type` and one of the fields
 * every kind of its lines carries (`uuid`, `sessionId`, `message`, `messageId`, `leafUuid`).
 */
function isTranscriptLine(value: unknown): boolean {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const line = value as Record<string, unknown>;
  return typeof line['type'] === 'string' && ['uuid', 'sessionId', 'message', 'messageId', 'leafUuid'].some((key) => key in line);
}

/**
 * A file read as a transcript must show it: among the whole lines at its start, one that Claude
 * Code writes. Only a start with no whole line (one line longer than the head) is left to the
 * replay, which counts malformed lines.
 */
function assertTranscript(file: string, start: string): void {
  if (start.trim() === '') throw new SessionFormatError(`${file} is empty; ${EXPECTED}`);
  const whole = start.split('\n').slice(0, start.length >= HEAD_BYTES ? -1 : undefined);
  if (whole.length === 0) return;
  const isOurs = (text: string) => {
    const parsed = parse(text);
    return parsed.ok && isTranscriptLine(parsed.value);
  };
  if (whole.some(isOurs)) return;
  throw new SessionFormatError(`${file} is not a session file hookwise reads: ${EXPECTED}`);
}

export type SessionFile = { host: 'claude-code' } | { host: 'opencode'; exported: Parameters<typeof openCodeEntries>[0] } | { host: 'pi' };

/**
 * Reads enough of `file` to tell its host; an OpenCode export is read whole (it is one JSON
 * document). Throws a {@link SessionFormatError} for a JSON document of neither shape and for
 * an export that is not valid JSON; lines of a transcript are left to the replay, which counts
 * the malformed ones. Throws the file system's error when the file cannot be read.
 */
export async function identifySession(file: string): Promise<SessionFile> {
  const raw = head(file);
  const start = raw.trimStart();
  if (!start.startsWith('{') && !start.startsWith('[')) {
    assertTranscript(file, raw);
    return { host: 'claude-code' };
  }
  const newline = start.indexOf('\n');
  const firstLine = (newline === -1 ? start : start.slice(0, newline)).trim();
  const first = parse(firstLine);
  if (first.ok && isOpenCodeExport(first.value)) return { host: 'opencode', exported: first.value };
  if (first.ok && isPiSessionHeader(first.value)) return { host: 'pi' };
  if (first.ok && typeof first.value === 'object' && first.value !== null && (first.value as Record<string, unknown>)['type'] === 'session') {
    throw new SessionFormatError(`${file} starts like a pi session file but its first line is not a session header ({ "type": "session", "id": "…", … })`);
  }
  if (first.ok && typeof first.value === 'object' && first.value !== null && !Array.isArray(first.value)) {
    assertTranscript(file, raw);
    return { host: 'claude-code' };
  }
  // Not one object per line: a whole JSON document (a pretty-printed or long export), or a transcript whose first line is cut.
  const whole = parse((await readFile(file, 'utf8')).replace(/^\uFEFF/, ''));
  if (whole.ok) {
    if (isOpenCodeExport(whole.value)) return { host: 'opencode', exported: whole.value };
    throw new SessionFormatError(`${file} is a JSON document but neither an OpenCode export ({ "info": { "id": … }, "messages": [ … ] }, from \`opencode export <sessionID>\`) nor a Claude Code transcript (JSONL)`);
  }
  if (firstLine === '{' || firstLine === '[') throw new SessionFormatError(`${file} is not valid JSON (an OpenCode export is one JSON document, from \`opencode export <sessionID>\`): ${whole.reason}`);
  assertTranscript(file, raw);
  return { host: 'claude-code' };
}

const SAFE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

/** Replays a session file of any host: a Claude Code transcript (streamed), an OpenCode export or a pi session file (read whole: its active branch is found from the end). */
export async function replaySession(file: string, options: ReplayOptions): Promise<ReplayResult & { host: SessionHost }> {
  const source = await identifySession(file);
  if (source.host === 'claude-code') return { ...(await replayTranscript(file, options)), host: 'claude-code' };
  const session = source.host === 'opencode' ? openCodeEntries(source.exported) : piSessionEntries(await readFile(file, 'utf8'));
  const replay = await replayEntries(file, [session.entries], { ...options, ...(options.sessionId === undefined && SAFE_ID.test(session.sessionId) ? { sessionId: session.sessionId } : {}) });
  return { ...replay, host: source.host };
}
