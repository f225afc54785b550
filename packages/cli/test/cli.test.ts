import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, createScratchProject, packagesDir, read, run, type ScratchProject } from './harness.js';

const PLUGINS = ['hook-prune', 'hook-precompact', 'hook-suggest'];
const projects: ScratchProject[] = [];
beforeAll(() => assertBuilt(['core', ...PLUGINS, 'cli', 'adapter-opencode', 'adapter-claude-code']));
afterEach(() => projects.splice(0).forEach((project) => project.remove()));

function scratch(...adapters: string[]): ScratchProject {
  const project = createScratchProject(['core', ...PLUGINS, 'cli', ...adapters]);
  projects.push(project);
  return project;
}

describe('hookwise for OpenCode, without the Claude Code adapter', () => {
  it('init --host opencode writes the config and the opencode.json entry, and doctor --host opencode passes', () => {
    const project = scratch('adapter-opencode');
    expect(readdirSync(path.join(project.dir, 'node_modules', '@hookwise')).sort()).toEqual([
      'adapter-opencode',
      'cli',
      'core',
      'hook-precompact',
      'hook-prune',
      'hook-suggest',
    ]);
    const init = run(project, ['init', '--host', 'opencode', '--plugins', 'prune,precompact,suggest']);
    expect(init.code, init.stderr).toBe(0);
    expect(JSON.parse(read(project, 'hookwise.config.json'))).toEqual({
      plugins: { '@hookwise/hook-prune': {}, '@hookwise/hook-precompact': {}, '@hookwise/hook-suggest': {} },
    });
    expect(JSON.parse(read(project, 'opencode.json'))).toEqual({
      $schema: 'https://opencode.ai/config.json',
      plugin: ['./node_modules/@hookwise/adapter-opencode'],
    });
    expect(read(project, '.gitignore')).toContain('.hookwise/');
    expect(existsSync(path.join(project.dir, '.claude'))).toBe(false);

    const doctor = run(project, ['doctor', '--host', 'opencode']);
    expect(doctor.code, doctor.stdout).toBe(0);
    expect(doctor.stdout).toContain('✓ opencode.json loads @hookwise/adapter-opencode from ./node_modules/@hookwise/adapter-opencode');
    expect(doctor.stdout).toContain('No problems found.');
  });

  it('uses the only installed host adapter when --host is not given', () => {
    const project = scratch('adapter-opencode');
    const init = run(project, ['init', '--plugins', 'suggest']);
    expect(init.code, init.stderr).toBe(0);
    expect(read(project, 'opencode.json')).toContain('./node_modules/@hookwise/adapter-opencode');
    expect(init.stdout).toContain('Run `hookwise doctor` to check the setup.');
    expect(run(project, ['init', '--plugins', 'suggest']).stdout).toContain('already set up: nothing changed');
  });
});

describe('init --plugins on an existing config', () => {
  it('refuses an unknown name, naming what is installed, and adds missing plugins to a JSON config', () => {
    const project = scratch('adapter-opencode');
    expect(run(project, ['init', '--plugins', 'suggest']).code).toBe(0);
    const typo = run(project, ['init', '--plugins', 'nosuch']);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toMatch(
      /no installed hookwise plugin matches "nosuch"; installed: .*suggest \(@hookwise\/hook-suggest\).*nothing was changed/,
    );
    expect(JSON.parse(read(project, 'hookwise.config.json'))).toEqual({ plugins: { '@hookwise/hook-suggest': {} } });

    const added = run(project, ['init', '--plugins', 'prune,suggest']);
    expect(added.code, added.stderr).toBe(0);
    expect(added.stdout).toContain('✓ add @hookwise/hook-prune to hookwise.config.json');
    expect(JSON.parse(read(project, 'hookwise.config.json'))).toEqual({
      plugins: { '@hookwise/hook-suggest': {}, '@hookwise/hook-prune': {} },
    });
    expect(run(project, ['init', '--plugins', 'prune']).stdout).toContain('already set up: nothing changed');
  });
});

describe('doctor on a broken config', () => {
  it("calls it the user's config error and names the line and column", () => {
    const project = scratch('adapter-opencode');
    writeFileSync(
      path.join(project.dir, 'hookwise.config.json'),
      '{\n  "plugins": {\n    "@hookwise/hook-suggest": {}\n    "@hookwise/hook-prune": {}\n  }\n}\n',
    );
    const doctor = run(project, ['doctor']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/error in your hookwise config: .*hookwise\.config\.json: is not valid JSON at line 4, column 5: /);
  });
});

