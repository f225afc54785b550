import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { HookwiseError } from '@hookwise/core';
import { doctor } from './doctor.js';
import type { HostOption } from './host-setup.js';
import { chooseHost, findHostAdapters, loadHostSetup, type HostAdapter } from './hosts.js';
import { init } from './init.js';
import { loadProjectEngine } from './project.js';

/** `--context-window`: a whole number of tokens above 0 (`1000000`, or `1_000_000`). */
function positiveTokens(value: string): number {
  const tokens = Number(value.replace(/_/g, ''));
  if (!Number.isSafeInteger(tokens) || tokens <= 0)
    throw new InvalidArgumentError('give the window as a whole number of tokens, e.g. 1000000.');
  return tokens;
}

export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The real stderr stream when there is one: the report draws its progress bar there (on a terminal). */
  stderrStream?: NodeJS.WritableStream;
  cwd: string;
  env: Record<string, string | undefined>;
  /** Whether a person can answer questions (stdin and stdout are terminals). */
  interactive: boolean;
}

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILT_IN = new Set(['run', 'init', 'doctor', 'report', 'commands', 'help']);
const HOST_HELP =
  'the agent to set up, by the host its adapter declares (default: the only installed host adapter; claude-code when several are)';
const PROJECT_HELP = 'the project folder (default: $CLAUDE_PROJECT_DIR or the current folder)';

