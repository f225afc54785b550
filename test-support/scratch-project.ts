import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const packagesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'packages');

export interface ScratchProject {
  dir: string;
  /** A HOME of its own, so a host's user settings and transcripts stay in the test. */
  home: string;
  remove(): void;
}

/**
 * A project in a temporary folder with the given workspace packages (by folder) linked into
 * node_modules/@hookwise, the way an install puts them: the links resolve to the workspace, so
 * the packages share one core. Nothing else is installed.
 */
export function createLinkedProject(folders: readonly string[], prefix: string): ScratchProject {
  // realpath: macOS's /var → /private/var would make the paths hooks see differ from ours.
  const root = realpathSync(mkdtempSync(path.join(os.tmpdir(), prefix)));
  const dir = path.join(root, 'project');
  const home = path.join(root, 'home');
  mkdirSync(path.join(dir, 'node_modules', '@hookwise'), { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify({ name: 'scratch-project', private: true, type: 'module' }, null, 2)}\n`);
  for (const folder of folders) symlinkSync(path.join(packagesDir, folder), path.join(dir, 'node_modules', '@hookwise', folder), 'dir');
  return { dir, home, remove: () => rmSync(root, { recursive: true, force: true }) };
}
