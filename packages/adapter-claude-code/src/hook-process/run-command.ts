import { Command, CommanderError } from 'commander';
import { CLAUDE_CODE_EVENTS } from '../binding/events.js';
import { runBuildOrLoad } from './build-or-load.js';

/**
 * `hookwise-claude-code run <Event>` when bin/hookwise.cjs's fast path does not take it: stdin
 * is a terminal, or `--help`, or a missing event. The other commands are @hookwise/cli's.
 */
export async function runCommand(argv: string[]): Promise<number> {
  const program = new Command('hookwise')
    .exitOverride()
    .configureOutput({ writeOut: (text) => process.stdout.write(text), writeErr: (text) => process.stderr.write(text) })
    .showHelpAfterError('(add --help for usage)');
  program
    .command('run')
    .description(
      'Handle one Claude Code hook event: reads its JSON on stdin, runs the plugins, prints what Claude Code accepts for that event. Never blocks on an error.',
    )
    .argument('[event]', `the hook event (${CLAUDE_CODE_EVENTS.slice(0, 4).join(', ')}, …)`)
    .action(async (event: string | undefined) => {
      const chunks: Buffer[] = [];
      if (!process.stdin.isTTY) for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      await runBuildOrLoad({ event, stdin: Buffer.concat(chunks), env: process.env, cwd: process.cwd() });
    });
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode;
    process.stderr.write(`hookwise: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}
