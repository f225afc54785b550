import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The root of the git repository `dir` is in (the nearest folder upwards holding `.git`), or
 * undefined. Hosts that take it as the workspace (Cline, Codex's trust) look for their files there.
 */
export function gitRoot(dir: string): string | undefined {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (existsSync(path.join(current, '.git'))) return current;
    if (path.dirname(current) === current) return undefined;
  }
}
