import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installProject, specifiersOf, startRegistry } from '../../../test-support/registry.js';
import { independentFigures } from '../src/report/test-support.js';
import { assertBuilt, bin, packagesDir } from './harness.js';

/**
 * `hookwise report` as a user gets it from npm, with no host adapter: the CLI, core and the
 * three plugins published to a local registry (Verdaccio; workspace ranges rewritten as a
 * publish does) and installed by name with npm into a fresh folder outside the workspace.
 */
const PACKAGES = ['core', 'hook-prune', 'hook-precompact', 'hook-suggest', 'cli'] as const;
const fixtures = path.resolve(packagesDir, '..', 'fixtures');
const transcript = path.join(fixtures, 'claude-code-transcripts', 'marot-spotter', 'tool_heavy.jsonl');
const rooTrace = path.join(fixtures, 'roo-intent-trace', 'tedoaba-roo-code', 'agent_trace.jsonl');

function cleanEnv(home: string): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _certs, NODE_OPTIONS: _options, CLAUDE_PROJECT_DIR: _project, ...rest } = process.env;
  return { ...rest, HOME: home };
}

describe('hookwise report from an npm install of the CLI, core and the plugins (no host adapter)', () => {
  let root: string;
  let project: string;
  /** Only the CLI (and core, its dependency) installed, as `npx @hookwise/cli` installs it. */
  let cliOnly: string;
  /** An empty folder: where a user runs `npx` in a folder with nothing installed. */
  let empty: string;

  beforeAll(async () => {
    assertBuilt([...PACKAGES]);
    root = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'hookwise-cli-consumer-')));
    project = path.join(root, 'project');
    cliOnly = path.join(root, 'cli-only');
    empty = path.join(root, 'empty');
    mkdirSync(empty);
    const registry = await startRegistry(PACKAGES);
    try {
      const env = { ...cleanEnv(process.env.HOME ?? root) };
      installProject('npm', registry, project, specifiersOf(PACKAGES), env);
      installProject('npm', registry, cliOnly, specifiersOf(['cli']), env);
    } finally {
      await registry.stop();
    }
  }, 900_000);

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true });
  });

  const env = () => cleanEnv(path.join(root, 'home'));
  const npx = (args: string[]) =>
    spawnSync('npx', ['--no-install', 'hookwise', ...args], { cwd: project, encoding: 'utf8', env: env(), timeout: 120_000 });
  /** The installed bin of `dir`, run from `cwd`. */
  const installedBin = (dir: string, cwd: string, args: string[]) =>
    spawnSync(process.execPath, [path.join(dir, 'node_modules', '@hookwise', 'cli', 'bin', 'hookwise.js'), ...args], {
      cwd,
      encoding: 'utf8',
      env: env(),
      timeout: 120_000,
    });

  it('installs no host adapter', () => {
    expect(readdirSync(path.join(project, 'node_modules', '@hookwise')).sort()).toEqual([
      'cli',
      'core',
      'hook-precompact',
      'hook-prune',
      'hook-suggest',
    ]);
  });

  it('npx hookwise report <Claude Code transcript> --json gives the figures the workspace build gives', () => {
    const result = npx(['report', transcript, '--json']);
    expect(result.status, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout);
    const expected = independentFigures(transcript);
    expect(report).toMatchObject({
      host: 'claude-code',
      config: 'default',
      missingPlugins: [],
      lines: expected.lines,
      malformedLines: expected.malformed,
      toolCalls: expected.toolCalls,
      peakContextTokens: expected.peakContextTokens,
      prune: { method: 'every-request', requests: expected.responses.length },
    });
    expect(report.plugins.map((plugin: { name: string }) => plugin.name).sort()).toEqual([
      '@hookwise/hook-precompact',
      '@hookwise/hook-prune',
      '@hookwise/hook-suggest',
    ]);
    expect(report.timeline.map((entry: { line: number }) => entry.line)).toEqual(expected.responses.map((response) => response.line));
    expect(report.cost.requests).toBe(expected.responses.length);

    // The same report as the workspace's own build, run where no config is.
    const workspace = spawnSync(process.execPath, [bin, 'report', transcript, '--json'], {
      cwd: empty,
      encoding: 'utf8',
      env: env(),
      timeout: 120_000,
    });
    expect(workspace.status, workspace.stderr).toBe(0);
    expect(report).toEqual(JSON.parse(workspace.stdout));
  });

  it('refuses a file that is no session, in one line, exit 1', () => {
    const result = npx(['report', rooTrace]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    // npx may add notices of its own (npm warn …); hookwise's answer is one line.
    const ours = result.stderr.split('\n').filter((line) => line.trim() !== '' && !/^npm (warn|notice|WARN|ERR)/.test(line));
    expect(ours, result.stderr).toEqual([expect.stringContaining('expected a Claude Code transcript')]);
  });

  it('from a folder with nothing installed, reports with the plugins installed beside the CLI (npx -p @hookwise/cli -p <plugin> …)', () => {
    const result = installedBin(project, empty, ['report', transcript, '--json']);
    expect(result.status, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).plugins).toHaveLength(3);
  });

  it('from a folder with nothing installed and the CLI alone (npx @hookwise/cli), says in one line what to install', () => {
    const result = installedBin(cliOnly, empty, ['report', transcript]);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /^hookwise report: no hookwise config in .* and no hookwise plugin is installed there or beside this CLI: npm install -D @hookwise\/hook-prune @hookwise\/hook-precompact @hookwise\/hook-suggest/,
    );
  });
});
