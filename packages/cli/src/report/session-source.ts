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

export type SessionFile = { host: 'claude-code' } | { host: 'opencode'; exported: Parameters<typeof openCodeEntries>[0] } | { host: 'pi' };

/**
 * Reads enough of `file` to tell its host; an OpenCode export is read whole (it is one JSON
 * document). Throws a {@link SessionFormatError} for a JSON document of neither shape and for
 * an export that is not valid JSON; lines of a transcript are left to the replay, which counts
 * the malformed ones. Throws the file system's error when the file cannot be read.
 */
export async function identifySession(file: string): Promise<SessionFile> {
  const start = head(file).trimStart();
  if (!start.startsWith('{') && !start.startsWith('[')) return { host: 'claude-code' };
  const newline = start.indexOf('\n');
  const firstLine = (newline === -1 ? start : start.slice(0, newline)).trim();
  const first = parse(firstLine);
  if (first.ok && isOpenCodeExport(first.value)) return { host: 'opencode', exported: first.value };
  if (first.ok && isPiSessionHeader(first.value)) return { host: 'pi' };
  if (first.ok && typeof first.value === 'object' && first.value !== null && (first.value as Record<string, unknown>)['type'] === 'session') {
    throw new SessionFormatError(`${file} starts like a pi session file but its first line is not a session header ({ "type": "session", "id": "…", … })`);
  }
  if (first.ok && typeof first.value === 'object' && first.value !== null && !Array.isArray(first.value)) return { host: 'claude-code' };
  // Not one object per line: a whole JSON document (a pretty-printed or long export), or a transcript whose first line is cut.
  const whole = parse((await readFile(file, 'utf8')).replace(/^\uFEFF/, ''));
  if (whole.ok) {
    if (isOpenCodeExport(whole.value)) return { host: 'opencode', exported: whole.value };
    throw new SessionFormatError(`${file} is a JSON document but neither an OpenCode export ({ "info": { "id": … }, "messages": [ … ] }, from \`opencode export <sessionID>\`) nor a Claude Code transcript (JSONL)`);
  }
  if (firstLine === '{' || firstLine === '[') throw new SessionFormatError(`${file} is not valid JSON (an OpenCode export is one JSON document, from \`opencode export <sessionID>\`): ${whole.reason}`);
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
