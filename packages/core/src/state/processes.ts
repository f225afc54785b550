import { closeSync, constants, openSync, readSync } from 'node:fs';

/** Whether a process with this pid exists (EPERM means it exists but belongs to someone else). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The start time of a process as the kernel reports it (Linux: field 22 of /proc/<pid>/stat,
 * clock ticks since boot). With the pid it identifies one process even after the pid is reused.
 * Undefined where /proc is not available (macOS, Windows) or the process is gone.
 */
export function processStartTime(pid: number): string | undefined {
  try {
    // One read into a small buffer: the file reports size 0, and readFileSync's growing reads of
    // it cost a hook call (which reads its own) more. The line is well under 1 KiB.
    const fd = openSync(`/proc/${pid}/stat`, constants.O_RDONLY);
    const buffer = Buffer.allocUnsafe(1024);
    let length: number;
    try {
      length = readSync(fd, buffer, 0, buffer.length, 0);
    } finally {
      closeSync(fd);
    }
    // The command name (field 2) may contain spaces and parentheses: count from the last ')'.
    // Field 22 is the 20th after it; read off the bytes (no decoding of the whole line).
    let at = length - 1;
    while (at >= 0 && buffer[at] !== 0x29) at--;
    if (at < 0) return undefined;
    at += 2;
    for (let spaces = 0; spaces < 19; at++) {
      if (at >= length) return undefined;
      if (buffer[at] === 0x20) spaces++;
    }
    let field = '';
    for (; at < length && buffer[at] !== 0x20 && buffer[at] !== 0x0a; at++) field += String.fromCharCode(buffer[at]!);
    return field;
  } catch {
    return undefined;
  }
}
