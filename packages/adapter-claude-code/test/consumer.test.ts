import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, cleanEnv, LINKED_PACKAGES, packagesDir } from './harness.js';

/**
 * What a user gets from npm: every package packed (workspace: ranges rewritten), installed
 * with plain npm into a fresh folder outside the workspace, then `npx hookwise` as documented.
 */
let root: string;
let project: string;

beforeAll(() => {
  assertBuilt();
  root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-consumer-')));
  const tarballs = path.join(root, 'tarballs');
  project = path.join(root, 'project');
  mkdirSync(tarballs);
  mkdirSync(project);
  for (const folder of LINKED_PACKAGES) {
    execFileSync('npx', ['-y', 'pnpm@10.34.9', 'pack', '--pack-destination', tarballs], { cwd: path.join(packagesDir, folder), stdio: 'pipe' });
  }
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2));
  const files = readdirSync(tarballs).map((name) => path.join(tarballs, name));
  expect(files).toHaveLength(LINKED_PACKAGES.length);
  // The registry still serves the third-party dependencies (zod, esbuild, commander…).
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', ...files], { cwd: project, stdio: 'pipe', timeout: 600_000 });
}, 900_000);

afterAll(() => {
  if (root) rmSync(root, { recursive: true, force: true });
});

const npx = (args: string[], input?: string) => spawnSync('npx', ['--no-install', 'hookwise', ...args], { cwd: project, input: input ?? '', encoding: 'utf8', env: { ...cleanEnv(), CLAUDE_PROJECT_DIR: project, HOME: path.join(root, 'home') } as NodeJS.ProcessEnv, timeout: 120_000 });

describe('consumer install', () => {
  it('installs from the tarballs outside the workspace', () => {
    const installed = JSON.parse(readFileSync(path.join(project, 'node_modules', '@hookwise', 'adapter-claude-code', 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(installed.dependencies['@hookwise/core']).not.toMatch(/^workspace:/);
    expect(realpathSync(path.join(project, 'node_modules', '@hookwise', 'core'))).toContain(project);
  });

  it('npx hookwise init sets up the project', () => {
    const result = npx(['init', '--plugins', 'prune,precompact,suggest']);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path.join(project, '.claude', 'settings.json'), 'utf8')).hooks.PostToolUse[0].hooks[0].command).toBe(
      'node "$CLAUDE_PROJECT_DIR/node_modules/@hookwise/adapter-claude-code/bin/hookwise.cjs" run PostToolUse',
    );
    const doctor = npx(['doctor']);
    expect(doctor.status, doctor.stdout).toBe(0);
  });

  it('npx hookwise run PostToolUse counts the tool call in the session state', () => {
    const event = JSON.stringify({ session_id: 'consumer-session', transcript_path: path.join(project, 'missing.jsonl'), cwd: project, hook_event_name: 'PostToolUse', tool_name: 'Read', tool_input: { file_path: 'a' }, tool_response: { file: { content: 'x' } }, tool_use_id: 'toolu_1' });
    for (let call = 0; call < 2; call++) {
      const result = npx(['run', 'PostToolUse'], event);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toBe('');
    }
    const stateFile = path.join(project, '.hookwise', 'state', 'consumer-session', '@hookwise+hook-suggest.json');
    expect(existsSync(stateFile), `no state at ${stateFile}`).toBe(true);
    expect((JSON.parse(readFileSync(stateFile, 'utf8')) as { policy: { toolCalls: number } }).policy.toolCalls).toBe(2);
    // The calls ran through the per-project bundle built from the installed packages.
    const manifest = JSON.parse(readFileSync(path.join(project, '.hookwise', 'cache', 'run-bundle.json'), 'utf8')) as { runtime: string; bundle?: string };
    expect(manifest.bundle).toBeDefined();
    expect(manifest.runtime).toBe(path.join(project, 'node_modules', '@hookwise', 'adapter-claude-code', 'dist', 'runtime.js'));
  });
});
