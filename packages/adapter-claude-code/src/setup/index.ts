import { createRequire } from 'node:module';
import type { HostSetup } from '@hookwise/cli';
import { binPath } from '../hook-process/package-files.js';
import { checkClaudeCodeSetup } from './doctor.js';
import { planClaudeCodeInit } from './init.js';

/**
 * What `hookwise` (@hookwise/cli) does for Claude Code; package.json's `"hookwise"` field
 * points the CLI here. (`hookwise report` is the CLI's own: it reads any host's session.)
 */
const setup: HostSetup = {
  host: 'claude-code',
  describe: 'Claude Code: one `hookwise run <Event>` command hook per needed event in .claude/settings.json',
  initOptions: [
    {
      flags: '-s, --scope <scope>',
      description: 'which Claude Code settings file to write',
      choices: ['project', 'local', 'user'],
      default: 'project',
    },
    {
      flags: '--command <prefix>',
      description: 'command prefix the settings call, e.g. "npx hookwise-claude-code" (default: node and the path of this adapter\'s bin)',
    },
  ],
  init: planClaudeCodeInit,
  doctor: checkClaudeCodeSetup,
  // Settings written with `--command "npx hookwise"`: the call goes through bin/hookwise.cjs as
  // if Claude Code had called it (its stdout and exit guards included). The bin ends the
  // process on every path, so the promise never settles.
  run: (args) => {
    process.argv = [process.argv[0]!, binPath(), 'run', ...args];
    createRequire(import.meta.url)(binPath());
    return new Promise<never>(() => undefined);
  },
};

export default setup;
