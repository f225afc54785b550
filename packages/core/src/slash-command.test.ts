import { describe, expect, it } from 'vitest';
import { parseSlashCommand } from './slash-command.js';

describe('parseSlashCommand (the one parser)', () => {
  it('reads a command and its arguments', () => {
    expect(parseSlashCommand('/babysit')).toEqual({ name: 'babysit', args: '' });
    expect(parseSlashCommand('  /agileflow:story:list EPIC=EP-1 STATUS=ready\n')).toEqual({
      name: 'agileflow:story:list',
      args: 'EPIC=EP-1 STATUS=ready',
    });
    expect(parseSlashCommand('/review\tnow')).toEqual({ name: 'review', args: 'now' });
  });

  // Used to disagree: the Claude Code binding returned nothing for arguments on the next line.
  it('takes arguments that start on the next line', () => {
    expect(parseSlashCommand('/review\nmulti-line\nargs')).toEqual({ name: 'review', args: 'multi-line\nargs' });
  });

  // Used to disagree: hook-precompact read `/usr/bin/x` as a command named `usr/bin/x`.
  it('does not take a path for a command', () => {
    expect(parseSlashCommand('/usr/bin/x --help')).toBeUndefined();
    expect(parseSlashCommand('/tmp/file.txt')).toBeUndefined();
  });

  it('refuses prompts that are not commands', () => {
    expect(parseSlashCommand('please run /babysit')).toBeUndefined();
    expect(parseSlashCommand('/')).toBeUndefined();
    expect(parseSlashCommand('/ babysit')).toBeUndefined();
    expect(parseSlashCommand('')).toBeUndefined();
    expect(parseSlashCommand('/-x')).toBeUndefined();
  });

  it("reads Claude Code's recorded form in transcripts", () => {
    const recorded =
      '<command-message>babysit is running…</command-message>\n<command-name>/babysit</command-name>\n<command-args>EPIC-1  </command-args>';
    expect(parseSlashCommand(recorded)).toEqual({ name: 'babysit', args: 'EPIC-1' });
    expect(parseSlashCommand('<command-name>/compact</command-name>')).toEqual({ name: 'compact', args: '' });
    expect(parseSlashCommand('<command-name>/usr/bin/x</command-name>')).toBeUndefined();
  });
});
