import { createRequire } from 'node:module';
import type { HostSetup } from '@hookwise/cli';
import { binPath } from '../hook-process/package-files.js';
import { checkCodexSetup } from './doctor.js';
import { planCodexInit } from './init.js';

/** What `hookwise` (@hookwise/cli) does for Codex; package.json's `"hookwise"` field points the CLI here. */
const setup: HostSetup = {
  host: 'codex',
  describe: 'Codex CLI: one `hookwise run <Event>` command hook per needed event in .codex/hooks.json',
  initOptions: [
    {
      flags: '--command <prefix>',
      description: 'command prefix the hooks call, e.g. "npx hookwise-codex" (default: node and the path of this adapter\'s bin)',
    },
  ],
  init: planCodexInit,
  doctor: checkCodexSetup,
  // Hooks written with `--command "npx hookwise"`: the call goes through bin/hookwise.cjs as if
  // Codex had called it. The bin ends the process on every path, so the promise never settles.
  run: (args) => {
    process.argv = [process.argv[0]!, binPath, 'run', ...args];
    createRequire(import.meta.url)(binPath);
    return new Promise<never>(() => undefined);
  },
};

export default setup;
