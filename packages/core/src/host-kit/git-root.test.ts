import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { gitRoot } from './git-root.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it("finds the repository's root from a folder inside it, and nothing outside one", () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'hookwise-git-root-'));
  const inner = path.join(dir, 'repo', 'app', 'src');
  mkdirSync(inner, { recursive: true });
  expect(gitRoot(inner) === undefined || !gitRoot(inner)!.startsWith(dir)).toBe(true);
  mkdirSync(path.join(dir, 'repo', '.git'));
  expect(gitRoot(inner)).toBe(path.join(dir, 'repo'));
  expect(gitRoot(path.join(dir, 'repo'))).toBe(path.join(dir, 'repo'));
});
