import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * What the end-to-end suites of the in-process hosts (OpenCode, pi) share: the environment a
 * host process gets, a project's hookwise config and files, the installed hookwise CLI, a host
 * run to its end, and the JSON lines files a test reads back (Claude Code's suites too).
 */

/**
 * Only what a shell would have (`keep` adds names): vitest adds variables of its own (NODE_ENV,
 * TEST, BASE_URL, MODE…) the real host must not see. npm keeps its cache and user config from
 * the real home; a host gets a scratch HOME of its own.
 */
export function shellEnv(keep: readonly string[] = []): Record<string, string> {
  const env: Record<string, string> = {};
  for (const key of ['PATH', 'LANG', 'LC_ALL', ...keep, 'USER', 'LOGNAME', 'SSL_CERT_FILE', 'SSL_CERT_DIR', 'npm_config_registry'])
    if (process.env[key] !== undefined) env[key] = process.env[key]!;
  env['npm_config_cache'] = process.env['npm_config_cache'] ?? path.join(os.homedir(), '.npm');
  env['npm_config_userconfig'] = process.env['npm_config_userconfig'] ?? path.join(os.homedir(), '.npmrc');
  return env;
}

export interface ProjectFiles {
  /** The config's text, or an object written as JSON. */
  hookwiseConfig: string | object;
  /** Default `hookwise.config.json`. */
  configName?: string;
  /** More files by path relative to the project. */
  files?: Record<string, string>;
}

/** Writes a project's hookwise config and its other files into `dir`. */
export function writeProjectFiles(dir: string, options: ProjectFiles): void {
  const configName = options.configName ?? 'hookwise.config.json';
  writeFileSync(
    path.join(dir, configName),
    typeof options.hookwiseConfig === 'string' ? options.hookwiseConfig : `${JSON.stringify(options.hookwiseConfig, null, 2)}\n`,
  );
  for (const [file, content] of Object.entries(options.files ?? {})) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
}

/** The hookwise CLI as npm installed it in `installDir`, run in `cwd`: its stdout (throws on a non-zero exit). */
export function installedHookwise(installDir: string, cwd: string, env: NodeJS.ProcessEnv): (args: string[]) => string {
  const cli = path.join(installDir, 'node_modules', '@hookwise', 'cli', 'bin', 'hookwise.js');
  return (args) => execFileSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8', env, stdio: 'pipe' });
}

export interface HostRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a host process to its end (killed after two minutes), its output collected. */
export function runHost(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<HostRun> {
  return new Promise((resolve, reject) => {
    // stdin closed: an open pipe makes pi wait for it before it starts.
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The records of a JSON lines file (none when it does not exist). */
export function readJsonLines(file: string): Array<Record<string, any>> {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, any>);
}
