import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installProject, specifiersOf, startRegistry } from '../../../test-support/registry.js';
import { assertBuilt, cleanEnv, LINKED_PACKAGES } from './harness.js';

/**
 * What a user gets from npm: every package published to a local registry (Verdaccio; the
 * workspace ranges rewritten as a publish does), installed by name and version with npm and
 * with pnpm into a fresh folder outside the workspace, then `npx hookwise` as documented.
 */
describe.each(['npm', 'pnpm'] as const)('consumer install with %s', (kind) => {
  let root: string;
  let project: string;

  beforeAll(async () => {
    assertBuilt();
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), `hookwise-consumer-${kind}-`)));
    project = path.join(root, 'project');
    const registry = await startRegistry(LINKED_PACKAGES);
    try {
      installProject(kind, registry, project, specifiersOf(LINKED_PACKAGES), {
        ...cleanEnv(),
        HOME: process.env.HOME,
      } as NodeJS.ProcessEnv);
    } finally {
      await registry.stop();
    }
  }, 900_000);

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const npx = (args: string[], input?: string) =>
    spawnSync('npx', ['--no-install', 'hookwise', ...args], {
      cwd: project,
      input: input ?? '',
      encoding: 'utf8',
      env: { ...cleanEnv(), CLAUDE_PROJECT_DIR: project, HOME: path.join(root, 'home') } as NodeJS.ProcessEnv,
      timeout: 120_000,
    });

  it('installs by name from the registry, outside the workspace', () => {
    const installed = JSON.parse(
      readFileSync(path.join(project, 'node_modules', '@hookwise', 'adapter-claude-code', 'package.json'), 'utf8'),
    ) as { dependencies: Record<string, string> };
    expect(installed.dependencies['@hookwise/core']).not.toMatch(/^workspace:/);
    expect(realpathSync(path.join(project, 'node_modules', '@hookwise', 'adapter-claude-code'))).toContain(project);
    expect(JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')).devDependencies).toHaveProperty(
      '@hookwise/adapter-claude-code',
      expect.stringMatching(/0\.0\.0/),
    );
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
    const event = JSON.stringify({
      session_id: 'consumer-session',
      transcript_path: path.join(project, 'missing.jsonl'),
      cwd: project,
      hook_event_name: 'PostToolUse',
      tool_name: 'Read',
      tool_input: { file_path: 'a' },
      tool_response: { file: { content: 'x' } },
      tool_use_id: 'toolu_1',
    });
    for (let call = 0; call < 2; call++) {
      const result = npx(['run', 'PostToolUse'], event);
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toBe('');
    }
    const stateFile = path.join(project, '.hookwise', 'state', 'consumer-session', '@hookwise+hook-suggest.json');
    expect(existsSync(stateFile), `no state at ${stateFile}`).toBe(true);
    expect((JSON.parse(readFileSync(stateFile, 'utf8')) as { policy: { toolCalls: number } }).policy.toolCalls).toBe(2);
    // The calls ran through the per-project bundle built from the installed packages.
    const manifest = JSON.parse(readFileSync(path.join(project, '.hookwise', 'cache', 'claude-code', 'run-bundle.json'), 'utf8')) as {
      runtime: string;
      bundle?: string;
    };
    expect(manifest.bundle).toBeDefined();
    expect(manifest.runtime).toBe(
      realpathSync(path.join(project, 'node_modules', '@hookwise', 'adapter-claude-code', 'dist', 'hook-process', 'bundle-runtime.js')),
    );
  });
});