function version(): string {
  try {
    return (JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

function projectDirOf(io: CliIo, given?: string): string {
  return path.resolve(io.cwd, given ?? io.env.CLAUDE_PROJECT_DIR ?? io.cwd);
}

/** `-C <dir>` / `--project <dir>` before commander parses: the project decides which host options `init` takes. */
function peekProjectDir(argv: readonly string[], io: CliIo): string {
  for (let index = 0; index < argv.length; index++) {
    const flag = argv[index]!;
    if ((flag === '-C' || flag === '--project') && argv[index + 1] !== undefined) return projectDirOf(io, argv[index + 1]);
    if (flag.startsWith('--project=')) return projectDirOf(io, flag.slice('--project='.length));
  }
  return projectDirOf(io);
}

/** Runs the CLI and resolves with the exit code. */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  // Plugin commands (`hookwise suggest dismiss`) are whatever the configured plugins offer, so
  // they are matched before the fixed commands are parsed.
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-') && !BUILT_IN.has(first)) return runPluginCommand(argv, io);
  if (first === 'run') return runThroughHost(argv.slice(1), io);
  // The report reads any host's session file and needs no adapter: it does not look for them.
  const installed = first === 'report' ? [] : findHostAdapters(peekProjectDir(argv, io));

  let exitCode = 0;
  const program = new Command('hookwise')
    .description(
      "Set up and check hookwise for your agent (through the host adapters installed in the project), report on sessions, run the plugins' commands.",
    )
    .version(version(), '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(add --help for usage)')
    .addHelpText(
      'after',
      [
        '',
        'Hosts, each through its adapter package (init, doctor and run use the installed one; --host picks among several):',
        '  claude-code  @hookwise/adapter-claude-code   opencode  @hookwise/adapter-opencode   pi  @hookwise/adapter-pi',
        '  vscode       @hookwise/adapter-vscode        ai-sdk    @hookwise/ai-sdk',
        '  cline        @hookwise/adapter-cline',
        '  codex        @hookwise/adapter-codex',
        `Installed here: ${installed.map((adapter) => adapter.host).join(', ') || 'none'}.`,
        '',
        'Plugin commands (`hookwise <plugin> <command>`) come from the configured plugins: `hookwise commands` lists them.',
      ].join('\n'),
    );

  const initCommand = program
    .command('init')
    .description(
      'Set up hookwise in a project: write hookwise.config.json if there is none, set up the host (through its adapter), ignore .hookwise/ in git. Running it again changes nothing; with --plugins on an existing JSON config, it adds the plugins missing from it.',
    )
    .option(
      '-p, --plugins <list>',
      'plugins to use, comma-separated: installed plugin packages (found by their `hookwise-plugin` keyword), by package name or short name (`x` for `x`, `hook-x`, `@scope/x` or `@scope/hook-x`); an unknown name is an error (default: ask about each installed plugin, or all of them without a terminal)',
    )
    .option('--dry-run', 'print the changes as a diff and write nothing', false)
    .option('-C, --project <dir>', PROJECT_HELP)
    .option('--host <host>', HOST_HELP);
  const hostOptions = await hostInitOptions(installed, io);
  for (const option of hostOptions) initCommand.addOption(option);
  initCommand.action(async (options: { plugins?: string; dryRun: boolean; project?: string; host?: string } & Record<string, unknown>) => {
    const choice = chooseHost(installed, options.host);
    if (!choice.ok) {
      io.stderr(`hookwise init: ${choice.message} (nothing was changed)\n`);
      exitCode = 1;
      return;
    }
    const setup = await loadHostSetup(choice.adapter);
    if (options.host === undefined && installed.length > 1)
      io.stdout(
        `hookwise init: setting up ${setup.host} (installed host adapters: ${installed.map((adapter) => adapter.host).join(', ')}; pick one with --host)\n`,
      );
    const readline = io.interactive && !options.plugins ? createInterface({ input: process.stdin, output: process.stderr }) : undefined;
    try {
      exitCode = await init({
        projectDir: projectDirOf(io, options.project),
        setup,
        hostOptions: options,
        plugins: options.plugins ? [options.plugins] : undefined,
        dryRun: options.dryRun,
        home: io.env.HOME,
        ask: readline ? (question) => readline.question(question) : undefined,
        stdout: io.stdout,
        stderr: (text) => io.stderr(text.endsWith('\n') ? text : `${text}\n`),
      });
    } finally {
      readline?.close();
    }
    if (exitCode === 0 && !options.dryRun) {
      const implied = chooseHost(installed, undefined);
      io.stdout(
        `Run \`hookwise doctor${implied.ok && implied.adapter.host === setup.host ? '' : ` --host ${setup.host}`}\` to check the setup.\n`,
      );
    }
  });

  // Handled before parsing (its arguments are the host's); declared so that help lists it.
  program
    .command('run')
    .description('The hook command a command-hook host (Claude Code) runs for each event: `hookwise run <Event>`, the event JSON on stdin.')
    .argument('<event>', 'the host event (e.g. PostToolUse)')
    .allowUnknownOption()
    .action(async (_event: string, _options: unknown, command: Command) => {
      exitCode = await runThroughHost(command.args, io);
    });

  program
    .command('doctor')
    .description(
      'Check the setup: Node version, config, plugins, writable state and logs, then what the host adapter checks (its settings, its caches). Exits 1 when something is wrong.',
    )
    .option('-C, --project <dir>', PROJECT_HELP)
    .option('--host <host>', HOST_HELP)
    .action(async (options: { project?: string; host?: string }) => {
      const choice = chooseHost(installed, options.host);
      exitCode = await doctor({
        projectDir: projectDirOf(io, options.project),
        home: io.env.HOME,
        setup: choice.ok ? await loadHostSetup(choice.adapter) : { missing: choice.message },
        stdout: io.stdout,
      });
    });

  program
    .command('report')
    .description(
      "Replay a session through the project's plugins (or every installed plugin) and report what they did or would have done. Reads a session file of Claude Code, Codex CLI, Gemini CLI, OpenCode or Kilo (their export), pi or Cline, told apart by content; needs no host adapter.",
    )
    .argument('<session>', 'path of the session file')
    .option('--json', 'print JSON instead of text', false)
    .option('--html <file>', 'also write an HTML report to this file')
    .option('--config <file>', "config file to use (default: the project's; without one, every installed hookwise plugin)")
    .option(
      '--context-window <tokens>',
      "the session's context window, as a host that knows it tells the plugins (default: inferred from the model, 1M once a request passed 200,000 tokens)",
      positiveTokens,
    )
    .option('-C, --project <dir>', PROJECT_HELP)
    .action(
      async (session: string, options: { json: boolean; html?: string; config?: string; contextWindow?: number; project?: string }) => {
        // Loaded here only: the other commands never pay for the report's modules.
        const { reportCommand } = await import('./report/command.js');
        exitCode = await reportCommand({
          transcript: path.resolve(io.cwd, session),
          json: options.json,
          ...(options.html === undefined ? {} : { html: path.resolve(io.cwd, options.html) }),
          projectDir: projectDirOf(io, options.project),
          ...(options.config === undefined ? {} : { configFile: path.resolve(io.cwd, options.config) }),
          ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
          stdout: io.stdout,
          stderr: io.stderrStream ?? io.stderr,
        });
      },
    );

  program
    .command('commands')
    .description('List the commands the configured plugins offer.')
    .option('-C, --project <dir>', PROJECT_HELP)
    .action(async (options: { project?: string }) => {
      const projectDir = projectDirOf(io, options.project);
      const { engine } = await loadProjectEngine(projectDir, { host: hostNameFor(projectDir) });
      const commands = engine.commands();
      await engine.dispose();
      if (commands.length === 0) io.stdout('The configured plugins offer no commands.\n');
      for (const command of commands)
        io.stdout(`hookwise ${command.name}${command.usage ? ` ${command.usage}` : ''}  ${command.description} (${command.pluginName})\n`);
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    io.stderr(`hookwise: ${messageOf(error)}\n`);
    return 1;
  }
}

/** `hookwise run …`: the host's hook command (the host `init` would pick), for settings that call it through this bin. */
async function runThroughHost(args: string[], io: CliIo): Promise<number> {
  const choice = chooseHost(findHostAdapters(projectDirOf(io)), undefined);
  const setup = choice.ok ? await loadHostSetup(choice.adapter) : undefined;
  if (!setup?.run) {
    io.stderr(
      `hookwise run: ${choice.ok ? `the ${choice.adapter.host} adapter has no hook command (its hooks run inside the host)` : choice.message}\n`,
    );
    return 1;
  }
  return setup.run(args);
}

/** The init options of every installed host (the first host to declare a flag owns it). */
async function hostInitOptions(installed: readonly HostAdapter[], io: CliIo): Promise<Option[]> {
  const options: Option[] = [];
  const taken = new Set(['--plugins', '--dry-run', '--project', '--host']);
  for (const adapter of installed) {
    let declared: readonly HostOption[];
    try {
      declared = (await loadHostSetup(adapter)).initOptions ?? [];
    } catch (error) {
      io.stderr(`hookwise: skipping the ${adapter.host} adapter: ${messageOf(error)}\n`);
      continue;
    }
    for (const declaration of declared) {
      const option = new Option(declaration.flags, `${declaration.description} (${adapter.host})`);
      if (option.long === undefined || taken.has(option.long)) continue;
      taken.add(option.long);
      if (declaration.choices) option.choices(declaration.choices);
      if (declaration.default !== undefined) option.default(declaration.default);
      options.push(option);
    }
  }
  return options;
}

/** The host an engine built for inspection names: the one `init` would pick, else `cli`. */
function hostNameFor(projectDir: string): string {
  const choice = chooseHost(findHostAdapters(projectDir), undefined);
  return choice.ok ? choice.adapter.host : 'cli';
}

/**
 * `hookwise <words…> [args…] [--session <id>]`: the longest configured command name that the
 * leading words spell wins, the rest are its arguments.
 */
async function runPluginCommand(argv: string[], io: CliIo): Promise<number> {
  const args = [...argv];
  let sessionId: string | undefined;
  let projectDir = projectDirOf(io);
  for (let index = 0; index < args.length; index++) {
    const flag = args[index];
    if ((flag === '--session' || flag === '--project' || flag === '-C') && args[index + 1] !== undefined) {
      if (flag === '--session') sessionId = args[index + 1];
      else projectDir = projectDirOf(io, args[index + 1]);
      args.splice(index, 2);
      index--;
    }
  }
  let engine: Awaited<ReturnType<typeof loadProjectEngine>>['engine'] | undefined;
  try {
    engine = (await loadProjectEngine(projectDir, { host: hostNameFor(projectDir) })).engine;
    const names = engine.commands().map((command) => command.name);
    const match = names
      .filter((name) => {
        const words = name.split(/\s+/);
        return words.every((word, index) => args[index] === word);
      })
      .sort((left, right) => right.split(/\s+/).length - left.split(/\s+/).length)[0];
    if (!match) {
      io.stderr(
        `hookwise: unknown command "${args.join(' ')}". Built-in: run, init, doctor, report, commands. Plugin commands: ${names.join(', ') || 'none configured'}.\n`,
      );
      return 1;
    }
    const text = await engine.runCommand(match, args.slice(match.split(/\s+/).length), sessionId ? { sessionId } : {});
    if (text) io.stdout(text.endsWith('\n') ? text : `${text}\n`);
    return 0;
  } catch (error) {
    io.stderr(`hookwise: ${messageOf(error)}\n`);
    return 1;
  } finally {
    await engine?.dispose().catch(() => undefined);
  }
}

function messageOf(error: unknown): string {
  if (HookwiseError.isInstance(error)) return error.message;
  return error instanceof Error ? error.message : String(error);
}

function defaultIo(): CliIo {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    stderrStream: process.stderr,
    cwd: process.cwd(),
    env: process.env,
    interactive: Boolean(process.stdin.isTTY && process.stdout.isTTY),
  };
}
