import { Command, CommanderError } from 'commander';
import { runBuildOrLoad, type BundledHost } from './build-or-load.js';

/**
 * A host bin's `run <Event>` when its fast path does not take it: stdin is a terminal, or
 * `--help`, or a missing event. `title` names the host in the help (`Claude Code`), `events` are
 * its hook events (the first four are shown). The other commands are @hookwise/cli's.
 */
export async function runCommand<Input>(
  target: BundledHost<Input> & { readonly title: string; readonly events: readonly string[] },
  argv: string[],
): Promise<number> {
  const program = new Command('hookwise')
    .exitOverride()
    .configureOutput({ writeOut: (text) => process.stdout.write(text), writeErr: (text) => process.stderr.write(text) })
    .showHelpAfterError('(add --help for usage)');
  program
    .command('run')
    .description(
      `Handle one ${target.title} hook event: reads its JSON on stdin, runs the plugins, prints what ${target.title} accepts for that event. Never blocks on an error.`,
    )
    .argument('[event]', `the hook event (${target.events.slice(0, 4).join(', ')}, …)`)
    .action(async (event: string | undefined) => {
      const chunks: Buffer[] = [];
      if (!process.stdin.isTTY) for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
      await runBuildOrLoad(target, { event, stdin: Buffer.concat(chunks), env: process.env, cwd: process.cwd() });
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
