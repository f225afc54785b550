import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError, Option } from 'commander';
import { HookwiseError } from '@hookwise/core';
import { doctor } from './doctor.js';
import { CLAUDE_CODE_EVENTS } from './events.js';
import { init } from './init.js';
import { loadProjectEngine } from './project.js';
import { runtimeFile, runSlow } from './run-slow.js';
import type { SettingsScope } from './settings.js';

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

/** What `src/report/command.ts` exports (loaded only by `hookwise report`). */
type ReportModule = typeof import('./report/command.js');

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BUILT_IN = new Set(['run', 'init', 'doctor', 'report', 'commands', 'help']);

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

/** Runs the CLI and resolves with the exit code (except `run`, which ends the process itself). */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  // Plugin commands (`hookwise suggest dismiss`) are whatever the configured plugins offer, so
  // they are matched before the fixed commands are parsed.
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-') && !BUILT_IN.has(first)) return runPluginCommand(argv, io);

  let exitCode = 0;
  const program = new Command('hookwise')
    .description('Claude Code command hooks for hookwise plugins, and the tools to set them up.')
    .version(version(), '-v, --version')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError('(add --help for usage)')
    .addHelpText('after', '\nPlugin commands (`hookwise <plugin> <command>`) come from the configured plugins: `hookwise commands` lists them.');

  program
    .command('run')
    .description('Handle one Claude Code hook event: reads its JSON on stdin, runs the plugins, prints what Claude Code accepts for that event. Never blocks on an error.')
    .argument('[event]', `the hook event (${CLAUDE_CODE_EVENTS.slice(0, 4).join(', ')}, …)`)
    .action(async (event: string | undefined) => {
      const chunks: Buffer[] = [];
      if (!process.stdin.isTTY) for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      await runSlow({ event, stdin: Buffer.concat(chunks), env: io.env, cwd: io.cwd });
    });

  program
    .command('init')
    .description('Set up hookwise in a project: write hookwise.config.json if there is none, register `hookwise run <Event>` in the Claude Code settings, ignore .hookwise/ in git. Running it again changes nothing.')
    .option('-p, --plugins <list>', 'plugins to use, comma-separated: installed plugin packages (found by their `hookwise-plugin` keyword), by package name or short name (`x` for `x`, `hook-x`, `@scope/x` or `@scope/hook-x`) (default: ask about each installed plugin, or all of them without a terminal)')
    .addOption(new Option('-s, --scope <scope>', 'which settings file to write').choices(['project', 'local', 'user']).default('project'))
    .option('--dry-run', 'print the changes as a diff and write nothing', false)
    .option('--command <prefix>', 'command prefix the settings call, e.g. "npx hookwise" (default: node and the path of this bin)')
    .option('-C, --project <dir>', 'the project folder (default: $CLAUDE_PROJECT_DIR or the current folder)')
    .addOption(new Option('--host <host>', 'the agent: claude-code (hooks in .claude/settings.json) or opencode (the plugin in opencode.json)').choices(['claude-code', 'opencode']).default('claude-code'))
    .action(async (options: { plugins?: string; scope: SettingsScope; dryRun: boolean; command?: string; project?: string; host: 'claude-code' | 'opencode' }) => {
      const readline = io.interactive && !options.plugins ? createInterface({ input: process.stdin, output: process.stderr }) : undefined;
      try {
        exitCode = await init({
          projectDir: projectDirOf(io, options.project),
          plugins: options.plugins ? [options.plugins] : undefined,
          scope: options.scope,
          dryRun: options.dryRun,
          host: options.host,
          command: options.command,
          binPath: path.join(packageRoot, 'bin', 'hookwise.cjs'),
          runtime: runtimeFile(),
          home: io.env.HOME,
          ask: readline ? (question) => readline.question(question) : undefined,
          stdout: io.stdout,
          stderr: (text) => io.stderr(text.endsWith('\n') ? text : `${text}\n`),
        });
      } finally {
        readline?.close();
      }
    });

  program
    .command('doctor')
    .description('Check the setup: Node version, config, plugins, the settings entries the plugins need, writable state and logs, the run bundle. Exits 1 when something is wrong.')
    .option('-C, --project <dir>', 'the project folder (default: $CLAUDE_PROJECT_DIR or the current folder)')
    .addOption(new Option('--host <host>', 'the agent whose setup to check: claude-code or opencode').choices(['claude-code', 'opencode']).default('claude-code'))
    .action(async (options: { project?: string; host: 'claude-code' | 'opencode' }) => {
      exitCode = await doctor({ projectDir: projectDirOf(io, options.project), home: io.env.HOME, runtime: runtimeFile(), host: options.host, stdout: io.stdout });
    });

  program
    .command('report')
    .description('Report what hookwise did in a session from its transcript (.jsonl).')
    .argument('<transcript>', 'path of the Claude Code transcript')
    .option('--json', 'print JSON instead of text', false)
    .option('--html <file>', 'also write an HTML report to this file')
    .option('--config <file>', 'config file to use (default: the project\'s)')
    .option('-C, --project <dir>', 'the project folder (default: $CLAUDE_PROJECT_DIR or the current folder)')
    .action(async (transcript: string, options: { json: boolean; html?: string; config?: string; project?: string }) => {
      // A variable specifier: the report module is its own build entry (dist/report/command.js).
      const specifier = './report/command.js';
      const module = (await import(specifier)) as ReportModule;
      exitCode = await module.reportCommand({
        transcript: path.resolve(io.cwd, transcript),
        json: options.json,
        html: options.html === undefined ? undefined : path.resolve(io.cwd, options.html),
        projectDir: projectDirOf(io, options.project),
        configFile: options.config === undefined ? undefined : path.resolve(io.cwd, options.config),
        stdout: io.stdout,
        stderr: io.stderrStream ?? io.stderr,
      });
    });

  program
    .command('commands')
    .description('List the commands the configured plugins offer.')
    .option('-C, --project <dir>', 'the project folder (default: $CLAUDE_PROJECT_DIR or the current folder)')
    .action(async (options: { project?: string }) => {
      const { engine } = await loadProjectEngine(projectDirOf(io, options.project));
      const commands = engine.commands();
      await engine.dispose();
      if (commands.length === 0) io.stdout('The configured plugins offer no commands.\n');
      for (const command of commands) io.stdout(`hookwise ${command.name}${command.usage ? ` ${command.usage}` : ''}  ${command.description} (${command.pluginName})\n`);
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
    engine = (await loadProjectEngine(projectDir)).engine;
    const names = engine.commands().map((command) => command.name);
    const match = names
      .filter((name) => {
        const words = name.split(/\s+/);
        return words.every((word, index) => args[index] === word);
      })
      .sort((left, right) => right.split(/\s+/).length - left.split(/\s+/).length)[0];
    if (!match) {
      io.stderr(`hookwise: unknown command "${args.join(' ')}". Built-in: run, init, doctor, report, commands. Plugin commands: ${names.join(', ') || 'none configured'}.\n`);
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