describe('doctor and NODE_EXTRA_CA_CERTS', () => {
  it('warns only where the host starts a hook process per event', () => {
    const env = { NODE_EXTRA_CA_CERTS: '/nonexistent.pem' };
    const inProcess = scratch('adapter-opencode');
    expect(run(inProcess, ['init', '--plugins', 'suggest']).code).toBe(0);
    expect(run(inProcess, ['doctor'], { env }).stdout).not.toContain('NODE_EXTRA_CA_CERTS');
    const commandHooks = scratch('adapter-claude-code');
    expect(run(commandHooks, ['init', '--plugins', 'suggest']).code).toBe(0);
    const [major] = process.versions.node.split('.').map(Number);
    if (major! < 22) expect(run(commandHooks, ['doctor'], { env }).stdout).toContain('! NODE_EXTRA_CA_CERTS is set');
  });
});

describe('help', () => {
  it('lists every command, run included, and every host; report --help names every session file it reads', () => {
    const project = scratch('adapter-opencode');
    const help = run(project, ['--help']);
    for (const command of ['init', 'run', 'doctor', 'report', 'commands']) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    for (const host of ['claude-code', 'opencode', 'pi', 'vscode', 'ai-sdk']) expect(help.stdout).toContain(`${host} `);
    expect(help.stdout).toContain('Installed here: opencode.');
    expect(run(project, ['report', '--help']).stdout).toMatch(
      /Claude Code[\s\S]*Codex CLI[\s\S]*Gemini CLI[\s\S]*OpenCode[\s\S]*Kilo[\s\S]*pi[\s\S]*Cline/,
    );
  });
});

