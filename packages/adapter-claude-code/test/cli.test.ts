import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, bin, createScratchProject, hookwise, snapshotTree, writeJson, type ScratchProject } from './harness.js';

/** Claude Code's `hookwise init` and `doctor` and the run bundle, through the built bin (the CLI's own tests are in packages/cli). */
const projects: ScratchProject[] = [];
beforeAll(() => assertBuilt());
afterEach(() => projects.splice(0).forEach((project) => project.remove()));

function scratch(): ScratchProject {
  const project = createScratchProject('hookwise-cli-');
  projects.push(project);
  return project;
}
const run = (project: ScratchProject, args: string[], input?: string, env: Record<string, string> = {}) =>
  hookwise(args, { cwd: project.dir, input, env: { HOME: project.home, CLAUDE_PROJECT_DIR: project.dir, ...env } });
const read = (project: ScratchProject, file: string) => readFileSync(path.join(project.dir, file), 'utf8');
const postToolUse = (sessionId = 's1') =>
  JSON.stringify({
    session_id: sessionId,
    hook_event_name: 'PostToolUse',
    tool_name: 'Bash',
    tool_input: {},
    tool_response: { stdout: '' },
  });

describe('hookwise init', () => {
  it('writes the config, the settings and .gitignore, and a second run changes nothing', () => {
    const project = scratch();
    const first = run(project, ['init', '--plugins', 'prune,precompact,suggest']);
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(read(project, 'hookwise.config.json'))).toEqual({
      plugins: { '@hookwise/hook-prune': {}, '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': {} },
    });
    const settings = JSON.parse(read(project, '.claude/settings.json')) as {
      hooks: Record<string, Array<{ hooks: Array<{ command: string }> }>>;
    };
    expect(Object.keys(settings.hooks)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'UserPromptExpansion',
      'PostToolUse',
      'PostToolUseFailure',
      'PreCompact',
      'PostCompact',
      'SubagentStop',
      'Stop',
    ]);
    expect(settings.hooks.PreCompact?.[0]?.hooks[0]?.command).toBe(
      'node "$CLAUDE_PROJECT_DIR/node_modules/@hookwise/adapter-claude-code/bin/hookwise.cjs" run PreCompact',
    );
    expect(read(project, '.gitignore')).toContain('.hookwise/');
    expect(existsSync(path.join(project.dir, '.hookwise', 'cache', 'claude-code', 'run-bundle.json'))).toBe(true);

    const before = snapshotTree(project.dir);
    const second = run(project, ['init', '--plugins', 'prune']);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('already set up: nothing changed');
    expect(snapshotTree(project.dir)).toEqual(before);
  });

  it("merges into existing settings without touching the user's hooks, and keeps a backup", () => {
    const project = scratch();
    const mine = {
      model: 'opus',
      hooks: { PostToolUse: [{ matcher: 'Edit', hooks: [{ type: 'command', command: 'prettier --write .' }] }] },
    };
    writeJson(path.join(project.dir, '.claude', 'settings.json'), mine);
    writeFileSync(path.join(project.dir, '.gitignore'), 'node_modules');
    expect(run(project, ['init', '--plugins', 'suggest']).code).toBe(0);
    const settings = JSON.parse(read(project, '.claude/settings.json')) as typeof mine & { hooks: Record<string, unknown[]> };
    expect(settings.model).toBe('opus');
    expect(settings.hooks.PostToolUse?.[0]).toEqual(mine.hooks.PostToolUse[0]);
    expect(settings.hooks.PostToolUse).toHaveLength(2);
    expect(JSON.parse(read(project, '.claude/settings.json.hookwise.bak'))).toEqual(mine);
    expect(read(project, '.gitignore')).toBe('node_modules\n# hookwise session state and logs\n.hookwise/\n');
  });

  it('without --plugins and no terminal, registers every installed plugin (found by the hookwise-plugin keyword)', () => {
    const project = scratch();
    const result = run(project, ['init']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(
      'using every installed plugin: @hookwise/hook-precompact, @hookwise/hook-prune, @hookwise/hook-suggest',
    );
    // Sorted by name: precompact and prune share no transformed value, so their order changes nothing they do.
    expect(Object.keys((JSON.parse(read(project, 'hookwise.config.json')) as { plugins: object }).plugins)).toEqual([
      '@hookwise/hook-precompact',
      '@hookwise/hook-prune',
      '@hookwise/hook-suggest',
    ]);
  });

  it('--plugins matches short names against the installed plugins, and says which are installed when nothing matches', () => {
    const project = scratch();
    // An unmarked package is not a plugin, whatever its name.
    writeJson(path.join(project.dir, 'node_modules', 'hook-lookalike', 'package.json'), { name: 'hook-lookalike', keywords: ['hooks'] });
    const before = snapshotTree(project.dir);
    const unknown = run(project, ['init', '--plugins', 'prune,lookalike']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain(
      'no installed hookwise plugin matches "lookalike"; installed: precompact (@hookwise/hook-precompact), prune (@hookwise/hook-prune), suggest (@hookwise/hook-suggest)',
    );
    expect(snapshotTree(project.dir)).toEqual(before);

    // A second package that `prune` could mean: the short name is ambiguous, the package name is not.
    writeJson(path.join(project.dir, 'node_modules', '@acme', 'hook-prune', 'package.json'), {
      name: '@acme/hook-prune',
      keywords: ['hookwise-plugin'],
    });
    const ambiguous = run(project, ['init', '--plugins', 'prune']);
    expect(ambiguous.code).toBe(1);
    expect(ambiguous.stderr).toContain(
      '"prune" matches several installed plugins (@acme/hook-prune, @hookwise/hook-prune): name the package',
    );
    expect(run(project, ['init', '--plugins', 'hook-suggest, @hookwise/hook-prune,suggest', '--dry-run']).stdout).toMatch(
      /^\+ {4}"@hookwise\/hook-suggest": \{\},\n\+ {4}"@hookwise\/hook-prune": \{\}\n\+ {2}\}/m,
    );
  });

  it('--dry-run prints the diff and writes nothing', () => {
    const project = scratch();
    const before = snapshotTree(project.dir);
    const result = run(project, ['init', '--plugins', 'suggest', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('+++ hookwise.config.json');
    expect(result.stdout).toContain('+++ .claude/settings.json');
    expect(result.stdout).toMatch(/^\+\s+"command": "node .*run PostToolUse"/m);
    expect(snapshotTree(project.dir)).toEqual(before);
  });

  it('--scope local and --scope user write their own settings files', () => {
    const project = scratch();
    expect(run(project, ['init', '--plugins', 'suggest', '--scope', 'local']).code).toBe(0);
    expect(existsSync(path.join(project.dir, '.claude', 'settings.local.json'))).toBe(true);
    expect(existsSync(path.join(project.dir, '.claude', 'settings.json'))).toBe(false);
    expect(run(project, ['init', '--scope', 'user']).code).toBe(0);
    const user = read(project, '../home/.claude/settings.json');
    // The user file serves every project, so it names this bin by its absolute path.
    expect(user).toContain(JSON.stringify(JSON.stringify(bin)).slice(1, -1));
  });

  it('refuses to touch settings that are not valid JSON', () => {
    const project = scratch();
    writeFileSync(path.join(project.dir, 'hookwise.config.json'), '{"plugins":{}}');
    mkdirSync(path.join(project.dir, '.claude'), { recursive: true });
    writeFileSync(path.join(project.dir, '.claude', 'settings.json'), '{ "hooks": ');
    const result = run(project, ['init']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/settings\.json is not valid JSON.*nothing was changed/);
    expect(read(project, '.claude/settings.json')).toBe('{ "hooks": ');
  });
});

describe('hookwise doctor', () => {
  it('passes on a fresh init and names each problem on one line', () => {
    const project = scratch();
    expect(run(project, ['init', '--plugins', 'precompact,suggest']).code).toBe(0);
    const healthy = run(project, ['doctor']);
    expect(healthy.code, healthy.stdout).toBe(0);
    expect(healthy.stdout).toContain('No problems found.');
    expect(healthy.stdout).toContain('✓ hook calls use the cached run bundle');

    // A needed event missing from the settings.
    const settingsFile = path.join(project.dir, '.claude', 'settings.json');
    const settings = JSON.parse(readFileSync(settingsFile, 'utf8')) as { hooks: Record<string, unknown> };
    delete settings.hooks.PreCompact;
    writeJson(settingsFile, settings);
    // A plugin that is not installed.
    writeJson(path.join(project.dir, 'hookwise.config.json'), {
      plugins: { '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': {}, 'hookwise-plugin-missing': {} },
    });
    const broken = run(project, ['doctor']);
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^✗ .*plugin "hookwise-plugin-missing" cannot be resolved/m);

    writeJson(path.join(project.dir, 'hookwise.config.json'), {
      plugins: { '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': {} },
    });
    const missingEvent = run(project, ['doctor']);
    expect(missingEvent.code).toBe(1);
    expect(missingEvent.stdout).toMatch(
      /^✗ the hooks in the Claude Code settings do not call `hookwise run PreCompact`, which .*hook-precompact.*need; run `hookwise init --host claude-code`/m,
    );
    expect(missingEvent.stdout).toContain('1 problem found.');
  });

  it('reports an invalid config with the file and the path of the bad value', () => {
    const project = scratch();
    writeJson(path.join(project.dir, 'hookwise.config.json'), { plugins: { '@hookwise/hook-suggest': { toolCalls: -3 } } });
    const result = run(project, ['doctor']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^✗ .*hookwise\.config\.json.*@hookwise\/hook-suggest.*toolCalls/m);
  });
});

