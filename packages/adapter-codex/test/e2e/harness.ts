import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
// @ts-expect-error -- a plain .mjs script without types
import { ensureCodex } from '../../../../scripts/install-codex.mjs';
import {
  installedHookwise,
  readJsonLines,
  runHost,
  shellEnv,
  writeProjectFiles,
  type HostRun,
  type ProjectFiles,
} from '../../../../test-support/host-e2e.js';
import { isolatedCommand } from '../../../../test-support/netns.mjs';
import { installFromRegistry, type RegistryInstall } from '../../../../test-support/registry.js';

/**
 * Runs the real Codex CLI (0.169.0, installed into ~/.cache/hookwise by scripts/install-codex.mjs)
 * offline against the loopback Responses API stand-in, with hookwise installed from the local
 * Verdaccio registry by name — what a user has. Codex runs under `unshare -n` (only loopback,
 * reaching the stand-in through test-support/netns.mjs) where the machine allows it.
 *
 * When a scenario fails: `HOOKWISE_E2E_KEEP=1` keeps the scratch folder.
 */
export const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The workspace packages a Codex user installs (@hookwise/cli brings `hookwise init`). */
export const PUBLISHED = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'adapter-codex', 'cli'] as const;

export interface ScratchInstall extends RegistryInstall {
  launcher: string;
}

export async function createScratchInstall(): Promise<ScratchInstall> {
  const { launcher } = ensureCodex() as { launcher: string };
  return { ...(await installFromRegistry('codex', PUBLISHED, { env: shellEnv() })), launcher };
}

export interface Project {
  dir: string;
  codexHome: string;
  hookwise(args: string[]): string;
  /** `codex exec <prompt>` to its end, stdin closed. */
  run(prompt: string): Promise<HostRun>;
  /** The rollout file of the newest session. */
  rolloutFile(): string;
  events(): Array<Record<string, any>>;
}

export interface ProjectOptions extends ProjectFiles {
  model: { port: number; socketPath?: string };
  /** Codex compacts when a response's usage passes this. */
  autoCompactTokens?: number;
}

/** A project below the install with its own `CODEX_HOME` (the stand-in as provider, the project trusted). */
export function createProject(install: ScratchInstall, name: string, options: ProjectOptions): Project {
  const dir = path.join(install.installDir, name);
  const codexHome = path.join(install.root, 'codex-home', name);
  const home = path.join(install.root, 'home');
  for (const folder of [dir, codexHome, home]) mkdirSync(folder, { recursive: true });
  writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      'model = "gpt-standin"',
      'model_provider = "standin"',
      'approval_policy = "never"',
      'sandbox_mode = "danger-full-access"',
      `model_auto_compact_token_limit = ${options.autoCompactTokens ?? 100_000}`,
      'model_context_window = 200000',
      'check_for_update_on_startup = false',
      // `bash -c`, not `bash -lc`: a login shell is slow enough under load to outlast yield_time_ms.
      'allow_login_shell = false',
      '',
      '[model_providers.standin]',
      'name = "loopback stand-in"',
      `base_url = "http://127.0.0.1:${options.model.port}/v1"`,
      'wire_api = "responses"',
      '',
      `[projects.${JSON.stringify(dir)}]`,
      'trust_level = "trusted"',
      '',
    ].join('\n'),
  );
  writeProjectFiles(dir, options);
  const env: Record<string, string> = { ...shellEnv(), HOME: home, CODEX_HOME: codexHome };
  return {
    dir,
    codexHome,
    hookwise: installedHookwise(install.installDir, dir, { ...shellEnv(), HOME: home, CODEX_HOME: codexHome }),
    run(prompt) {
      const args = [
        install.launcher,
        'exec',
        '--dangerously-bypass-approvals-and-sandbox',
        '--dangerously-bypass-hook-trust',
        '--json',
        '-o',
        path.join(codexHome, 'last.txt'),
        prompt,
      ];
      const isolate =
        install.isolated && options.model.socketPath ? { socketPath: options.model.socketPath, port: options.model.port } : undefined;
      const command = isolatedCommand(process.execPath, args, isolate);
      return runHost(command.command, command.args, dir, env);
    },
    rolloutFile: () => newestRollout(path.join(codexHome, 'sessions')),
    events: () => readJsonLines(path.join(dir, '.hookwise', 'logs', 'events.jsonl')),
  };
}

function newestRollout(folder: string): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }))
      if (entry.isDirectory()) walk(path.join(dir, entry.name));
      else if (entry.name.startsWith('rollout-') && entry.name.endsWith('.jsonl')) files.push(path.join(dir, entry.name));
  };
  walk(folder);
  const newest = files.sort().at(-1);
  if (!newest) throw new Error(`no rollout file under ${folder}`);
  return newest;
}