describe('choosing the host', () => {
  it('with several adapters installed, init sets up claude-code and says so; --host picks another', () => {
    const project = scratch('adapter-opencode', 'adapter-claude-code');
    const init = run(project, ['init', '--plugins', 'suggest']);
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(
      'hookwise init: setting up claude-code (installed host adapters: claude-code, opencode; pick one with --host)',
    );
    expect(read(project, '.claude/settings.json')).toContain(
      'node_modules/@hookwise/adapter-claude-code/bin/hookwise.cjs\\" run SessionStart',
    );
    expect(existsSync(path.join(project.dir, 'opencode.json'))).toBe(false);

    const opencode = run(project, ['init', '--host', 'opencode']);
    expect(opencode.code, opencode.stderr).toBe(0);
    expect(opencode.stdout).toContain('Run `hookwise doctor --host opencode` to check the setup.');
    expect(existsSync(path.join(project.dir, 'opencode.json'))).toBe(true);
  });

  it('without any host adapter, init changes nothing and says what to install; an unknown --host names the installed ones', () => {
    const project = scratch();
    const init = run(project, ['init', '--plugins', 'suggest']);
    expect(init.code).toBe(1);
    expect(init.stderr).toMatch(/no hookwise host adapter is installed here.*nothing was changed/);
    expect(existsSync(path.join(project.dir, 'hookwise.config.json'))).toBe(false);

    const withOpenCode = scratch('adapter-opencode');
    const unknown = run(withOpenCode, ['init', '--host', 'pi']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no host adapter for "pi" is installed here; installed: opencode (@hookwise/adapter-opencode)');
    const doctor = run(withOpenCode, ['doctor', '--host', 'pi']);
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toMatch(/^✗ no host adapter for "pi"/m);
  });

  it('run goes to the host that offers it, and says when it offers none', () => {
    const project = scratch('adapter-opencode');
    const hook = run(project, ['run', 'PostToolUse']);
    expect(hook.code).toBe(1);
    expect(hook.stderr).toContain('the opencode adapter has no hook command');
  });
});

describe('report, whatever host adapter is installed or not', () => {
  const fixtures = path.join(packagesDir, 'cli', 'src', 'report', '__fixtures__');
  const exportFile = path.join(fixtures, 'opencode', 'opencode-export.json');
  const piFile = path.join(fixtures, 'pi', 'pi-session-long.jsonl');
  const transcript = path.join(packagesDir, '..', 'fixtures', 'claude-code-transcripts', 'marot-spotter', 'short.jsonl');

  it('reads a Claude Code transcript, an OpenCode export and a pi session with no adapter installed, telling them apart by content', () => {
    const project = scratch();
    for (const [file, host, heading] of [
      [transcript, 'claude-code', 'host: Claude Code'],
      [exportFile, 'opencode', 'host: OpenCode'],
      [piFile, 'pi', 'host: pi'],
    ] as const) {
      const result = run(project, ['report', file, '--json']);
      expect(result.code, `${host}: ${result.stderr}`).toBe(0);
      expect(JSON.parse(result.stdout), host).toMatchObject({ host, config: 'default', missingPlugins: [] });
      expect(JSON.parse(result.stdout).plugins, host).toHaveLength(3);
      expect(run(project, ['report', file]).stdout, host).toContain(heading);
    }
  });

  it("takes the session's window from --context-window, and refuses one that is not a number of tokens", () => {
    const project = scratch();
    const given = run(project, ['report', transcript, '--json', '--context-window', '1_000_000']);
    expect(given.code, given.stderr).toBe(0);
    expect(JSON.parse(given.stdout).contextWindow).toBe(1_000_000);
    const bad = run(project, ['report', transcript, '--context-window', 'lots']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('give the window as a whole number of tokens');
  });

  it('gives the same report with any host adapter installed', () => {
    const bare = run(scratch(), ['report', exportFile, '--json']);
    const withAdapters = run(scratch('adapter-opencode', 'adapter-claude-code'), ['report', exportFile, '--json']);
    expect(withAdapters.code, withAdapters.stderr).toBe(0);
    const { transcript: _first, ...expected } = JSON.parse(bare.stdout);
    const { transcript: _second, ...actual } = JSON.parse(withAdapters.stdout);
    expect(actual).toEqual(expected);
  });

  it('refuses a file it does not read in one line, exit 1', () => {
    const project = scratch();
    const result = run(project, [
      'report',
      path.join(packagesDir, '..', 'fixtures', 'roo-intent-trace', 'tedoaba-roo-code', 'agent_trace.jsonl'),
    ]);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(
      /^hookwise report: .*agent_trace\.jsonl is JSONL but not a session file: expected a Claude Code transcript .* an OpenCode export .*a pi session file .*\n$/,
    );
  });
});

describe('the CLI', () => {
  it("has --version and --help for every command, with the installed hosts' init options", () => {
    const project = scratch('adapter-claude-code');
    expect(run(project, ['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    for (const command of ['init', 'doctor', 'report', 'commands']) {
      const help = run(project, [command, '--help']);
      expect(help.code, command).toBe(0);
      expect(help.stdout, command).toContain(`Usage: hookwise ${command}`);
    }
    const commands = run(project, ['--help']).stdout;
    for (const command of ['init', 'doctor', 'report', 'run', 'commands'])
      expect(commands, command).toMatch(new RegExp(`^  ${command} `, 'm'));
    const report = run(project, ['report', '--help']).stdout.replace(/\s+/g, ' ');
    for (const host of ['Claude Code', 'Codex CLI', 'Gemini CLI', 'OpenCode', 'Kilo', 'pi or Cline']) expect(report, host).toContain(host);
    expect(run(project, ['init', '--help']).stdout).toMatch(/--scope <scope>\s+which Claude Code settings file to write \(claude-code\)/);
  });

  it('dispatches plugin commands by their words, with --session', () => {
    const project = scratch('adapter-claude-code');
    expect(run(project, ['init', '--plugins', 'suggest']).code).toBe(0);
    // `hookwise run` reaches the host's hook command, as settings written with `--command "npx hookwise"` call it.
    const start = run(project, ['run', 'SessionStart'], {
      input: JSON.stringify({ session_id: 'sess-9', hook_event_name: 'SessionStart', source: 'startup', cwd: project.dir }),
    });
    expect(start.code, start.stderr).toBe(0);
    expect(start.stdout).toBe('');
    expect(read(project, '.hookwise/state/project/hookwise-core.json')).toContain('sess-9');
    const listed = run(project, ['commands']);
    expect(listed.stdout).toMatch(/^hookwise suggest dismiss/m);
    const dismissed = run(project, ['suggest', 'dismiss']);
    expect(dismissed.code, dismissed.stderr).toBe(0);
    expect(dismissed.stdout).toMatch(/dismissed/i);
    const status = run(project, ['suggest', 'status', '--session', 'sess-9']);
    expect(status.code, status.stderr).toBe(0);
    const unknown = run(project, ['frobnicate', 'now']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate now".*suggest dismiss/);
  });
});
