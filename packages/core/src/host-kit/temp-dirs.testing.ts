import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/** For tests: a temp folder, removed after the test file's tests. */
export function tempDir(prefix: string): string {
  const directory = mkdtempSync(path.join(tmpdir(), prefix));
  made.push(directory);
  return directory;
}

const made: string[] = [];
afterAll(() => made.splice(0).forEach((directory) => rmSync(directory, { recursive: true, force: true })));
