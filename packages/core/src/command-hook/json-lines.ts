import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';

// A host's JSONL transcript read by byte range: for an adapter that judges what happened between
// two hook calls from the file's size at the first and the records written after it.

/** The file's size in bytes; undefined when there is none or it cannot be read. */
export function fileSize(file: string | undefined): number | undefined {
  if (!file) return undefined;
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}

/**
 * The JSON objects of the file's lines from byte `start` to its end; a line cut by `start`, or one
 * being written, does not parse and is skipped. None when the file cannot be read.
 */
export function jsonLinesFrom(file: string, start: number): Record<string, unknown>[] {
  let text: string;
  try {
    text = readFrom(file, start);
  } catch {
    return [];
  }
  return text.split('\n').flatMap((line) => {
    if (!line.startsWith('{')) return [];
    try {
      return [JSON.parse(line) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

function readFrom(file: string, start: number): string {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.max(0, fstatSync(fd).size - start));
    let read = 0;
    while (read < buffer.length) {
      const count = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (count === 0) break; // the file shrank under us: what was read is still valid
      read += count;
    }
    return buffer.toString('utf8', 0, read);
  } finally {
    closeSync(fd);
  }
}
