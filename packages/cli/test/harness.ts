import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinkedProject, type ScratchProject } from '../../../test-support/scratch-project.js';

/** Helpers for the process-level tests: they run the built bin in a project, as users do. */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const packagesDir = path.resolve(packageRoot, '..');
export const bin = path.join(packageRoot, 'bin', 'hookwise.js');

/** Fails with a clear message when a package a test links has not been built. */
export function assertBuilt(folders: readonly string[]): void {
  const missing = folders.filter((folder) => !existsSync(path.join(packagesDir, folder, 'dist', 'index.js')));
  if (missing.length > 0)
    throw new Error(`these packages have no dist/ yet: ${missing.join(', ')}. Build first: npx -y pnpm@10.34.9 turbo run build`);
}

export type { ScratchProject };

/** A project with the given workspace packages (by folder) linked into node_modules/@hookwise; nothing else installed. */
export const createScratchProject = (folders: readonly string[], prefix = 'hookwise-cli-'): ScratchProject =>
  createLinkedProject(folders, prefix);

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a bin (default: this package's `hookwise`) in the project, with the project's HOME and nothing that changes how Node behaves. */
export function run(
  project: ScratchProject,
  args: string[],
  options: { input?: string; bin?: string; env?: Record<string, string> } = {},
): ProcessResult {
  const { NODE_EXTRA_CA_CERTS: _certs, NODE_OPTIONS: _options, CLAUDE_PROJECT_DIR: _project, ...env } = process.env;
  const result = spawnSync(process.execPath, [options.bin ?? bin, ...args], {
    cwd: project.dir,
    input: options.input ?? '',
    env: { ...env, HOME: project.home, ...options.env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

export const read = (project: ScratchProject, file: string): string => readFileSync(path.join(project.dir, file), 'utf8');
