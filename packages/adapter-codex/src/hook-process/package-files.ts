import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;
/** This package's folder: the nearest one above this module with a package.json (modules sit at several depths of dist/). */
export function packageRoot(): string {
  if (root) return root;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return (root = dir);
}

/** `bin/hookwise.cjs`: the command `.codex/hooks.json` runs. */
export const binPath = (): string => path.join(packageRoot(), 'bin', 'hookwise.cjs');
/** The run-time the per-project bundle includes; the manifest records this path and the bin checks it. */
export const runtimeFile = (): string => path.join(packageRoot(), 'dist', 'hook-process', 'bundle-runtime.js');
