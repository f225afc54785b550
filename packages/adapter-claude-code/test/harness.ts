import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createLinkedProject, type ScratchProject } from '../../../test-support/scratch-project.js';

/** Helpers for the process-level tests: they run the built bin, as users do. */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const packagesDir = path.resolve(packageRoot, '..');
export const bin = path.join(packageRoot, 'bin', 'hookwise.cjs');
export const claudeBin = path.join(packageRoot, 'node_modules', '.bin', 'claude');

/** The workspace packages a scratch project links, by folder. */
export const LINKED_PACKAGES = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'cli', 'adapter-claude-code'] as const;

/** Fails with a clear message when a package the test runs has not been built. */
export function assertBuilt(): void {
  const missing = LINKED_PACKAGES.filter((folder) => !existsSync(path.join(packagesDir, folder, 'dist', 'index.js')));
  if (missing.length > 0)
    throw new Error(
      `these packages have no dist/ yet: ${missing.join(', ')}. Build first: npx -y pnpm@10.34.9 turbo run build (CI runs build before test)`,
    );
  if (!existsSync(path.join(packageRoot, 'dist', 'hook-process', 'bundle-runtime.js')))
    throw new Error('packages/adapter-claude-code has no dist/hook-process/bundle-runtime.js; run `npx tsup` in it (or turbo run build)');
}

export type { ScratchProject };

/** A project with the workspace packages linked into node_modules, the way an install would put them. */
export const createScratchProject = (prefix = 'hookwise-test-'): ScratchProject => createLinkedProject(LINKED_PACKAGES, prefix);

export interface ProcessResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface HookCall {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * One hook call as Claude Code makes it: a new process running `bin run <event>`, the JSON on
 * stdin, killed after `killAfterMs` (a hang shows as signal SIGKILL).
 */
export function callHook(
  bin: string,
  event: string,
  input: string,
  options: { cwd: string; env: Record<string, string | undefined>; killAfterMs?: number; onSpawn?: (pid: number) => void },
): Promise<HookCall> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'run', event], {
      cwd: options.cwd,
      env: { ...cleanEnv(), ...options.env } as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs ?? 30_000);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    child.stdin.end(input);
    options.onSpawn?.(child.pid!);
  });
}

/** Runs the built `hookwise` bin. */
export function hookwise(
  args: string[],
  options: { cwd: string; input?: string | Buffer; env?: Record<string, string | undefined> },
): ProcessResult {
  const env = { ...cleanEnv(), ...options.env };
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd,
    input: options.input ?? '',
    env: env as NodeJS.ProcessEnv,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 120_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The test's environment without variables that change how Node or npm behave. */
export function cleanEnv(): Record<string, string | undefined> {
  const { NODE_EXTRA_CA_CERTS: _certs, NODE_OPTIONS: _options, CLAUDE_PROJECT_DIR: _project, ...rest } = process.env;
  return rest;
}

/** Runs the real Claude Code offline against the stand-in API. */
export function runClaude(project: ScratchProject, apiUrl: string, args: string[]): Promise<ProcessResult> {
  const env = {
    PATH: process.env.PATH,
    HOME: project.home,
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: 'test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    IS_SANDBOX: '1',
  };
  return new Promise((resolve, reject) => {
    const child = spawn(claudeBin, [...args, '--dangerously-skip-permissions'], {
      cwd: project.dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** `claude --version` works (the native binary was installed by the package's postinstall). */
export function claudeVersion(): string {
  const result = spawnSync(claudeBin, ['--version'], { encoding: 'utf8', timeout: 60_000 });
  if (result.status !== 0)
    throw new Error(
      `claude --version failed (${result.status}): ${result.stderr || result.stdout}. Is @anthropic-ai/claude-code in onlyBuiltDependencies?`,
    );
  return result.stdout.trim();
}

export { readJsonLines as readJsonl } from '../../../test-support/host-e2e.js';

/** Every file under `dir` with its content, for "state left intact" checks. */
export function snapshotTree(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  if (!existsSync(dir)) return files;
  const walk = (current: string) => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name);
      if (entry.name === 'node_modules' || entry.isSymbolicLink()) continue;
      if (entry.isDirectory()) walk(full);
      else files[path.relative(dir, full)] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return files;
}

export function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
}