describe('the run bundle', () => {
  it('is rebuilt when the config changes, and the new options apply', () => {
    const project = scratch();
    expect(run(project, ['init', '--plugins', 'suggest']).code).toBe(0);
    const manifestFile = path.join(project.dir, '.hookwise', 'cache', 'claude-code', 'run-bundle.json');
    const builtAt = (JSON.parse(readFileSync(manifestFile, 'utf8')) as { builtAt: string }).builtAt;
    expect(run(project, ['run', 'PostToolUse'], postToolUse()).stdout).toBe('');
    writeJson(path.join(project.dir, 'hookwise.config.json'), { plugins: { '@hookwise/hook-suggest': { toolCalls: 1 } } });
    expect(JSON.parse(run(project, ['run', 'PostToolUse'], postToolUse('s2')).stdout)).toEqual({
      systemMessage: expect.stringContaining('Consider /compact'),
    });
    expect((JSON.parse(readFileSync(manifestFile, 'utf8')) as { builtAt: string }).builtAt).not.toBe(builtAt);
  });

  it('carries the options it resolved when built; a bad option is still reported by the call, in one line, exit 0', () => {
    const project = scratch();
    expect(run(project, ['init', '--plugins', 'suggest']).code).toBe(0);
    const bundleText = () =>
      readFileSync(
        path.join(
          project.dir,
          '.hookwise',
          'cache',
          'claude-code',
          (JSON.parse(read(project, '.hookwise/cache/claude-code/run-bundle.json')) as { bundle: string }).bundle,
        ),
        'utf8',
      );
    writeJson(path.join(project.dir, 'hookwise.config.json'), { plugins: { '@hookwise/hook-suggest': { toolCalls: -3 } } });
    const bad = run(project, ['run', 'PostToolUse'], postToolUse('a'));
    expect(bad.code).toBe(0);
    expect(bad.stdout).toBe('');
    expect(bad.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        /hookwise\.config\.json: at plugins\["@hookwise\/hook-suggest"\]: \[@hookwise\/hook-suggest\] invalid options.*toolCalls/,
      ),
    ]);
    expect(bundleText()).not.toMatch(/checked:\s*\{/);
    writeJson(path.join(project.dir, 'hookwise.config.json'), { plugins: { '@hookwise/hook-suggest': { toolCalls: 1 } } });
    expect(JSON.parse(run(project, ['run', 'PostToolUse'], postToolUse('b')).stdout)).toEqual({
      systemMessage: expect.stringContaining('Consider /compact'),
    });
    expect(bundleText()).toMatch(/checked:\s*\{\s*text:.*"?toolCalls"?:\s*1\b/);
  });

  it('gives the same output unbundled, and survives a corrupt bundle', () => {
    const project = scratch();
    expect(run(project, ['init', '--plugins', 'suggest']).code).toBe(0);
    writeJson(path.join(project.dir, 'hookwise.config.json'), { plugins: { '@hookwise/hook-suggest': { toolCalls: 1 } } });
    const bundled = run(project, ['run', 'PostToolUse'], postToolUse('a'));
    const unbundled = run(project, ['run', 'PostToolUse'], postToolUse('b'), { HOOKWISE_NO_BUNDLE: '1' });
    expect(unbundled.stdout).toBe(bundled.stdout);
    expect(JSON.parse(bundled.stdout)).toHaveProperty('systemMessage');

    const manifest = JSON.parse(readFileSync(path.join(project.dir, '.hookwise', 'cache', 'claude-code', 'run-bundle.json'), 'utf8')) as {
      bundle: string;
    };
    const bundleFile = path.join(project.dir, '.hookwise', 'cache', 'claude-code', manifest.bundle);
    writeFileSync(bundleFile, 'throw new Error("corrupt");');
    // Same size and mtime check would still pass for a same-size file; make sure the loader itself copes.
    const afterCorruption = run(project, ['run', 'PostToolUse'], postToolUse('c'));
    expect(afterCorruption.code).toBe(0);
    expect(JSON.parse(afterCorruption.stdout)).toHaveProperty('systemMessage');
    unlinkSync(path.join(project.dir, '.hookwise', 'cache', 'claude-code', 'run-bundle.json'));
    expect(JSON.parse(run(project, ['run', 'PostToolUse'], postToolUse('d')).stdout)).toHaveProperty('systemMessage');
  });

  it('is all ASCII with the three plugins, so V8 holds it as a one-byte string', () => {
    // A non-ASCII character that esbuild does not escape (in a regular expression, a comment)
    // would double the string V8 makes of the bundle on every call; see the esbuild options in @hookwise/cli's command-hook/compile-entry.ts.
    const project = scratch();
    expect(run(project, ['init', '--plugins', 'prune,precompact,suggest']).code).toBe(0);
    const manifest = JSON.parse(read(project, '.hookwise/cache/claude-code/run-bundle.json')) as { bundle: string };
    const bytes = readFileSync(path.join(project.dir, '.hookwise', 'cache', 'claude-code', manifest.bundle));
    const firstNonAscii = bytes.findIndex((byte) => byte > 0x7f);
    expect(
      firstNonAscii,
      firstNonAscii < 0 ? '' : bytes.subarray(Math.max(0, firstNonAscii - 60), firstNonAscii + 20).toString('utf8'),
    ).toBe(-1);
  });

  it('keeps names only when decorated classes need them: a class hook is named after its class even when the bundler renames it', () => {
    // Without decorated classes the bundle has no __name call (tested: the three plugins).
    const plain = scratch();
    expect(run(plain, ['init', '--plugins', 'prune,precompact,suggest']).code).toBe(0);
    const plainManifest = JSON.parse(read(plain, '.hookwise/cache/claude-code/run-bundle.json')) as { bundle: string };
    expect(readFileSync(path.join(plain.dir, '.hookwise', 'cache', 'claude-code', plainManifest.bundle), 'utf8')).not.toContain('__name(');

    // A class hook named like a class in hookwise's own code (hook-call.ts has a `Refusal`): one of
    // the two is renamed in the bundle, and the hook must still be `Refusal.seen`.
    const project = scratch();
    writeJson(path.join(project.dir, 'tsconfig.json'), { compilerOptions: { experimentalDecorators: true } });
    writeFileSync(
      path.join(project.dir, 'hookwise.config.ts'),
      [
        "import { defineConfig, definePlugin } from '@hookwise/core';",
        "import { injectable, On } from '@hookwise/core/di';",
        '@injectable()',
        'class Refusal {',
        "  @On('tool:after')",
        "  seen(): never { throw new Error('planned failure'); }",
        '}',
        "export default defineConfig({ plugins: [definePlugin({ meta: { name: 'names', version: '1.0.0' }, hooks: [Refusal] })()] });",
        '',
      ].join('\n'),
    );
    const result = run(project, ['run', 'PostToolUse'], postToolUse());
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('names › Refusal.seen on tool:after failed: planned failure');
    const manifest = JSON.parse(read(project, '.hookwise/cache/claude-code/run-bundle.json')) as { bundle?: string; failed?: string };
    expect(manifest.failed).toBeUndefined();
    expect(readFileSync(path.join(project.dir, '.hookwise', 'cache', 'claude-code', manifest.bundle!), 'utf8')).toContain('__name(');
    // The bundled call again (the first one may have built the bundle on the slow path).
    expect(run(project, ['run', 'PostToolUse'], postToolUse('s2')).stderr).toContain(
      'names › Refusal.seen on tool:after failed: planned failure',
    );
  });

  it("keeps one V8 code cache that grows by each event's functions, written once per event", () => {
    const project = scratch();
    expect(run(project, ['init', '--plugins', 'prune,precompact,suggest']).code).toBe(0);
    const manifest = JSON.parse(read(project, '.hookwise/cache/claude-code/run-bundle.json')) as { bundle: string };
    const cacheFile = path.join(project.dir, '.hookwise', 'cache', 'claude-code', manifest.bundle.replace(/\.cjs$/, '.v8cache'));
    const header = () => readFileSync(cacheFile).subarray(0, 200).toString('latin1').split('\n')[0];
    const sessionStart = JSON.stringify({ session_id: 's1', hook_event_name: 'SessionStart', source: 'startup' });

    expect(run(project, ['run', 'SessionStart'], sessionStart).code).toBe(0);
    expect(header()).toBe('hookwise-v8cache 1 SessionStart');
    const afterSessionStart = statSync(cacheFile);
    expect(run(project, ['run', 'PostToolUse'], postToolUse()).code).toBe(0);
    expect(header()).toBe('hookwise-v8cache 1 SessionStart PostToolUse');
    // The functions PostToolUse ran were added: the cache grew.
    expect(statSync(cacheFile).size).toBeGreaterThan(afterSessionStart.size);
    const covered = statSync(cacheFile);
    expect(run(project, ['run', 'PostToolUse'], postToolUse()).code).toBe(0);
    expect(run(project, ['run', 'SessionStart'], sessionStart).code).toBe(0);
    expect(statSync(cacheFile).ino).toBe(covered.ino); // not written again

    // A cache V8 rejects (here: not one) or without the header is replaced by a new one, and the call works.
    writeFileSync(cacheFile, 'not a cache');
    const result = run(project, ['run', 'PostToolUse'], postToolUse());
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(header()).toBe('hookwise-v8cache 1 PostToolUse');
    expect(readdirSync(path.dirname(cacheFile)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('exits quietly in a folder without hookwise', () => {
    const project = scratch();
    rmSync(path.join(project.dir, 'node_modules'), { recursive: true });
    const result = run(project, ['run', 'PostToolUse'], postToolUse());
    expect(result).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(path.join(project.dir, '.hookwise'))).toBe(false);
  });
});

describe('the hook bin', () => {
  it('has --help for run, and hands every other command to @hookwise/cli', () => {
    const project = scratch();
    const help = run(project, ['run', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: hookwise run');
    expect(run(project, ['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect(run(project, ['init', '--help']).stdout).toContain('Usage: hookwise init');
  });
});
