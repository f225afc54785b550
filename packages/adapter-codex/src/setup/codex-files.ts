import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readHooksFile as readJsonHooksFile } from '@hookwise/cli/command-hook';
import { gitRoot, type JsonObjectRead } from '@hookwise/core/host';

/** The project's hooks file Codex loads (in a trusted project only). */
export const hooksFileOf = (projectDir: string): string => path.join(projectDir, '.codex', 'hooks.json');
export const readHooksFile = (projectDir: string): JsonObjectRead => readJsonHooksFile(hooksFileOf(projectDir));

/** `$CODEX_HOME`, else `~/.codex`. */
export const codexHomeOf = (env: NodeJS.ProcessEnv, home = env['HOME'] ?? os.homedir()): string =>
  env['CODEX_HOME'] ? path.resolve(env['CODEX_HOME']) : path.join(home, '.codex');

/** Timeouts written with each entry: Codex reads `timeout` in seconds. */
export const timeoutSecondsOf = (event: string): number => (event === 'SessionEnd' ? 10 : event === 'UserPromptSubmit' ? 30 : 60);

/**
 * The folder Codex trusts a project by: the enclosing git repository's root (seen with 0.169.0:
 * a trusted folder below a repository's root loads no project config), else the project.
 */
export const trustRootOf = (projectDir: string): string => gitRoot(projectDir) ?? path.resolve(projectDir);

export interface CodexTrust {
  /** The folder that must be trusted (see {@link trustRootOf}). */
  root: string;
  /** The config file read, or undefined when there is none. */
  configFile: string | undefined;
  /** `[projects."<dir>"] trust_level = "trusted"` for {@link root} or a folder above it. */
  projectTrusted: boolean;
  /** `[hooks.state."<key>"]` tables naming this hooks file with a `trusted_hash` (the TUI's hook review writes them). */
  trustedHooks: number;
}

/**
 * What `$CODEX_HOME/config.toml` says of the project's trust. Read as text (two table shapes are
 * all that matters here, and a TOML parser is not worth a dependency): a `[projects."…"]` table
 * with `trust_level = "trusted"`, and `[hooks.state."…"]` tables with a `trusted_hash`.
 */
export function readCodexTrust(projectDir: string, codexHome: string): CodexTrust {
  const configFile = path.join(codexHome, 'config.toml');
  const root = trustRootOf(projectDir);
  if (!existsSync(configFile)) return { root, configFile: undefined, projectTrusted: false, trustedHooks: 0 };
  const text = readFileSync(configFile, 'utf8');
  const tables = text.split(/^(?=\s*\[)/m);
  let projectTrusted = false;
  let trustedHooks = 0;
  const hooksFile = hooksFileOf(projectDir);
  for (const table of tables) {
    const header = /^\s*\[([^\]\n]+)\]/.exec(table)?.[1] ?? '';
    const project = /^projects\."((?:[^"\\]|\\.)*)"$/.exec(header.trim())?.[1];
    if (project !== undefined && /^\s*trust_level\s*=\s*"trusted"/m.test(table)) {
      const folder = path.resolve(project.replace(/\\(.)/g, '$1'));
      if (root === folder || root.startsWith(folder + path.sep)) projectTrusted = true;
    }
    if (header.trim().startsWith('hooks.state.') && header.includes(hooksFile) && /^\s*trusted_hash\s*=/m.test(table)) trustedHooks++;
  }
  return { root, configFile, projectTrusted, trustedHooks };
}
