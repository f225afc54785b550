import { describe, expect, it } from 'vitest';
import { matchExpansion, tomlPrompt } from './commands.js';

describe('tomlPrompt', () => {
  it('reads multi-line, literal and basic strings', () => {
    expect(tomlPrompt('description = "x"\nprompt = """\nline 1\nline 2\n"""')).toBe('line 1\nline 2\n');
    expect(tomlPrompt("prompt = '''\nraw \\n text'''")).toBe('raw \\n text');
    expect(tomlPrompt('prompt = "a\\nb \\"q\\""')).toBe('a\nb "q"');
    expect(tomlPrompt('description = "no prompt"')).toBeUndefined();
  });
});

describe('matchExpansion (what Gemini CLI 0.61.0 sends for a custom command)', () => {
  it('takes {{args}} as the arguments', () => {
    expect(matchExpansion('Review {{args}} carefully.', 'Review src/a.ts carefully.', 'review')).toBe('src/a.ts');
  });
  it('without {{args}}: the bare prompt, or the prompt with the typed command appended', () => {
    expect(matchExpansion('Watch the build.', 'Watch the build.', 'babysit')).toBe('');
    expect(matchExpansion('Watch the build.', 'Watch the build.\n\n/babysit now please', 'babysit')).toBe('now please');
  });
  it('lets shell and file injections stand for anything, and refuses other prompts', () => {
    expect(matchExpansion('Diff:\n!{git diff}\nSummarise.', 'Diff:\n+ a line\nSummarise.', 'diff')).toBe('');
    expect(matchExpansion('Watch the build.', 'Watch the build and more.', 'babysit')).toBeUndefined();
  });
});
