import { describe, expect, it } from 'vitest';
import { expandedCommandOf, parseSlashCommand } from './slash-command.js';

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

describe('expandedCommandOf (a host that expands a custom command before hooks see the prompt)', () => {
  const syntax = { placeholder: /\$ARGS|%[a-z]+%/, args: '$ARGS' };
  const templates = [
    { name: 'review', template: 'Review $ARGS with care.\n' },
    { name: 'status', template: 'Status: %output% done' },
  ];

  it('finds the template a prompt fills, with the arguments trimmed; other placeholders stand for any text', () => {
    expect(expandedCommandOf('Review  src/a.ts  with care.  \n', templates, syntax)).toEqual({ name: 'review', args: 'src/a.ts' });
    expect(expandedCommandOf('Status: a\nb done', templates, syntax)).toEqual({ name: 'status', args: '' });
  });

  it('takes template text literally, and refuses a prompt that is no expansion', () => {
    expect(expandedCommandOf('Review x with care!', templates, syntax)).toBeUndefined();
    expect(expandedCommandOf('Status: (.*) done', [{ name: 'dot', template: 'Status: (.*) done.' }], syntax)).toBeUndefined();
    expect(expandedCommandOf('anything', [], syntax)).toBeUndefined();
  });

  it('reads the typed command a host appends to a template without the arguments placeholder, only when told to', () => {
    const appended = 'Status: ok done\n\n/status now';
    expect(expandedCommandOf(appended, templates, syntax)).toBeUndefined();
    expect(expandedCommandOf(appended, templates, { ...syntax, typedAfter: '\n\n' })).toEqual({ name: 'status', args: 'now' });
    expect(expandedCommandOf('Status: ok done\n\n/status', templates, { ...syntax, typedAfter: '\n\n' })).toEqual({
      name: 'status',
      args: '',
    });
  });
});
