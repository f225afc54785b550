import { commandHookSetup } from '@hookwise/cli/command-hook';
import { files } from '../hook-process/package-files.js';
import { checkClaudeCodeSetup } from './doctor.js';
import { planClaudeCodeInit } from './init.js';

/**
 * What `hookwise` (@hookwise/cli) does for Claude Code (see the kit's `commandHookSetup`).
 * (`hookwise report` is the CLI's own: it reads any host's session.)
 */
export default commandHookSetup(files, {
  host: 'claude-code',
  describe: 'Claude Code: one `hookwise run <Event>` command hook per needed event in .claude/settings.json',
  initOptions: [
    {
      flags: '-s, --scope <scope>',
      description: 'which Claude Code settings file to write',
      choices: ['project', 'local', 'user'],
      default: 'project',
    },
  ],
  init: planClaudeCodeInit,
  doctor: checkClaudeCodeSetup,
});
