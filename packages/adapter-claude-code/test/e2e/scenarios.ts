import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isToolResultTurn, type Block, type Responder } from './stand-in-api.js';

/** Scripted model replies and project files shared by the Claude Code and Agent SDK suites. */

let toolUseCounter = 0;
export const bashCall = (command: string): Block => ({
  type: 'tool_use',
  id: `toolu_e2e_${++toolUseCounter}`,
  name: 'Bash',
  input: { command, description: command },
});

/** First turn of each prompt: three Bash calls; after the tool results: a final text. Compaction: a summary. */
export function threeToolCalls(options: { inputTokens?: number } = {}): Responder {
  return (body, { kind }) => {
    if (kind === 'compaction')
      return { content: [{ type: 'text', text: '<summary>The user ran three echo commands.</summary>' }], inputTokens: 30_000 };
    if (kind === 'main' && !isToolResultTurn(body))
      return { content: [bashCall('echo 1'), bashCall('echo 2'), bashCall('echo 3')], inputTokens: options.inputTokens ?? 40_000 };
    return { content: [{ type: 'text', text: 'Done.' }], inputTokens: (options.inputTokens ?? 40_000) + 500 };
  };
}

export const BABYSIT_RULES = 'BABYSIT RULES: run the tests after every edit; never push to main.';

/** The babysit command of the compaction tests: its COMPACT_SUMMARY must survive /compact. */
export function writeBabysitCommand(projectDir: string): void {
  mkdirSync(path.join(projectDir, '.claude', 'commands'), { recursive: true });
  writeFileSync(
    path.join(projectDir, '.claude', 'commands', 'babysit.md'),
    [
      '---',
      'description: Keep an eye on the build',
      '---',
      'Watch the build and report.',
      '',
      '<!-- COMPACT_SUMMARY_START -->',
      BABYSIT_RULES,
      '<!-- COMPACT_SUMMARY_END -->',
      '',
    ].join('\n'),
  );
}
