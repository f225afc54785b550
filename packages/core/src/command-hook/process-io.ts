import { writeSync } from 'node:fs';

// C0/C1 controls, DEL, and the invisible formatting characters that can reorder or hide text in
// a terminal (bidi overrides and isolates, zero-width characters, line/paragraph separators).
const UNPRINTABLE =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

/** `text` with every control or invisible formatting character written as `\u{XXXX}`, so a line on stderr shows what it says. */
export function escapeControl(text: string): string {
  return text.replace(UNPRINTABLE, (character) => `\\u{${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}}`);
}

/** A value quoted for a one-line message, cut at `max` characters and with controls escaped. */
export const printable = (value: string, max = 80): string =>
  escapeControl(JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value));

/** An error's message on one line (`a | b` for a multi-line one). */
export function describeError(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .join(' | ');
}

/**
 * The real `process.exit`: a host's bin may replace the public one with a guard before plugin
 * code loads (plugin code must not pick the exit code: 2 means "block" to Claude Code and Codex)
 * and keeps the original in this slot.
 */
export function realExit(code: number): never {
  const saved = (globalThis as Record<symbol, unknown>)[Symbol.for('hookwise.exit')];
  return (typeof saved === 'function' ? saved : process.exit.bind(process))(code) as never;
}

/**
 * Writes the whole text to a file descriptor synchronously. The pipes a host gives a hook may
 * be non-blocking: a full pipe answers EAGAIN, so wait briefly and go on until all is out.
 */
export function writeAllSync(fd: number, text: string): void {
  const buffer = Buffer.from(text, 'utf8');
  // A bin may have redirected fs.writeSync(1) to stderr for plugin code; it keeps the original for us.
  const write = ((globalThis as Record<symbol, unknown>)[Symbol.for('hookwise.writeSync')] as typeof writeSync | undefined) ?? writeSync;
  let offset = 0;
  let attempts = 0;
  while (offset < buffer.length) {
    try {
      offset += write(fd, buffer, offset, buffer.length - offset);
      attempts = 0;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN' || ++attempts > 1_000) return;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
    }
  }
}
